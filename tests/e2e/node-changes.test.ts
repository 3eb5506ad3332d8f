// Node changes end to end (runServer in-process against the API server
// stand-in, chart RBAC): a Node moving to another rack in the three-tier
// sample cluster costs at most one write per tier plus one and leaves the
// right tree; hand-made HyperNodes whose members select Nodes by regex or
// labels get their nodeCount updated as matching Nodes come, change and go
// (docs/differences-from-go.md item 2).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MemberSelector } from '../../src/hypernode/model/hypernode-types.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import {
  DEMO_SHAPE,
  RACK_LABEL,
  SAMPLE_DISCOVERY_CONFIG,
  SPINE_LABEL,
  ZONE_LABEL,
  expectedHyperNodeCount,
  sampleNodes,
} from '../../testing/sample-cluster.ts';
import {
  assertNoForbidden,
  byName,
  describeWrites,
  groupOf,
  answeredHyperNodeWrites,
  hyperNodes,
  node,
  nodeCount,
  seedConfigMap,
  setNodeLabels,
} from './cluster.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { session } from './session.ts';

const s = session(test);
const converge = s.converge.bind(s);

test('moving one Node to a rack under another spine writes at most tiers + 1 = 4 times and leaves the right tree', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of sampleNodes(DEMO_SHAPE)) api.store.create(n);
  seedConfigMap(api, SAMPLE_DISCOVERY_CONFIG);
  const controller = s.startInProcess(kubeconfig);
  const total = expectedHyperNodeCount(DEMO_SHAPE);
  await converge(() => {
    const hns = hyperNodes(api);
    return hns.length === total && hns.every((hn) => nodeCount(hn) > 0);
  }, `${total} HyperNodes with nodeCount`);
  const rounds = async () =>
    seriesValue(await controller.metrics(), 'hypernode_reconcile_duration_seconds_count', { source: 'label' });
  const before = await rounds();
  const uids = new Map(hyperNodes(api).map((hn) => [hn.metadata.name, hn.metadata.uid]));
  api.requests.clear();

  // node-00 sits in zone-0 / spine-0 / rack-0; rack-2 hangs under spine-1, also in zone-0.
  setNodeLabels(api, 'node-00', { [RACK_LABEL]: 'rack-2', [SPINE_LABEL]: 'spine-1' });
  const [oldRack, newRack] = [
    groupOf(api, RACK_LABEL, 'rack-0')!.metadata.name,
    groupOf(api, RACK_LABEL, 'rack-2')!.metadata.name,
  ];
  await converge(() => {
    const all = byName(hyperNodes(api));
    return (
      memberNames(all.get(newRack)).includes('node-00') &&
      nodeCount(all.get(newRack)) === 9 &&
      nodeCount(all.get(oldRack)) === 7
    );
  }, 'node-00 counted in rack-2 and no longer in rack-0');
  await converge(async () => (await rounds()) > before, 'the reconcile of the move to finish');

  const writes = await answeredHyperNodeWrites(api);
  assert.ok(writes.length <= 4, `at most 4 writes, got:\n${describeWrites(writes).join('\n')}`);
  assert.equal(
    describeWrites(writes).sort(),
    [
      `update ${newRack} → 200`,
      `update ${newRack}/status → 200`,
      `update ${oldRack} → 200`,
      `update ${oldRack}/status → 200`,
    ].sort(),
  );
  const all = byName(hyperNodes(api));
  assert.equal(
    new Map([...all.values()].map((hn) => [hn.metadata.name, hn.metadata.uid])),
    uids,
    'no HyperNode replaced',
  );
  assert.equal(memberNames(all.get(oldRack)), [
    'node-01',
    'node-02',
    'node-03',
    'node-04',
    'node-05',
    'node-06',
    'node-07',
  ]);
  assert.equal(memberNames(all.get(newRack)), [
    'node-00',
    'node-16',
    'node-17',
    'node-18',
    'node-19',
    'node-20',
    'node-21',
    'node-22',
    'node-23',
  ]);
  // The spines and zones are unchanged: each rack still has one parent, each spine one zone.
  const parentsOf = (child: string) =>
    [...all.values()].filter((hn) => memberNames(hn).includes(child)).map((hn) => hn.metadata.name);
  assert.equal(parentsOf(oldRack), [groupOf(api, SPINE_LABEL, 'spine-0')!.metadata.name]);
  assert.equal(parentsOf(newRack), [groupOf(api, SPINE_LABEL, 'spine-1')!.metadata.name]);
  assert.equal(parentsOf(groupOf(api, SPINE_LABEL, 'spine-1')!.metadata.name), [
    groupOf(api, ZONE_LABEL, 'zone-0')!.metadata.name,
  ]);
  assertNoForbidden(api);
});

test('nodeCount of hand-made regexMatch and labelMatch HyperNodes follows Nodes being added, relabelled and deleted', async () => {
  const { api, kubeconfig } = await s.startCluster();
  api.store.create(node('cpu-0', { pool: 'cpu' }));
  seedConfigMap(api, '');
  const handMade = (name: string, selector: MemberSelector) =>
    api.store.create({
      apiVersion: 'topology.volcano.sh/v1alpha1',
      kind: 'HyperNode',
      metadata: { name },
      spec: { tier: 1, members: [{ type: 'Node', selector }] },
    });
  handMade('gpu-by-name', { regexMatch: { pattern: '^gpu-' } });
  handMade('gpu-by-label', { labelMatch: { matchLabels: { pool: 'gpu' } } });
  const controller = s.startInProcess(kubeconfig);
  const counts = () => {
    const all = byName(hyperNodes(api));
    return [nodeCount(all.get('gpu-by-name')), nodeCount(all.get('gpu-by-label'))];
  };
  const expectCounts = (want: [number, number], what: string) =>
    converge(
      () => counts().join() === want.join() && true,
      `${what}: nodeCounts ${want.join(', ')} (now ${counts().join(', ')})`,
    );
  await converge(
    async () => seriesValue(await controller.metrics(), 'workqueue_adds_total', { name: 'hypernode-status' }) >= 2,
    'the status writer to see both HyperNodes',
  );
  assert.equal(counts(), [0, 0]);

  api.store.create(node('gpu-0', { pool: 'gpu' }));
  api.store.create(node('gpu-1', { pool: 'gpu' }));
  await expectCounts([2, 2], 'two GPU Nodes added');
  setNodeLabels(api, 'gpu-1', { pool: 'cpu' });
  await expectCounts([2, 1], 'gpu-1 relabelled to the cpu pool');
  setNodeLabels(api, 'cpu-0', { pool: 'gpu' });
  await expectCounts([2, 2], 'cpu-0 relabelled to the gpu pool');
  api.store.delete('nodes', 'gpu-0');
  await expectCounts([1, 1], 'gpu-0 deleted');
  api.store.delete('nodes', 'gpu-1');
  api.store.delete('nodes', 'cpu-0');
  await expectCounts([0, 0], 'every matching Node deleted');

  // Only nodeCount was written: the hand-made specs are not the controller's to touch.
  const writes = await answeredHyperNodeWrites(api);
  assert.ok(
    writes.length > 0 && writes.every((r) => r.verb === 'update' && r.subresource === 'status' && r.code === 200),
    describeWrites(writes).join('\n'),
  );
  for (const hn of hyperNodes(api)) assert.is(hn.metadata.generation, 1, `${hn.metadata.name}: spec untouched`);
  assertNoForbidden(api);
});

test.run();
