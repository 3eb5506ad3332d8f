// The exports' one input (src/hypernode/reconcile/kept-topology.ts): a
// source's tree as the reconciler keeps it. An empty snapshot the mass-delete
// guard holds keeps the old tree whole, with the names held and why; a
// HyperNode held whose Nodes the new snapshot places elsewhere is left out;
// one that still holds a Node the snapshot does not place stays.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMembers, buildWithTierName } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { keptHyperNodes } from '../../../src/hypernode/reconcile/kept-topology.ts';
import { newReconciler } from './fixtures.ts';

const owned = { 'volcano.sh/network-topology-source': 'label' };
const rack = (name: string, nodes: string[]) => buildWithTierName(name, 1, 'rack', buildMembers(nodes, 'Node'), owned);
const names = (tree: readonly DiscoveredHyperNode[]) => tree.map((hn) => hn.metadata.name).sort();

/** Twelve racks of one Node each, under one cluster. */
const OLD = [
  ...Array.from({ length: 12 }, (_, i) => rack(`rack-${String(i).padStart(2, '0')}`, [`n${i}`])),
  buildWithTierName(
    'cluster',
    2,
    'cluster',
    buildMembers(
      Array.from({ length: 12 }, (_, i) => `rack-${String(i).padStart(2, '0')}`),
      'HyperNode',
    ),
    owned,
  ),
];

test('an empty snapshot the guard holds: the tree as kept is the old tree whole, with the names held and why', async () => {
  const { reconciler, client } = newReconciler();
  await reconciler.reconcile('label', OLD);
  const summary = await reconciler.reconcile('label', []);
  assert.is(summary.held, 13);
  assert.is(client.serverNames().length, 13);
  const kept = reconciler.keptOf('label')!;
  assert.equal(names(kept.hyperNodes), names(OLD));
  assert.equal([...kept.heldDeletes!.names].sort(), names(OLD));
  assert.match(kept.heldDeletes!.why, /would delete 13 of the 13 HyperNodes it owns/);
  assert.equal(
    kept.hyperNodes.find((hn) => hn.metadata.name === 'cluster')!.spec.members.length,
    12,
    'as the cluster holds it',
  );
});

test('a held HyperNode whose Nodes the snapshot places elsewhere is left out; one with a Node it does not place stays', () => {
  const cached = new Map(OLD.map((hn) => [hn.metadata.name, hn]));
  // n0 moved to rack-new; n1 is placed nowhere.
  const desired = [rack('rack-new', ['n0', ...Array.from({ length: 10 }, (_, i) => `n${i + 2}`)])];
  const kept = keptHyperNodes(desired, ['rack-00', 'rack-01', 'cluster'], (n) => cached.get(n));
  assert.equal(names(kept), ['cluster', 'rack-01', 'rack-new']);
});

test.run();
