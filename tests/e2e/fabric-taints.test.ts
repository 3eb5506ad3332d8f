// The fabric taint (health.taint, docs/health.md "Node taint") on the graph
// source, the controller in this process against the API server stand-in
// under the chart's RBAC and the deploy/node-taints component:
// - a host whose every link leaves the graph is tainted once they have been
//   missing for taint.after and not before, and untainted when they come
//   back, one Node write each way; a host with one of two rails left is not;
// - another writer adding and removing taints of the same Node while ours is
//   on the wire loses none of its changes (our write meets a 409, reads the
//   Node again and is made anew);
// - a whole leaf lost past maxTaintPercent taints nothing new and keeps the
//   taint already set, and the Event and the gauges name the value that
//   would allow it;
// - a restart neither adds nor removes a taint; turning the taint on and off
//   leaves every Node with exactly its own taints;
// - removing the source from the ConfigMap, the taint still on, removes the
//   taints it set and no other.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import {
  CONTROLLER_USER,
  answeredNodeWrites,
  assertNoForbidden,
  describeWrites,
  fabricHealthy,
  hyperNodes,
  setDiscoveryConfig,
  taintsOf,
} from './cluster.ts';
import {
  GPU_TAINT,
  TAINT_KEY,
  eventsOf,
  graphConfig,
  graphReads,
  memberOf,
  recordOf,
  seedTaintLab,
  setGraph,
  settled,
  taintOf,
  taintOn,
  unlinked,
  type Api,
} from './graph-taint-rig.ts';
import { session } from './session.ts';

const s = session(test);
const KEY = TAINT_KEY;
const AFTER_MS = 3_000;
const TAINT_ON = taintOn('3s');

/** The three taint gauges of the graph source: Nodes tainted, Nodes held, and the maxTaintPercent that allows them. */
const taintGauges = async () => {
  const text = await s.controller!.metrics();
  return [
    'hypernode_fabric_tainted_nodes',
    'hypernode_fabric_taints_held',
    'hypernode_fabric_taint_percent_needed',
  ].map((family) => seriesValue(text, family, { source: 'graph' }));
};

/** Waits until the source has polled `n` more times. */
async function polls(api: Api, n: number): Promise<void> {
  const from = graphReads(api);
  await s.converge(() => graphReads(api) >= from + n || undefined, `${n} more polls of the graph`);
}

test('a host whose every link is gone is tainted after taint.after, not before, and untainted when one is back, one Node write each way; one rail of two left is no taint', async () => {
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
  const { api, kubeconfig } = await seedTaintLab(s, { doc, hosts, own: { 'su1-h1': [GPU_TAINT] }, health: TAINT_ON });
  s.startInProcess(kubeconfig);
  await s.converge(() => settled(api, 3), 'the tree, FabricHealthy on every HyperNode');
  const own = Object.fromEntries(hosts.map((h) => [h, taintsOf(api, h)]));
  assert.equal(own['su1-h1'], ['nvidia.com/gpu=present:NoSchedule']);
  api.requests.clear();

  // su1-h1 loses both rails; su2-h1 loses one of two.
  const cutAt = Date.now();
  setGraph(api, unlinked(unlinked(doc, 'su1-h1'), 'su2-h1', [1]));
  const leaf = hyperNodes(api, 'graph').find((hn) => hn.metadata.name === 'lab-leaf-leaf-su2-r1')!.metadata.name;
  await s.converge(
    () => fabricHealthy(hyperNodes(api, 'graph').find((hn) => hn.metadata.name === leaf))?.status === 'False',
    'the missing links named',
  );
  assert.is(taintOf(api, 'su1-h1'), undefined, 'not tainted as soon as the links are missing');
  await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted');
  const taintWrites = await answeredNodeWrites(api);
  assert.equal(describeWrites(taintWrites), ['patch su1-h1 → 200'], 'one Node write');
  const tookMs = Date.parse(taintWrites[0]!.time) - cutAt;
  assert.ok(tookMs >= AFTER_MS, `tainted ${tookMs} ms after the links went, taint.after is ${AFTER_MS} ms`);
  assert.equal(taintsOf(api, 'su1-h1'), ['nvidia.com/gpu=present:NoSchedule', `${KEY}=graph.lab:NoSchedule`]);
  assert.is(recordOf(api, 'su1-h1'), `${KEY}=graph.lab:NoSchedule`);
  assert.equal(taintsOf(api, 'su2-h1'), own['su2-h1'], 'one rail left: not tainted');
  const condition = fabricHealthy(hyperNodes(api, 'graph').find((hn) => hn.metadata.name === leaf));
  assert.match(
    condition!.message,
    'LEAF-SU2-R1 port swp1 (link to host su2-h1 missing)',
    'its condition names the link',
  );
  const event = await s.converge(() => eventsOf(api, 'FabricTaintsChanged')[0], 'the FabricTaintsChanged Event');
  assert.is(
    event.message,
    `Tainted 1 Node with ${KEY}:NoSchedule: every link of its hosts on a fabric missing for health.taint.after (su1-h1)`,
  );
  assert.match(s.log(), /Tainted Node .*node="su1-h1"/);
  assert.is((await taintGauges())[0], 1, 'the gauge counts the tainted Node');

  // The links come back: the taint goes, one write, every other taint as it was.
  api.requests.clear();
  setGraph(api, doc);
  await s.converge(() => taintOf(api, 'su1-h1') === undefined || undefined, 'su1-h1 untainted');
  assert.equal(describeWrites(await answeredNodeWrites(api)), ['patch su1-h1 → 200']);
  for (const h of hosts) assert.equal(taintsOf(api, h), own[h], h);
  // The line follows the write's answer, which may come after the store shows it.
  await s.converge(() => /Removed the fabric taint of Node .*node="su1-h1"/.test(s.log()), 'the untaint logged');
  assert.is((await taintGauges())[0], 0, 'no Node counted once the taint is gone');
  assertNoForbidden(api);
});

test('another writer adding and removing taints of the Node while ours is on the wire loses none of its changes', async () => {
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
  const { api, kubeconfig } = await seedTaintLab(s, { doc, hosts, own: { 'su1-h1': [GPU_TAINT] }, health: TAINT_ON });
  s.startInProcess(kubeconfig);
  await s.converge(() => settled(api, 3), 'the tree');
  // Our Node writes wait on the wire long enough for the other writer to come first.
  const slow = api.latency(500, (r) => r.verb === 'patch' && r.resource === 'nodes' && r.user === CONTROLLER_USER);
  const otherWriter = async (change: (taints: object[]) => object[]) => {
    await s.converge(
      () => api.requests.count((r) => r.verb === 'patch' && r.resource === 'nodes' && r.code === 0) > 0,
      'our taint write on the wire',
    );
    const n = api.store.get('nodes', 'su1-h1') as { spec: { taints?: object[] } };
    api.store.update({ ...n, spec: { ...n.spec, taints: change(n.spec.taints ?? []) } });
  };
  api.requests.clear();

  setGraph(api, unlinked(doc, 'su1-h1'));
  // While ours waits: the device plugin's taint goes, a maintenance taint comes.
  await otherWriter((taints) => [
    ...taints.filter((t) => (t as { key: string }).key !== GPU_TAINT.key),
    { key: 'example.com/maintenance', effect: 'NoSchedule' },
  ]);
  await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted');
  assert.equal(taintsOf(api, 'su1-h1'), ['example.com/maintenance:NoSchedule', `${KEY}=graph.lab:NoSchedule`]);
  assert.equal(
    describeWrites(await answeredNodeWrites(api)),
    ['patch su1-h1 → 409', 'patch su1-h1 → 200'],
    'the write against the old version refused, then made against the new',
  );
  assert.ok(api.requests.count({ verb: 'get', resource: 'nodes', name: 'su1-h1' }) >= 1, 'the Node read again');

  // And on the way back: ours goes, theirs (a drain's taint added meanwhile) stays.
  api.requests.clear();
  setGraph(api, doc);
  await otherWriter((taints) => [...taints, { key: 'example.com/drain', effect: 'PreferNoSchedule' }]);
  await s.converge(() => taintOf(api, 'su1-h1') === undefined || undefined, 'su1-h1 untainted');
  assert.equal(taintsOf(api, 'su1-h1'), ['example.com/maintenance:NoSchedule', 'example.com/drain:PreferNoSchedule']);
  assert.equal(describeWrites(await answeredNodeWrites(api)), ['patch su1-h1 → 409', 'patch su1-h1 → 200']);
  slow();
  assertNoForbidden(api);
});

test('a whole leaf lost past maxTaintPercent taints nothing new and keeps the taint already set; the Event names the value that allows it', async () => {
  // One rail: a leaf is its unit's every link.
  const doc = railGraphDocument({ sus: 4, rails: 1, hostsPerSu: 3, spines: 1 });
  const hosts = [1, 2, 3, 4].flatMap((su) => [1, 2, 3].map((h) => `su${su}-h${h}`));
  const { api, kubeconfig } = await seedTaintLab(s, { doc, hosts, health: TAINT_ON });
  s.startInProcess(kubeconfig);
  await s.converge(() => settled(api, 5), 'the tree');
  const own = Object.fromEntries(hosts.map((h) => [h, taintsOf(api, h)]));

  // One host alone is tainted (1 of 12 is past 10 %, and one Node always may be).
  setGraph(api, unlinked(doc, 'su1-h1'));
  await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted');
  api.requests.clear();

  // Unit 2's leaf goes: 4 of 12 would be tainted, 33.3 %.
  const leaf2 = ['su2-h1', 'su2-h2', 'su2-h3'];
  setGraph(
    api,
    leaf2.reduce((d, h) => unlinked(d, h), unlinked(doc, 'su1-h1')),
  );
  const held = await s.converge(() => eventsOf(api, 'FabricTaintsHeld')[0], 'the FabricTaintsHeld Event');
  assert.is(
    held.message,
    'Fabric source "graph" would taint 3 more Nodes cut off from its fabric, 4 of the 12 Nodes its fabrics connect (33.3%), ' +
      'more than health.maxTaintPercent of 10, so nothing new is tainted and the taints already set stay; ' +
      'if the hosts are cut off indeed, set health.maxTaintPercent to 34 or more',
  );
  // Polls past taint.after: still nothing new, the old taint stays.
  await polls(api, 5);
  for (const h of leaf2) assert.equal(taintsOf(api, h), own[h], `${h} not tainted`);
  assert.ok(taintOf(api, 'su1-h1'), 'su1-h1 keeps its taint');
  assert.equal(describeWrites(await answeredNodeWrites(api)), [], 'no Node write');
  assert.equal(await taintGauges(), [1, 3, 34], 'tainted, held, and the maxTaintPercent that would allow them');

  // The operator allows it: the leaf's hosts are tainted, and the hold is over.
  setDiscoveryConfig(api, graphConfig(taintOn('3s', '  maxTaintPercent: 34\n')));
  await s.converge(() => leaf2.every((h) => taintOf(api, h)) || undefined, 'the leaf tainted once allowed');
  assert.match(s.log(), 'Fabric taints no longer held by health.maxTaintPercent');
  assert.equal(await taintGauges(), [4, 0, 0], 'all four counted, none held');
  assertNoForbidden(api);
});

test('a restart neither adds nor removes a taint; off → on → off leaves every Node with exactly its own taints', async () => {
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
  const own = {
    'su1-h1': [GPU_TAINT],
    'su2-h2': [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-12-01T10:00:00Z' }],
  };
  const { api, kubeconfig } = await seedTaintLab(s, { doc: unlinked(doc, 'su1-h1'), hosts, own, health: '' });
  s.startInProcess(kubeconfig);
  await s.converge(() => settled(api, 3), 'the tree, taint off');
  const before = Object.fromEntries(hosts.map((h) => [h, api.store.get('nodes', h)!.spec]));

  // On: su1-h1's links are known (it polled them once), then go.
  setGraph(api, doc);
  // Two of four Nodes at once is half of them: allowed here.
  setDiscoveryConfig(api, graphConfig(taintOn('3s', '  maxTaintPercent: 50\n')));
  await s.converge(() => memberOf(api, 'lab-leaf-leaf-su1-r1', 'su1-h1') || undefined, 'su1-h1 polled with its links');
  setGraph(api, unlinked(unlinked(doc, 'su1-h1'), 'su2-h2'));
  await s.converge(() => (taintOf(api, 'su1-h1') && taintOf(api, 'su2-h2')) || undefined, 'both tainted');
  assert.equal(taintsOf(api, 'su2-h2'), ['node.kubernetes.io/unreachable:NoExecute', `${KEY}=graph.lab:NoSchedule`]);
  const unreachable = (api.store.get('nodes', 'su2-h2') as { spec: { taints: { timeAdded?: string }[] } }).spec
    .taints[0];
  assert.is(unreachable!.timeAdded, '2026-12-01T10:00:00Z', 'the lifecycle controller’s taint given back whole');

  // A restart: the first poll is the new baseline and knows nothing of the hosts; the taints stay, no Node write.
  await s.controller!.stop();
  api.requests.clear();
  s.startInProcess(kubeconfig);
  await s.converge(() => s.log().includes('Node health on') || undefined, 'the restarted controller watching Nodes');
  await polls(api, 3);
  assert.equal(describeWrites(await answeredNodeWrites(api)), [], 'no Node write after the restart');
  assert.ok(taintOf(api, 'su1-h1') && taintOf(api, 'su2-h2'), 'the taints stay');

  // Off: our taints go, and only ours.
  setDiscoveryConfig(api, graphConfig(''));
  await s.converge(() => hosts.every((h) => !taintOf(api, h)) || undefined, 'every taint of ours removed');
  for (const h of hosts) assert.equal(api.store.get('nodes', h)!.spec, before[h], `${h} has exactly its own taints`);
  for (const h of hosts) assert.is(recordOf(api, h), undefined, `${h} carries no record`);
  assertNoForbidden(api);
});

test('removing the source from the ConfigMap, the taint still on, removes its taints and no other', async () => {
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
  const { api, kubeconfig } = await seedTaintLab(s, {
    doc,
    hosts,
    own: { 'su1-h1': [GPU_TAINT] },
    health: taintOn('3s', '  maxTaintPercent: 50\n'),
  });
  s.startInProcess(kubeconfig);
  await s.converge(() => memberOf(api, 'lab-leaf-leaf-su1-r1', 'su1-h1') || undefined, 'su1-h1 polled with its links');
  const before = Object.fromEntries(hosts.map((h) => [h, api.store.get('nodes', h)!.spec]));
  setGraph(api, unlinked(doc, 'su1-h1'));
  await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted');
  assert.equal(taintsOf(api, 'su1-h1'), ['nvidia.com/gpu=present:NoSchedule', `${KEY}=graph.lab:NoSchedule`]);

  // The graph entry goes; health.taint stays on for whatever source comes next.
  setDiscoveryConfig(api, `${taintOn('3s')}networkTopologyDiscovery: []\n`);
  await s.converge(() => !taintOf(api, 'su1-h1') || undefined, "the removed source's taint gone");
  for (const h of hosts) assert.equal(api.store.get('nodes', h)!.spec, before[h], `${h} has exactly its own taints`);
  assert.is(recordOf(api, 'su1-h1'), undefined, 'no record left');
  assertNoForbidden(api);
});

test.run();
