// A relabel inside a profile writes only the HyperNodes it changes: profile
// names are stable (adopted from the cache, else derived from the domain), so
// the reconciler's diff of the next snapshot touches nothing else.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { discoverSnapshot } from '../../../../../src/hypernode/discovery/label/label-grouping.ts';
import { topologyTypes } from '../../../../../src/hypernode/discovery/label/label-config.ts';
import type { NodeMeta } from '../../../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../../../src/log.ts';
import { startReconciler } from '../../../reconcile/fixtures.ts';
import { MIXED_CONFIG, MIXED_UUIDS, mixedNodes } from '../../../../../testing/mixed-cluster.ts';

const PROFILE = 'volcano.sh/network-topology-profile';
const types = topologyTypes({ networkTopologyTypes: MIXED_CONFIG }, nullLogger);

function relabel(nodes: NodeMeta[], name: string, labels: Record<string, string>): NodeMeta[] {
  return nodes.map((n) =>
    n.metadata.name === name ? { metadata: { name, labels: { ...n.metadata.labels, ...labels } } } : n,
  );
}

async function converged(nodes: NodeMeta[]) {
  const rig = startReconciler();
  await rig.reconciler.reconcile('label', discoverSnapshot(nodes, types, rig.client.informer));
  rig.client.clearActions();
  const nameOf = (profile: string, key: string, value: string) =>
    rig.client.informer
      .list()
      .find((h) => h.metadata.labels?.[PROFILE] === profile && h.metadata.labels?.[key] === value)!.metadata.name;
  return { ...rig, nameOf };
}

test('an H100 Node moving to another leaf updates exactly its old and new leaf', async () => {
  const { client, reconciler, nameOf, stop } = await converged(mixedNodes());
  const [oldLeaf, newLeaf] = [
    nameOf('h100', 'example.com/leaf', 'leaf-h0'),
    nameOf('h100', 'example.com/leaf', 'leaf-h1'),
  ];
  const before = client.informer.list().length;
  await reconciler.reconcile(
    'label',
    discoverSnapshot(relabel(mixedNodes(), 'h100-0', { 'example.com/leaf': 'leaf-h1' }), types, client.informer),
  );
  assert.equal(client.verbs().sort(), [`update ${newLeaf}`, `update ${oldLeaf}`].sort());
  assert.is(client.informer.list().length, before);
  await stop();
});

test('a GB200 Node whose clique label arrives leaves the pending tree (deleted) and joins its NVLink domain (one update)', async () => {
  const { client, reconciler, nameOf, stop } = await converged(mixedNodes());
  const pending = [
    nameOf('gb200-pending', 'example.com/leaf', 'leaf-g0'),
    nameOf('gb200-pending', 'example.com/spine', 'spine-g'),
  ];
  const domain = nameOf('gb200', 'nvidia.com/gpu.clique', MIXED_UUIDS[1]!);
  await reconciler.reconcile(
    'label',
    discoverSnapshot(
      relabel(mixedNodes(), 'gb200-7', { 'nvidia.com/gpu.clique': `${MIXED_UUIDS[1]}.2` }),
      types,
      client.informer,
    ),
  );
  assert.equal(client.verbs().sort(), [`delete ${pending[0]}`, `delete ${pending[1]}`, `update ${domain}`].sort());
  await stop();
});

test('an unchanged cluster writes nothing', async () => {
  const { client, reconciler, stop } = await converged(mixedNodes());
  await reconciler.reconcile('label', discoverSnapshot(mixedNodes(), types, client.informer));
  assert.equal(client.verbs(), []);
  await stop();
});

test.run();
