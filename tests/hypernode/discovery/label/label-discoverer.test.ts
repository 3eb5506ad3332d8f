import { RecordingProblems } from '../../../support/recording-problems.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  labelDiscovererFactory,
  TRIGGER_DEBOUNCE_MS,
  UNCOVERED_LOGGED_NODES,
} from '../../../../src/hypernode/discovery/label/label-discoverer.ts';
import type {
  Discoverer,
  DiscovererOptions,
  DiscoveryEntry,
  Snapshot,
} from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import type { Channel } from '../../../../src/util/channel.ts';
import { nullLogger } from '../../../../src/log.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { within } from '../../../../testing/wait.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { RecordingMetrics } from '../../../support/recording-metrics.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import { offered, round } from './discoverer-round.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const HN = 'volcano.sh/hypernode';
const HC = 'volcano.sh/hypercluster';

const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const entry: DiscoveryEntry = {
  source: 'label',
  enabled: true,
  intervalMs: 3_600_000,
  maxDeletePercent: 50,
  config: {
    networkTopologyTypes: {
      topologyA3: [{ nodeLabel: HC }, { nodeLabel: HN }, { nodeLabel: 'kubernetes.io/hostname' }],
    },
  },
};
function guideNodes(): NodeMeta[] {
  return Array.from({ length: 8 }, (_, i) =>
    node(`node${i}`, { [HN]: `s${i >> 1}`, [HC]: i < 4 ? 's4' : 's5', other: 'x' }),
  );
}

function discovererOptions(
  clock: FakeClock,
  nodes = new FakeInformer<NodeMeta>(),
  hyperNodes = new FakeInformer<HyperNode>(),
): DiscovererOptions {
  return {
    nodes,
    hyperNodes,
    clock,
    logger: nullLogger,
    workerErrors: unexpectedWorkerError,
    problems: new RecordingProblems(nullLogger),
    secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('the label source reads no Secrets')) },
  };
}

interface Rig {
  clock: FakeClock;
  nodes: FakeInformer<NodeMeta>;
  hyperNodes: FakeInformer<HyperNode>;
  d: Discoverer;
  ch: Channel<Snapshot>;
}

async function startRig(opts: { nodesSynced?: boolean } = {}): Promise<Rig> {
  const clock = new FakeClock();
  const nodes = new FakeInformer<NodeMeta>({ initial: guideNodes(), synced: opts.nodesSynced ?? true });
  const hyperNodes = new FakeInformer<HyperNode>();
  const d = await labelDiscovererFactory(entry, discovererOptions(clock, nodes, hyperNodes));
  const ch = await d.start();
  return { clock, nodes, hyperNodes, d, ch };
}

test('start: one snapshot of the user-guide topology after the debounce, nothing before', async () => {
  const rig = await startRig();
  await rig.clock.advance(TRIGGER_DEBOUNCE_MS - 1);
  assert.is(await offered(rig.ch), 'none', 'still debouncing');
  const snap = await round(rig);
  assert.ok(Array.isArray(snap));
  assert.is((snap as Snapshot).length, 6);
  assert.is(await round(rig), 'none', 'eight synthetic adds coalesced into one run');
  await rig.d.stop();
});

test('irrelevant label changes and HyperNode adds do not trigger; relevant ones do, coalesced', async () => {
  const rig = await startRig();
  assert.ok(Array.isArray(await round(rig)));
  rig.nodes.apply(node('node0', { [HN]: 's0', [HC]: 's4', other: 'changed' }));
  rig.hyperNodes.apply({ metadata: { name: 'manual' }, spec: { tier: 1 } });
  assert.is(await round(rig), 'none');
  for (let i = 0; i < 8; i++) rig.nodes.apply(node(`node${i}`, { [HN]: 'moved', [HC]: 's4' }));
  const snap = (await round(rig)) as Snapshot;
  assert.is(snap.length, 2, 'one tier-1 and one tier-2 group left');
  assert.is(await round(rig), 'none', 'the burst cost one run');
  await rig.d.stop();
});

test('Node adds and deletes (including tombstones) with relevant labels trigger', async () => {
  const rig = await startRig();
  await round(rig);
  rig.nodes.apply(node('plain', { other: 'y' }));
  assert.is(await round(rig), 'none', 'a Node without configured labels');
  rig.nodes.apply(node('node8', { [HN]: 's9' }));
  assert.is(((await round(rig)) as Snapshot).length, 7);
  rig.nodes.remove('node8', { tombstone: true });
  assert.is(((await round(rig)) as Snapshot).length, 6, 'tombstone unwrapped');
  rig.nodes.remove('plain');
  assert.is(await round(rig), 'none');
  await rig.d.stop();
});

test('any HyperNode delete triggers, tombstones included', async () => {
  const rig = await startRig();
  await round(rig);
  rig.hyperNodes.apply({ metadata: { name: 'a' }, spec: { tier: 1 } });
  rig.hyperNodes.apply({ metadata: { name: 'b' }, spec: { tier: 1 } });
  rig.hyperNodes.remove('a');
  assert.ok(Array.isArray(await round(rig)));
  rig.hyperNodes.remove('b', { tombstone: true });
  assert.ok(Array.isArray(await round(rig)));
  await rig.d.stop();
});

test('a failed run sends nothing and is retried with backoff without an acknowledgement', async () => {
  const rig = await startRig();
  rig.hyperNodes.failReads(new Error('cache broken'));
  assert.is(await round(rig), 'none');
  rig.hyperNodes.failReads(undefined);
  await rig.clock.advance(1_000); // past the first rate-limited delays
  const snap = await offered(rig.ch);
  assert.ok(Array.isArray(snap), 'retried on its own: the worker is not wedged');
  await rig.d.stop();
});

test('no snapshot until the Node cache has synced', async () => {
  const rig = await startRig({ nodesSynced: false });
  assert.is(await round(rig), 'none');
  rig.nodes.markSynced();
  const snap = await round(rig);
  assert.is((snap as Snapshot).length, 6);
  await rig.d.stop();
});

test('stop unregisters handlers, closes the stream, and later acknowledgements are harmless', async () => {
  const rig = await startRig();
  assert.is(rig.nodes.handlerCount(), 1);
  assert.is(rig.hyperNodes.handlerCount(), 1);
  await rig.clock.advance(TRIGGER_DEBOUNCE_MS); // a snapshot is now waiting for a receiver
  await within(rig.d.stop(), 2000, 'stop while a send is pending');
  assert.is(rig.nodes.handlerCount(), 0);
  assert.is(rig.hyperNodes.handlerCount(), 0);
  assert.is(await offered(rig.ch), 'closed');
  rig.d.resultSynced();
});

test('an undecodable networkTopologyTypes is a construction error, so no empty snapshot deletes anything', async () => {
  const bad: DiscoveryEntry = {
    ...entry,
    config: { networkTopologyTypes: { t: ['volcano.sh/tor', 'kubernetes.io/hostname'] } },
  };
  await labelDiscovererFactory(bad, discovererOptions(new FakeClock())).then(
    () => assert.unreachable('should reject'),
    (err: Error) => assert.match(err.message, /Cannot get networkTopologyTypes: networkTopologyTypes\.t\[0\]/),
  );
});

test('a configuration with no usable type is a construction error: a typo never reaches an empty snapshot', async () => {
  const typos: [Record<string, unknown>, RegExp][] = [
    [{}, /networkTopologyTypes is missing/],
    [
      { networkTopologyType: entry.config.networkTopologyTypes },
      /networkTopologyTypes is missing .*"networkTopologyType"; misspelled\?/,
    ],
    [
      {
        networkTopologyTypes: {
          averyveryverylongtypename: [{ nodeLabel: HN }, { nodeLabel: 'kubernetes.io/hostname' }],
        },
      },
      /every type is rejected: The length of topologyTypeName exceeds 20/,
    ],
  ];
  for (const [config, message] of typos) {
    await labelDiscovererFactory(
      { ...entry, config },
      discovererOptions(new FakeClock(), new FakeInformer({ initial: guideNodes() })),
    ).then(
      () => assert.unreachable(`should reject ${JSON.stringify(config)}`),
      (err: Error) => assert.match(err.message, message),
    );
  }
});

const labelHyperNode = (name: string): HyperNode => ({
  metadata: { name, labels: { 'volcano.sh/network-topology-source': 'label' } },
  spec: { tier: 1 },
});

test('an empty Node cache while label HyperNodes exist is refused as a failed run and retried, never an empty snapshot', async () => {
  const clock = new FakeClock();
  const nodes = new FakeInformer<NodeMeta>();
  const hyperNodes = new FakeInformer<HyperNode>({
    initial: [labelHyperNode('hypernode-topologya3-tier1-aaaaa'), labelHyperNode('hypernode-topologya3-tier2-bbbbb')],
  });
  const opts = discovererOptions(clock, nodes, hyperNodes);
  const problems = opts.problems as RecordingProblems;
  const d = await labelDiscovererFactory(entry, opts);
  const ch = await d.start();
  await clock.advance(TRIGGER_DEBOUNCE_MS);
  assert.is(await offered(ch), 'none', 'no snapshot that would delete both HyperNodes');
  assert.equal(problems.failures, [
    'Error discover HyperNode: the Node cache is empty while 2 label HyperNodes exist; refusing to delete them all, will retry',
  ]);
  await clock.advance(1_000); // past the first rate-limited delays
  assert.ok(problems.failures.length >= 2, 'retried on its own with backoff');
  assert.is(await offered(ch), 'none');
  nodes.apply(guideNodes()[0]!);
  await clock.advance(TRIGGER_DEBOUNCE_MS);
  assert.is(((await offered(ch)) as Snapshot).length, 2, 'a Node appears: discovery resumes');
  await d.stop();
});

test('Nodes present but none labelled yield an empty snapshot; so does an empty cluster without label HyperNodes', async () => {
  const clock = new FakeClock();
  const hyperNodes = new FakeInformer<HyperNode>({ initial: [labelHyperNode('hypernode-topologya3-tier1-aaaaa')] });
  const d = await labelDiscovererFactory(
    entry,
    discovererOptions(clock, new FakeInformer({ initial: [node('plain', { other: 'x' })] }), hyperNodes),
  );
  const ch = await d.start();
  await clock.advance(TRIGGER_DEBOUNCE_MS);
  assert.equal(await offered(ch), [], 'the cluster visibly exists and carries no topology label');
  await d.stop();
  const fresh = await labelDiscovererFactory(entry, discovererOptions(clock));
  const freshCh = await fresh.start();
  await clock.advance(TRIGGER_DEBOUNCE_MS);
  assert.equal(await offered(freshCh), [], 'nothing to lose: a new, empty cluster');
  await fresh.stop();
});

test('Nodes carrying an upper level without tier 1 are counted and named once (the first few); labelling them brings the count to 0', async () => {
  const clock = new FakeClock();
  const gpu = (i: number) => `gpu${String(i).padStart(2, '0')}`;
  const missing = Array.from({ length: UNCOVERED_LOGGED_NODES + 2 }, (_, i) => node(gpu(i), { [HC]: 's6' }));
  const nodes = new FakeInformer<NodeMeta>({ initial: [...guideNodes(), ...missing, node('cpu', { other: 'x' })] });
  const hyperNodes = new FakeInformer<HyperNode>();
  const metrics = new RecordingMetrics();
  const log = capturingLogger();
  const d = await labelDiscovererFactory(entry, {
    ...discovererOptions(clock, nodes, hyperNodes),
    metrics,
    logger: log.logger,
  });
  const rig: Rig = { clock, nodes, hyperNodes, d, ch: await d.start() };
  const named = () => log.lines.filter((l) => l.includes('Nodes with topology labels are in no HyperNode'));

  assert.is(((await round(rig)) as Snapshot).length, 6, 'the covered Nodes are grouped as before');
  assert.is(metrics.uncovered.get('label'), missing.length, 'hypernode_uncovered_nodes');
  assert.is(named().length, 1);
  assert.match(named()[0]!, `count=${missing.length}`);
  assert.match(named()[0]!, `gpu00 (missing level label ${HN} of topology type topologyA3)`);
  assert.ok(
    named()[0]!.includes(gpu(UNCOVERED_LOGGED_NODES - 1)) && !named()[0]!.includes(gpu(UNCOVERED_LOGGED_NODES)),
    'only the first few are named',
  );
  assert.not.ok(named()[0]!.includes('cpu'), 'a Node without any level label is not part of the topology');

  hyperNodes.apply({ metadata: { name: 'manual' }, spec: { tier: 1 } });
  hyperNodes.remove('manual');
  assert.ok(Array.isArray(await round(rig)), 'another run');
  assert.is(named().length, 1, 'an unchanged set is not logged again');

  // A failed run leaves the last value.
  for (const n of missing) nodes.apply(node(n.metadata.name, { [HC]: 's6', [HN]: 's7' }));
  hyperNodes.failReads(new Error('cache broken'));
  assert.is(await round(rig), 'none');
  assert.is(metrics.uncovered.get('label'), missing.length);

  hyperNodes.failReads(undefined);
  await clock.advance(1_000); // past the first rate-limited delays
  assert.ok(Array.isArray(await offered(rig.ch)));
  assert.is(metrics.uncovered.get('label'), 0, 'every labelled Node is in a HyperNode');
  assert.ok(log.lines.some((l) => l.includes('All Nodes with topology labels are in a HyperNode again')));
  await d.stop();
});

test('a waiting worker stops promptly', async () => {
  const rig = await startRig();
  await round(rig); // the worker now waits for the next trigger
  await within(rig.d.stop(), 2000, 'stop');
  assert.ok(rig.ch.isClosed());
});

test.run();
