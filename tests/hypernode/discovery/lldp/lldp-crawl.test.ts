// The crawl from seed switches (config.seeds): neighbours that are bridges or
// routers and no Node are walked at their management address (lldpRemManAddrTable) when
// it is in config.allow; the whole fabric is found from one leaf, and finding
// more than config.maxSwitches fails the fabric instead of publishing part of it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import { generateFatTree } from '../../../../testing/fat-tree.ts';
import { lldpSwitches, lldpVarbinds } from '../../../../testing/lldp-fabric.ts';
import { lldpPolls, type LldpPolls } from '../../../support/lldp-polls.ts';

const tree = generateFatTree({ sus: 3, tiers: 2, nodesPerSu: 2, rails: 2, uplinks: 2 });
const switches = lldpSwitches(tree);
/** Switch i answers at 10.1.0.i; spines at 10.2.0.i, outside an allow-list of 10.1.0.0/16. */
const addressOf = new Map(
  switches.map((sw, i) => [sw.id, `${sw.name.startsWith('spine') ? '10.2' : '10.1'}.0.${i + 1}`]),
);
/**
 * Hosts announce a management address in the allowed networks too, and Router and Bridge, as Kubernetes nodes' lldpd
 * does.
 */
const HOST_NETWORK = '10.1.9.';
const hostAddress = (hex: string) => `${HOST_NETWORK}${Number.parseInt(hex.slice(-2), 16)}`;
const walks = new Map(
  switches.map((sw) => [
    `${addressOf.get(sw.id)}:161`,
    lldpVarbinds(sw, (hex) => addressOf.get(hex) ?? hostAddress(hex)),
  ]),
);

async function firstRun(
  config: Record<string, unknown>,
): Promise<{ snapshot?: Snapshot; problems: LldpPolls['problems']; walked: string[] }> {
  const walked: string[] = [];
  const walker = async (t: { host: string; port: number }) => {
    walked.push(`${t.host}:${t.port}`);
    const w = walks.get(`${t.host}:${t.port}`);
    if (!w) throw new Error('SNMP walk failed: no answer (timed out)');
    return w;
  };
  const { snapshots, problems } = await lldpPolls(config, { walker }, tree.hosts);
  return { snapshot: snapshots[0], problems, walked };
}

test('one leaf as seed finds every switch: the same tree as the explicit switch list', async () => {
  const all = await firstRun({ switches: [...walks.keys()] });
  const leaf = [...walks.keys()][0]!;
  const crawled = await firstRun({ seeds: [leaf], allow: ['10.0.0.0/8'] });
  assert.ok(all.snapshot && all.snapshot.length > 0);
  assert.equal(crawled.snapshot, all.snapshot);
  assert.is(new Set(crawled.walked).size, crawled.walked.length, 'no switch walked twice');
  assert.not.ok(
    crawled.walked.some((a) => a.startsWith(HOST_NETWORK)),
    `a Node announcing Router and Bridge is never walked: ${crawled.walked.join(',')}`,
  );
  assert.ok(
    crawled.walked.some((a) => a.startsWith('10.2.')) &&
      crawled.walked.some((a) => a !== leaf && a.startsWith('10.1.')),
    'spines, then the other leaves, found through management addresses',
  );
});

test('the allow-list bounds the crawl: switches outside it are not walked and are reported, not guessed', async () => {
  const r = await firstRun({ seeds: [[...walks.keys()][0]!], allow: ['10.1.0.0/16'] });
  assert.ok(
    r.walked.every((a) => a.startsWith('10.1.')),
    r.walked.join(','),
  );
  assert.ok(
    r.problems.warnings.some(
      (w) =>
        w.startsWith('FabricMiscabled') &&
        /"spine-\d+" .*capabilities bridge\) is no polled switch and maps to no Node/.test(w),
    ),
    r.problems.warnings.join('\n'),
  );
});

test('more switches than maxSwitches fails the fabric: nothing is published, the error says what to raise', async () => {
  const r = await firstRun({ seeds: [[...walks.keys()][0]!], allow: ['10.0.0.0/8'], maxSwitches: 3 });
  assert.is(r.snapshot, undefined);
  assert.match(
    r.problems.failures.join('\n'),
    /found more than maxSwitches \(3\) switches; \d+ more management addresses were not walked, .* raise maxSwitches or narrow allow/,
  );
  assert.is(new Set(r.walked).size, 3);
});

test('seeds need an allow-list; allow and maxSwitches need seeds', async () => {
  for (const [config, message] of [
    [{ seeds: ['10.1.0.1'] }, /config\.allow must list the IPv4 networks/],
    [{ seeds: ['10.1.0.1'], allow: ['10.1.0.0/33'] }, /config\.allow\[0\] must be an IPv4 network/],
    [{ switches: ['10.1.0.1'], maxSwitches: 5 }, /config\.maxSwitches needs config\.seeds/],
  ] as const) {
    const err = await firstRun(config as Record<string, unknown>).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.match(String(err?.message), message as RegExp);
  }
});

test.run();
