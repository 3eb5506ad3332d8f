// The fabric taint against whoever answers as a fabric or writes Nodes
// (docs/security.md, "Fabric answers" and "Node taints"): an answer dropping
// most of its hosts taints no more than health.maxTaintPercent of the Nodes
// its source connects; a poll that failed or a snapshot the reconciler
// refused neither taints nor untaints; no taint of another writer is ever
// removed or changed, whether ours comes and goes, health.taint turns off,
// or the record annotation is forged to name theirs; and a ConfigMap asking
// for NoExecute or a Kubernetes key is refused whole, naming it briefly.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/hypernode/config/loader.ts';
import type { NodeTaintChange } from '../../src/hypernode/model/contracts.ts';
import type { NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { FabricHealthBoard } from '../../src/hypernode/reconcile/health/fabric-health.ts';
import { nodeHealthOf, type NodeHealth } from '../../src/hypernode/reconcile/health/node-health.ts';
import { TAINT_COALESCE_MS, TaintWriter } from '../../src/hypernode/reconcile/health/taint-writer.ts';
import type { Follower } from '../../src/hypernode/reconcile/follower.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { waitFor } from '../../testing/wait.ts';
import {
  NS,
  answeredNodeWrites,
  assertNoForbidden,
  describeWrites,
  fabricHealthy,
  hyperNodes,
  setDiscoveryConfig,
  taintsOf,
} from '../e2e/cluster.ts';
import {
  GPU_TAINT,
  TAINT_KEY,
  eventsOf,
  graphConfig,
  graphReads,
  seedTaintLab,
  setGraph,
  settled,
  taintOf,
  taintOn,
  unlinked,
  type Api,
} from '../e2e/graph-taint-rig.ts';
import { session } from '../e2e/session.ts';
import { FakeClock } from '../kube/fake-clock.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { FakeInformer } from '../support/fake-informer.ts';
import { unexpectedWorkerError } from '../support/worker-errors.ts';

const s = session(test);

async function polls(api: Api, n: number): Promise<void> {
  const from = graphReads(api);
  await s.converge(() => graphReads(api) >= from + n || undefined, `${n} more polls of the graph`);
}

test('a fabric answer dropping most of its hosts taints nothing new past maxTaintPercent, and the Event names the value (the executable)', async () => {
  const doc = railGraphDocument({ sus: 4, rails: 1, hostsPerSu: 5, spines: 1 });
  const hosts = [1, 2, 3, 4].flatMap((su) => [1, 2, 3, 4, 5].map((h) => `su${su}-h${h}`));
  const { api, kubeconfig } = await seedTaintLab(s, { doc, hosts, health: taintOn('2s') });
  s.controller = await startControllerBinary({ kubeconfig, namespace: NS });
  await s.converge(() => settled(api, 5), 'the tree');
  api.requests.clear();

  // The inventory answers with three of its four units gone: 15 of 20 hosts, 75 %.
  const gone = hosts.filter((h) => !h.startsWith('su1-'));
  setGraph(
    api,
    gone.reduce((d, h) => unlinked(d, h), doc),
  );
  const held = await s.converge(() => eventsOf(api, 'FabricTaintsHeld')[0], 'the FabricTaintsHeld Event');
  assert.match(
    held.message,
    'would taint 15 more Nodes cut off from its fabric, 15 of the 20 Nodes its fabrics connect (75%)',
  );
  assert.match(held.message, 'set health.maxTaintPercent to 75 or more');
  await polls(api, 4);
  for (const h of hosts) assert.is(taintOf(api, h), undefined, `${h} not tainted`);
  assert.equal(describeWrites(await answeredNodeWrites(api)), [], 'no Node write');
  assertNoForbidden(api);
});

test('a poll that failed neither taints nor untaints: a broken document past taint.after taints nothing and keeps the taint already set', async () => {
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
  const { api, kubeconfig } = await seedTaintLab(s, { doc, hosts, health: taintOn('3s') });
  s.startInProcess(kubeconfig);
  await s.converge(() => settled(api, 3), 'the tree');
  const broken = '{"switches": [';

  // One good poll finds su1-h1's links gone; every poll after it fails, for longer than taint.after.
  setGraph(api, unlinked(doc, 'su1-h1'));
  const leaf = () => hyperNodes(api, 'graph').find((hn) => hn.metadata.name === 'lab-leaf-leaf-su1-r1');
  await s.converge(() => fabricHealthy(leaf())?.status === 'False' || undefined, 'the missing links seen');
  setGraph(api, broken);
  await polls(api, 6);
  assert.is(taintOf(api, 'su1-h1'), undefined, 'a failed poll adds no time to the last good one');
  assert.equal(describeWrites(await answeredNodeWrites(api)), []);

  // A good poll again: the links have been missing long enough.
  setGraph(api, unlinked(doc, 'su1-h1'));
  await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted at a good poll');
  // Failing again, for longer than anything: the taint stays.
  api.requests.clear();
  setGraph(api, broken);
  await polls(api, 5);
  assert.ok(taintOf(api, 'su1-h1'), 'a failed poll removes nothing');
  assert.equal(describeWrites(await answeredNodeWrites(api)), []);
  setGraph(api, doc);
  await s.converge(() => taintOf(api, 'su1-h1') === undefined || undefined, 'untainted once a good poll shows a link');
});

test('a snapshot the reconciler refused changes no taint: the links its poll found count only once a snapshot is accepted', async () => {
  const clock = new FakeClock();
  const board = new FabricHealthBoard(() => {});
  const nodes = new FakeInformer<NodeMeta>({ initial: [{ metadata: { name: 'n1' } }] });
  const full = new FakeInformer<NodeHealth>({
    initial: [nodeHealthOf({ metadata: { name: 'n1', resourceVersion: '7' } })],
  });
  const written: NodeTaintChange[] = [];
  const log = capturingLogger({ verbosity: 2 });
  const writer = new TaintWriter({
    nodes,
    hostLinks: board,
    client: {
      get: async () => undefined,
      setTaints: async (_node, change) => void written.push(change),
    },
    events: { event() {} },
    regarding: () => ({ metadata: { name: 'cm' } }),
    clock,
    logger: log.logger,
    onWorkerError: unexpectedWorkerError('hypernode-node-taints'),
  });
  writer.configuration(
    parseConfig(`${taintOn('2m')}networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n`),
  );
  writer.setNodeTaints(full);
  const worker = writer.run();
  const passes = () => log.lines.filter((l) => l.includes('Fabric taints match') || l.includes('Tainted Node')).length;
  // A poll found n1 cut off for 10 minutes; its snapshot was refused (rejected, never kept).
  board.report('graph', 'lab', new Map(), {
    at: clock.now(),
    nodes: new Map([['n1', { links: 2, missing: 2, cutOffSince: clock.now() - 600_000 }]]),
  });
  const follower: Follower = writer;
  follower.rejected?.('graph', 'a HyperNode breaks a rule');
  await clock.advance(TAINT_COALESCE_MS);
  assert.equal(written, [], 'nothing tainted from a refused snapshot’s poll');
  // The next snapshot of the source is accepted: now the poll counts.
  writer.kept({ source: 'graph', hyperNodes: [], heldDeletes: undefined, heldNodes: [] });
  await clock.advance(TAINT_COALESCE_MS);
  await waitFor(() => passes() > 0, { timeoutMs: 2_000, what: 'the pass after the accepted snapshot' });
  assert.equal(
    written.map((c) => c.record),
    [`${TAINT_KEY}=graph.lab:NoSchedule`],
  );
  writer.shutDown();
  await worker;
});

test('other writers’ taints survive ours coming and going, health.taint turning off, and a forged record naming theirs', async () => {
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
  const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-12-01T10:00:00Z' };
  // su2-h2 carries a taint of our very key that someone else set, and a record forged to name the lifecycle
  // controller's taint.
  const theirsOfOurKey = { key: TAINT_KEY, value: 'maintenance', effect: 'NoSchedule' };
  const { api, kubeconfig } = await seedTaintLab(s, {
    doc,
    hosts,
    own: { 'su1-h1': [GPU_TAINT, unreachable], 'su2-h2': [unreachable, theirsOfOurKey] },
    health: taintOn('2s', '  maxTaintPercent: 50\n'),
  });
  const n = api.store.get('nodes', 'su2-h2')!;
  api.store.update({
    ...n,
    metadata: {
      ...n.metadata,
      annotations: { 'topology.volcano.sh/fabric-taint': 'node.kubernetes.io/unreachable=graph:NoExecute' },
    },
  });
  s.startInProcess(kubeconfig);
  await s.converge(() => settled(api, 3), 'the tree');
  const own = Object.fromEntries(hosts.map((h) => [h, api.store.get('nodes', h)!.spec]));

  setGraph(api, unlinked(unlinked(doc, 'su1-h1'), 'su2-h2'));
  await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted');
  assert.equal(taintsOf(api, 'su1-h1'), [
    'nvidia.com/gpu=present:NoSchedule',
    'node.kubernetes.io/unreachable:NoExecute',
    `${TAINT_KEY}=graph.lab:NoSchedule`,
  ]);
  // su2-h2 is cut off too, but carries our key already (someone else's): left as it is.
  assert.equal(taintsOf(api, 'su2-h2'), [
    'node.kubernetes.io/unreachable:NoExecute',
    `${TAINT_KEY}=maintenance:NoSchedule`,
  ]);

  setGraph(api, doc);
  await s.converge(() => taintOf(api, 'su1-h1') === undefined || undefined, 'su1-h1 untainted');
  setDiscoveryConfig(api, graphConfig(''));
  await polls(api, 3);
  for (const h of hosts)
    assert.equal(api.store.get('nodes', h)!.spec, own[h], `${h}: every other writer's taint as it was`);
  assertNoForbidden(api);
});

test('a ConfigMap asking for NoExecute or a Kubernetes taint key is refused whole: no Node written, the taint set stays, the Event names the key in a few dozen bytes', async () => {
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
  const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-12-01T10:00:00Z' };
  const health = (taint: string) => `health:\n  taint: ${taint}\n  maxTaintPercent: 50\n`;
  const { api, kubeconfig } = await seedTaintLab(s, {
    doc,
    hosts,
    own: { 'su2-h2': [unreachable] },
    health: health('{after: 2s}'),
  });
  s.startInProcess(kubeconfig);
  await s.converge(() => settled(api, 3), 'the tree');
  setGraph(api, unlinked(doc, 'su1-h1'));
  await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted');
  const own = Object.fromEntries(hosts.map((h) => [h, api.store.get('nodes', h)!.spec]));
  api.requests.clear();

  // NoExecute would evict the running pods of every Node cut off; su2-h2 is cut off too now.
  setGraph(api, unlinked(unlinked(doc, 'su1-h1'), 'su2-h2'));
  setDiscoveryConfig(api, graphConfig(health('{after: 2s, effect: NoExecute}')));
  const refused = (what: string) =>
    s.converge(() => eventsOf(api, 'DiscoveryConfigInvalid').find((e) => e.message.includes(what)), what);
  await refused('health.taint.effect NoExecute is refused');
  // A key under kubernetes.io would make the lifecycle controller's taints ours to remove; 199 bytes of it.
  const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(50)}.kubernetes.io/unreachable`;
  for (const key of ['node.kubernetes.io/unreachable', long]) {
    setDiscoveryConfig(api, graphConfig(health(`{after: 2s, key: ${key}}`)));
    const event = await refused(`health.taint.key "${key.slice(0, 20)}`);
    assert.match(event.message, 'is under a prefix Kubernetes keeps for its own components');
    assert.ok(!event.message.includes('b'.repeat(10)), 'no more of the key than a short fragment');
  }
  assert.ok(
    eventsOf(api, 'DiscoveryConfigInvalid').some((e) =>
      e.message.includes(`health.taint.key "${'a'.repeat(40)}…" (${long.length} bytes) is under a prefix`),
    ),
    'the long key named by its first 40 bytes and its size',
  );
  await polls(api, 4);
  assert.equal(describeWrites(await answeredNodeWrites(api)), [], 'no Node written');
  assert.is(taintOf(api, 'su1-h1'), `${TAINT_KEY}=graph.lab:NoSchedule`, 'the taint set stays as it was');
  for (const h of hosts.filter((h) => h !== 'su1-h1'))
    assert.equal(api.store.get('nodes', h)!.spec, own[h], `${h}: its taints as they were`);
  assertNoForbidden(api);
});

test.run();
