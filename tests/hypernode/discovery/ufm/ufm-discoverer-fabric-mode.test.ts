// Fabric mode end to end over HTTPS against the UFM stand-in: access tokens
// and a private CA from the Secret, a wrong CA or a revoked token failing
// closed, several fabrics (one failing keeps its HyperNodes, also after a
// restart), hosts that are not Nodes counted and logged once, and no
// credential in any log line at -v=10.

import { TEST_INPUT_POLICY } from '../../../support/input-policy.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUfmDiscovererFactory } from '../../../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import { UFM_FABRIC_LABEL } from '../../../../src/hypernode/model/hypernode-labels.ts';
import type { Discoverer, DiscoveryEntry, Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { realClock } from '../../../../src/kube/clock.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import type { Channel } from '../../../../src/util/channel.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { FakeSecrets } from '../../../support/fake-secrets.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { RecordingMetrics } from '../../../support/recording-metrics.ts';
import { generateFatTree, lowestGuid, type FatTree } from '../../../../testing/fat-tree.ts';
import { OTHER_CA, TEST_CA, withUfmServers, type UfmServer } from '../../../../testing/ufm-server.ts';
import { waitFor, within } from '../../../../testing/wait.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const TOKEN = 'ufm-access-token';
const PASSWORD = 'pa55-w0rd-never-logged';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const nodesOf = (tree: FatTree, keep: (h: string) => boolean = () => true): NodeMeta[] =>
  tree.hosts.filter(keep).map((name) => ({ metadata: { name } }));

interface Rig {
  lines: string[];
  secrets: FakeSecrets;
  metrics: RecordingMetrics;
  problems?: RecordingProblems;
  /** The Node cache of the last start(). */
  nodes?: FakeInformer<NodeMeta>;
  start(config: Record<string, unknown>, nodes: NodeMeta[], existing?: HyperNode[]): Promise<Channel<Snapshot>>;
}

async function withRig(fn: (rig: Rig) => Promise<void>): Promise<void> {
  const { logger, lines } = capturingLogger({ verbosity: 10 });
  const started: Discoverer[] = [];
  const secrets = new FakeSecrets();
  const rig: Rig = {
    lines,
    secrets,
    metrics: new RecordingMetrics(),
    async start(config, nodes, existing = []) {
      const entry: DiscoveryEntry = {
        source: 'ufm',
        enabled: true,
        intervalMs: 1_000,
        maxDeletePercent: 50,
        credentials: { secretRef: { name: 'ufm', namespace: 'volcano-system' } },
        config,
      };
      // No CA in the tuning: only a ca.crt in the Secret makes the stand-in's certificate trusted.
      const factory = createUfmDiscovererFactory({ retryBaseMs: 20, timeoutMs: 5_000 });
      rig.problems = new RecordingProblems(logger);
      rig.nodes = new FakeInformer({ initial: nodes });
      const d = await factory(entry, {
        nodes: rig.nodes,
        hyperNodes: new FakeInformer({ initial: existing }),
        secrets,
        clock: realClock,
        logger,
        workerErrors: unexpectedWorkerError,
        inputPolicy: TEST_INPUT_POLICY,
        problems: rig.problems,
        metrics: rig.metrics,
      });
      started.push(d);
      return d.start();
    },
  };
  try {
    await fn(rig);
  } finally {
    for (const d of started) await d.stop();
  }
}

const next = (ch: Channel<Snapshot>) => within(ch.recv(), 10_000, 'a snapshot').then((r) => r.value!);
const tiers = (s: Snapshot) =>
  s
    .map((h) => h.spec.tier)
    .sort()
    .join('');
const noCredentialIn = (lines: string[]) => {
  for (const secret of [TOKEN, PASSWORD, b64(`admin:${PASSWORD}`), b64(TOKEN)])
    assert.not.ok(
      lines.some((l) => l.includes(secret)),
      `a log line holds ${secret}`,
    );
};

/** What a test's Secrets allow: the stand-ins' endpoints. */
const allowing = (...servers: UfmServer[]) => ({ endpoints: servers.map((s) => s.endpoint()) });

test("auth: token sends the access token to /ufmRestV3 and trusts the Secret's private CA; no credential is logged at -v=10", () =>
  withUfmServers(1, async ([server]) =>
    withRig(async (rig) => {
      const tree = generateFatTree({ sus: 2, nodesPerSu: 4, rails: 2, tiers: 2 });
      server!.answer = { kind: 'fabric', fabric: tree };
      rig.secrets.put('volcano-system', 'ufm', { token: TOKEN, 'ca.crt': TEST_CA }, allowing(server!));
      const snap = await next(
        await rig.start({ mode: 'fabric', auth: 'token', endpoint: server!.endpoint() }, nodesOf(tree)),
      );
      assert.is(tiers(snap), '112');
      assert.equal(
        server!.requests.map((r) => [r.path, r.authorization]),
        [
          ['/ufmRestV3/resources/systems', `Basic ${TOKEN}`],
          ['/ufmRestV3/resources/links', `Basic ${TOKEN}`],
          ['/ufmRestV3/resources/ports?brief=true', `Basic ${TOKEN}`],
        ],
      );
      assert.ok(
        rig.lines.some((l) => l.includes('Sending request to UFM server')),
        'the -v=10 log has the requests',
      );
      noCredentialIn(rig.lines);
    }),
  ));

test('basic auth in fabric mode: the password is never logged at -v=10, not even in a 401', () =>
  withUfmServers(1, async ([server]) =>
    withRig(async (rig) => {
      const tree = generateFatTree({ sus: 1, nodesPerSu: 2, rails: 2, tiers: 2 });
      server!.answer = { kind: 'fabric', fabric: tree };
      server!.password = PASSWORD;
      rig.secrets.put(
        'volcano-system',
        'ufm',
        { username: 'admin', password: PASSWORD, 'ca.crt': TEST_CA },
        allowing(server!),
      );
      const ch = await rig.start({ mode: 'fabric', endpoint: server!.endpoint() }, nodesOf(tree));
      assert.is((await next(ch)).length, 1);
      server!.password = 'rotated';
      await waitFor(() => rig.problems!.failures.some((f) => f.includes('401')), { what: 'the 401 reported' });
      noCredentialIn(rig.lines);
    }),
  ));

for (const [what, secret, expect] of [
  ['a wrong private CA', { token: TOKEN, 'ca.crt': OTHER_CA }, /certificate/],
  [
    'a revoked or expired token',
    { token: 'expired-token', 'ca.crt': TEST_CA },
    /401 Unauthorized: UFM refused the access token \(revoked or expired\)/,
  ],
] as const) {
  test(`${what} fails closed: no snapshot, so nothing is deleted, and the reason is reported`, () =>
    withUfmServers(1, async ([server]) =>
      withRig(async (rig) => {
        server!.answer = { kind: 'fabric', fabric: generateFatTree({ sus: 1, nodesPerSu: 2, rails: 2, tiers: 2 }) };
        rig.secrets.put('volcano-system', 'ufm', secret, allowing(server!));
        const ch = await rig.start({ mode: 'fabric', auth: 'token', endpoint: server!.endpoint() }, []);
        await waitFor(() => rig.problems!.failures.length >= 2, { what: 'a failure and a retry' });
        assert.match(rig.problems!.failures[0]!, expect);
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 50);
        assert.is((await ch.recv(ac.signal).catch(() => ({ value: undefined }))).value, undefined, 'no snapshot');
        noCredentialIn(rig.lines);
      }),
    ));
}

test('hosts that match no Node are counted, listed once in the log, and never members', () =>
  withUfmServers(1, async ([server]) =>
    withRig(async (rig) => {
      const tree = generateFatTree({
        sus: 2,
        nodesPerSu: 3,
        rails: 2,
        tiers: 2,
        hostName: (s, n) => `SU${s}-N${n}.ib.example.com`,
      });
      server!.answer = { kind: 'fabric', fabric: tree };
      rig.secrets.put(
        'volcano-system',
        'ufm',
        { username: 'admin', password: 'secret', 'ca.crt': TEST_CA },
        allowing(server!),
      );
      const nodes = ['su1-n1', 'su1-n2', 'su1-n3', 'su2-n1'].map((name) => ({ metadata: { name } }));
      const ch = await rig.start(
        {
          mode: 'fabric',
          endpoint: server!.endpoint(),
          hostMapping: { lowercase: true, stripSuffix: '.ib.example.com' },
        },
        nodes,
      );
      const first = await next(ch);
      const second = await next(ch);
      assert.equal(first, second);
      const memberNames = first.flatMap((h) => h.spec.members.map((m) => m.selector!.exactMatch!.name));
      assert.ok(['su1-n1', 'su1-n2', 'su1-n3', 'su2-n1'].every((n) => memberNames.includes(n)));
      assert.not.ok(memberNames.some((n) => n.includes('example')));
      assert.is(rig.metrics.unmapped.get('ufm'), 2);
      assert.is(rig.metrics.uncovered.get('ufm'), 2, 'hypernode_uncovered_nodes of the source');
      const listed = rig.lines.filter((l) => l.includes('UFM hosts that match no Node'));
      assert.is(listed.length, 1, 'listed once over two runs');
      assert.match(listed[0]!, /SU2-N2\.ib\.example\.com,SU2-N3\.ib\.example\.com/);
    }),
  ));

test('two fabrics: each its own tree; one failing keeps its HyperNodes, also after a restart', () =>
  withUfmServers(2, async ([a, b]) =>
    withRig(async (rig) => {
      const treeA = generateFatTree({ sus: 2, nodesPerSu: 2, rails: 2, tiers: 2, fabricId: 1, site: 'a' });
      const treeB = generateFatTree({
        sus: 2,
        nodesPerSu: 2,
        rails: 2,
        tiers: 2,
        fabricId: 2,
        site: 'b',
        hostName: (s, n) => `b${s}-${n}`,
      });
      a!.answer = { kind: 'fabric', fabric: treeA };
      b!.answer = { kind: 'fabric', fabric: treeB, linksEnvelope: true };
      rig.secrets.put(
        'volcano-system',
        'ufm',
        { username: 'admin', password: 'secret', 'ca.crt': TEST_CA },
        allowing(a!, b!),
      );
      rig.secrets.put('volcano-system', 'ufm-b', { token: TOKEN, 'ca.crt': TEST_CA }, allowing(a!, b!));
      const config = {
        mode: 'fabric',
        fabrics: [
          { name: 'pod-a', endpoint: a!.endpoint() },
          { name: 'pod-b', endpoint: b!.endpoint(), auth: 'token', secretRef: { name: 'ufm-b' } },
        ],
      };
      const nodes = [...nodesOf(treeA), ...nodesOf(treeB)];
      const ch = await rig.start(config, nodes);
      const both = await next(ch);
      const fabricOf = (s: Snapshot) => [...new Set(s.map((h) => h.metadata.labels?.[UFM_FABRIC_LABEL]))].sort();
      assert.equal(fabricOf(both), ['pod-a', 'pod-b']);
      assert.equal(
        both
          .filter((h) => h.spec.tier === 2)
          .map((h) => h.metadata.name)
          .sort(),
        [`pod-a-spine-${lowestGuid(treeA, 'spine-')}`, `pod-b-spine-${lowestGuid(treeB, 'spine-')}`],
      );
      b!.answer = { kind: 'status', status: 503 };
      const kept = await next(ch);
      assert.equal(kept, both, "pod-b's HyperNodes are kept while its UFM fails");
      assert.ok(rig.problems!.failures.some((f) => f.startsWith('Failed to discover UFM fabric pod-b')));

      // A restart while pod-b's UFM is down: its HyperNodes come from the cache, as written.
      const cached: HyperNode[] = both.map((h) => ({
        apiVersion: 'topology.volcano.sh/v1alpha1',
        kind: 'HyperNode',
        ...structuredClone(h),
      }));
      const after = await next(await rig.start(config, nodes, cached));
      assert.equal(after, both);
    }),
  ));

test('uncovered hosts are summed over the fabrics; a failing fabric keeps its count; new Nodes bring it to 0', () =>
  withUfmServers(2, async ([a, b]) =>
    withRig(async (rig) => {
      const treeA = generateFatTree({ sus: 1, nodesPerSu: 3, rails: 2, tiers: 2, fabricId: 1, site: 'a' });
      const treeB = generateFatTree({
        sus: 1,
        nodesPerSu: 3,
        rails: 2,
        tiers: 2,
        fabricId: 2,
        site: 'b',
        hostName: (s, n) => `b${s}-${n}`,
      });
      a!.answer = { kind: 'fabric', fabric: treeA };
      b!.answer = { kind: 'fabric', fabric: treeB };
      rig.secrets.put(
        'volcano-system',
        'ufm',
        { username: 'admin', password: 'secret', 'ca.crt': TEST_CA },
        allowing(a!, b!),
      );
      const config = {
        mode: 'fabric',
        fabrics: [
          { name: 'pod-a', endpoint: a!.endpoint() },
          { name: 'pod-b', endpoint: b!.endpoint() },
        ],
      };
      const [missingA, missingB] = [treeA.hosts[0]!, treeB.hosts[2]!];
      const ch = await rig.start(config, [
        ...nodesOf(treeA, (h) => h !== missingA),
        ...nodesOf(treeB, (h) => h !== missingB),
      ]);
      await next(ch);
      assert.equal(
        [rig.metrics.unmapped.get('pod-a'), rig.metrics.unmapped.get('pod-b'), rig.metrics.uncovered.get('ufm')],
        [1, 1, 2],
      );

      b!.answer = { kind: 'status', status: 503 };
      const failures = rig.problems!.failures.length;
      await waitFor(() => rig.problems!.failures.length > failures, { what: 'a failed run of pod-b' });
      assert.is(rig.metrics.uncovered.get('ufm'), 2, "pod-b's last count stays in the sum");

      b!.answer = { kind: 'fabric', fabric: treeB };
      for (const name of [missingA, missingB]) rig.nodes!.apply({ metadata: { name } });
      await waitFor(() => rig.metrics.uncovered.get('ufm') === 0, { what: 'every host a Node' });
      assert.equal([rig.metrics.unmapped.get('pod-a'), rig.metrics.unmapped.get('pod-b')], [0, 0]);
    }),
  ));

test.run();
