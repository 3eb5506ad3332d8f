// config.nvlink on every fabric source path (UFM fabric mode, UFM legacy
// mode, graph, lldp, ibnetdiscover), each run as the controller runs it (the
// factory, the poll loop, a fake clock) over a Node cache whose clique labels
// change: the first poll places the racks' domains below their leaf groups; a
// clique that appears later, or a burst of them, makes one new snapshot soon
// after, built from the last poll without reading the fabric again, and the
// poll schedule stays; a label the tier does not read changes nothing; a
// wrong config.nvlink fails the source with the field named.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGraphDiscovererFactory } from '../../../../src/hypernode/discovery/graph/graph-discoverer.ts';
import { createIbnetdiscoverDiscovererFactory } from '../../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { createLldpDiscovererFactory } from '../../../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import { parseSnmpCapture } from '../../../../src/hypernode/discovery/lldp/snmp-capture.ts';
import { REBUILD_COALESCE_MS } from '../../../../src/hypernode/discovery/poll-loop.ts';
import { createUfmDiscovererFactory } from '../../../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import type {
  Discoverer,
  DiscovererFactory,
  DiscovererOptions,
  DiscoveryEntry,
  Snapshot,
} from '../../../../src/hypernode/model/contracts.ts';
import type { Logger } from '../../../../src/log.ts';
import type { NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import type { Channel } from '../../../../src/util/channel.ts';
import { briefPort, generateFatTree } from '../../../../testing/fat-tree.ts';
import { addRailFabric, IbFabric } from '../../../../testing/ib-fabric.ts';
import { railGraphDocument } from '../../../../testing/graph-server.ts';
import { computerPorts } from '../../../../testing/ufm-server.ts';
import { FakeClock, settle } from '../../../kube/fake-clock.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { FakeSecrets } from '../../../support/fake-secrets.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const CLIQUE = 'nvidia.com/gpu.clique';
const RACK = ['aaaaaaaa-0000-4000-8000-000000000001', 'aaaaaaaa-0000-4000-8000-000000000002'];
const INTERVAL_MS = 60_000;
const LLDP_CAPTURE = join(import.meta.dirname, '../../../cmd/lldp-capture');

interface SourceCase {
  readonly name: string;
  readonly source: string;
  readonly config: Record<string, unknown>;
  /** Whether the entry names a Secret (the sources that read a remote system with one). */
  readonly secret: boolean;
  /** Two units of three Nodes: the Node names, unit by unit. */
  readonly units: readonly (readonly string[])[];
  /** The factory, counting each read of the fabric in `reads`. */
  factory(reads: { count: number }): DiscovererFactory;
}

const fatTree = generateFatTree({ sus: 2, nodesPerSu: 3, rails: 2, tiers: 2, uplinks: 1 });
const ufmBodies: Record<string, string> = {
  systems: JSON.stringify(fatTree.systems),
  links: JSON.stringify(fatTree.links),
  ports: JSON.stringify(fatTree.ports.map(briefPort)),
};
const legacyUnits = [
  ['n1', 'n2', 'n3'],
  ['n4', 'n5', 'n6'],
];
const legacyPorts = JSON.stringify([
  ...computerPorts(legacyUnits[0]!, ['leaf-a1', 'leaf-a2']),
  ...computerPorts(legacyUnits[1]!, ['leaf-b1', 'leaf-b2']),
]);
const labHosts = (su: number) => [1, 2, 3].map((h) => `su${su}-h${h}`);
const ibOutput = addRailFabric(new IbFabric(), { units: 2, hostsPerUnit: 3, rails: 2, spines: 2 }).ibnetdiscoverText();
const walks = readdirSync(LLDP_CAPTURE).map((f) => ({
  address: f,
  varbinds: parseSnmpCapture(readFileSync(join(LLDP_CAPTURE, f), 'utf8'), f),
}));

const CASES: readonly SourceCase[] = [
  {
    name: 'UFM fabric mode',
    source: 'ufm',
    config: { mode: 'fabric', fabric: 'pod', endpoint: 'https://ufm', nvlink: 'domain' },
    secret: true,
    units: [fatTree.hosts.slice(0, 3), fatTree.hosts.slice(3)],
    factory: (reads) =>
      createUfmDiscovererFactory({
        readResourceBody: async (_endpoint, resource) => {
          if (resource === 'systems') reads.count++;
          return ufmBodies[resource]!;
        },
      }),
  },
  {
    name: 'UFM legacy mode',
    source: 'ufm',
    config: { endpoint: 'https://ufm', nvlink: 'domain' },
    secret: true,
    units: legacyUnits,
    factory: (reads) =>
      createUfmDiscovererFactory({
        readResourceBody: async () => {
          reads.count++;
          return legacyPorts;
        },
      }),
  },
  {
    name: 'graph',
    source: 'graph',
    config: { fabric: 'lab', file: '/var/run/ibnetdiscover/unused', nvlink: 'domain' },
    secret: false,
    units: [1, 2].map((su) => [1, 2, 3].map((h) => `su${su}-h${h}`)),
    factory: (reads) =>
      createGraphDiscovererFactory({
        readGraph: async () => {
          reads.count++;
          return JSON.stringify(railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 3, spines: 2 }));
        },
      }),
  },
  {
    name: 'lldp',
    source: 'lldp',
    config: {
      fabric: 'roce',
      switches: walks.map((w) => w.address),
      hostMapping: { stripSuffix: '.fabric.example.com' },
      nvlink: 'domain',
    },
    secret: true,
    units: [labHosts(1), labHosts(2)],
    factory: (reads) =>
      createLldpDiscovererFactory({
        captured: async () => {
          reads.count++;
          return walks;
        },
      }),
  },
  {
    name: 'ibnetdiscover',
    source: 'ibnetdiscover',
    config: { fabric: 'lab', nvlink: 'domain' },
    secret: false,
    units: [labHosts(1), labHosts(2)],
    factory: (reads) =>
      createIbnetdiscoverDiscovererFactory({
        readOutput: async () => {
          reads.count++;
          return ibOutput;
        },
      }),
  },
];

/** The source's entry, polling every INTERVAL_MS, with a Secret where the source reads one. */
const entryOf = (c: SourceCase, config: Record<string, unknown>): DiscoveryEntry => ({
  source: c.source,
  enabled: true,
  intervalMs: INTERVAL_MS,
  maxDeletePercent: 50,
  config,
  ...(c.secret ? { credentials: { secretRef: { name: 's', namespace: 'volcano-system' } } } : {}),
});

/** What a source is given, over `nodes`: no HyperNode yet, no Secret read, problems logged. */
const optionsOf = (nodes: FakeInformer<NodeMeta>, clock: FakeClock, logger: Logger): DiscovererOptions => ({
  nodes,
  hyperNodes: new FakeInformer({ initial: [] }),
  secrets: new FakeSecrets(),
  clock,
  logger,
  workerErrors: unexpectedWorkerError,
  problems: new RecordingProblems(logger),
});

/** Tier-1 domains as `domain: nodes`, and which HyperNode holds each Node directly. */
function picture(s: Snapshot) {
  const domains = s
    .filter((h) => h.spec.tierName === 'nvl-domain')
    .map((h) => `${h.metadata.labels?.[CLIQUE]}: ${h.spec.members.map((m) => m.selector!.exactMatch!.name).join(',')}`)
    .sort();
  const tiers = [...new Set(s.filter((h) => h.spec.tierName !== 'nvl-domain').map((h) => h.spec.tier))].sort();
  return { domains, tiers };
}

for (const c of CASES) {
  test(`${c.name}: domains under their leaf groups; a clique appearing later (a burst of them) makes one snapshot from the last poll, without reading the fabric`, async () => {
    const clock = new FakeClock();
    const { logger, lines } = capturingLogger();
    const [u1, u2] = c.units as [string[], string[]];
    const labels = (name: string): Record<string, string> =>
      u1.slice(0, 2).includes(name)
        ? { [CLIQUE]: `${RACK[0]}.1` }
        : u2.includes(name)
          ? { [CLIQUE]: `${RACK[1]}.1` }
          : {};
    const nodes = new FakeInformer<NodeMeta>({
      initial: [...u1, ...u2].map((name) => ({ metadata: { name, labels: labels(name) } })),
    });
    const reads = { count: 0 };
    const entry = entryOf(c, c.config);
    const d: Discoverer = await c.factory(reads)(entry, optionsOf(nodes, clock, logger));
    const out: Channel<Snapshot> = await d.start();
    try {
      /** The snapshot published and not yet taken, without waiting. */
      const taken = async (): Promise<Snapshot | undefined> => {
        const now = new AbortController();
        const r = out.recv(now.signal);
        now.abort();
        return r.then((x) => x.value).catch(() => undefined);
      };
      await settle();
      const first = await taken();
      assert.ok(first, `the first poll published:\n${lines.join('\n')}`);
      assert.equal(picture(first!), {
        domains: [`${RACK[0]}: ${u1.slice(0, 2).join(',')}`, `${RACK[1]}: ${u2.join(',')}`],
        tiers: [2, 3],
      });
      const leafOf = (s: Snapshot, node: string) =>
        s.find((h) => h.spec.members.some((m) => m.type === 'Node' && m.selector!.exactMatch?.name === node));
      assert.is(
        leafOf(first!, u1[2]!)!.spec.tierName === 'nvl-domain',
        false,
        `${u1[2]} without a clique sits in its leaf group`,
      );
      assert.is(reads.count, 1);

      // The third Node of unit 1 gets its clique, and a second update of it and another Node's label follow in the
      // burst.
      nodes.apply({ metadata: { name: u1[2]!, labels: { [CLIQUE]: `${RACK[0]}.2` } } });
      nodes.apply({ metadata: { name: u1[2]!, labels: { [CLIQUE]: `${RACK[0]}.1` } } });
      nodes.apply({ metadata: { name: u1[0]!, labels: { [CLIQUE]: `${RACK[0]}.1`, 'example.com/other': 'x' } } });
      await clock.advance(REBUILD_COALESCE_MS);
      const rebuilt = await taken();
      assert.ok(rebuilt, 'a rebuild published within the coalescing window');
      assert.equal(picture(rebuilt!).domains, [`${RACK[0]}: ${u1.join(',')}`, `${RACK[1]}: ${u2.join(',')}`]);
      assert.is(await taken(), undefined, 'one snapshot for the burst');
      assert.is(reads.count, 1, 'the fabric was not read again');

      // A label the tier does not read: nothing.
      nodes.apply({ metadata: { name: u2[0]!, labels: { ...labels(u2[0]!), 'example.com/other': 'y' } } });
      await clock.advance(REBUILD_COALESCE_MS);
      assert.is(await taken(), undefined, 'no rebuild for another label');

      // The poll schedule is unchanged: the next poll comes at the interval, with the rebuilt picture.
      await clock.advance(INTERVAL_MS - 2 * REBUILD_COALESCE_MS - 1);
      assert.is(reads.count, 1, 'no poll before the interval');
      await clock.advance(1);
      assert.is(reads.count, 2, 'the next poll at the interval');
      assert.equal(picture((await taken())!).domains, picture(rebuilt!).domains);
    } finally {
      await d.stop();
    }
  });
}

for (const c of CASES) {
  test(`${c.name}: a wrong config.nvlink fails the source naming the field, its source and what to write`, async () => {
    const { logger } = capturingLogger();
    const refused = await c
      .factory({ count: 0 })(
        entryOf(c, { ...c.config, nvlink: { level: 'rack' } }),
        optionsOf(new FakeInformer<NodeMeta>(), new FakeClock(), logger),
      )
      .then(() => 'created')
      .catch((err: Error) => err.message);
    assert.is(
      refused,
      `${c.source} source: config.nvlink.level must be domain or partition (domain: the NVLink domain, e.g. one NVL72 rack; partition: the fabric manager's partition), got "rack"`,
    );
  });
}

test.run();
