// Fabric mode's tree for generated fat trees: the tiers, members and names a
// user sees, that adding a scalable unit renames nothing, and that down
// ports, aggregation nodes and hosts outside the cluster join no group.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeLinks, decodePortStates, decodeSystems } from '../../../src/hypernode/discovery/ufm/fabric-resources.ts';
import { buildFabricSnapshot, fabricLevels, UFM_FABRIC_LABEL } from '../../../src/hypernode/discovery/ufm/fabric-topology.ts';
import { buildSnapshot } from '../../../src/hypernode/discovery/ufm/topology.ts';
import { decodePorts } from '../../../src/hypernode/discovery/ufm/ports.ts';
import { validateSnapshot } from '../../../src/hypernode/snapshot-validation.ts';
import { nullLogger } from '../../../src/log.ts';
import type { DiscoveredHyperNode } from '../../../src/hypernode/api/types.ts';
import { briefPort, generateFatTree, type FatTree, type FatTreeOptions } from '../../support/fat-tree.ts';

function discover(tree: FatTree, fabric = 'ufm', isNode: (h: string) => boolean = () => true): DiscoveredHyperNode[] {
  const levels = fabricLevels({
    systems: decodeSystems(JSON.stringify(tree.systems)),
    links: decodeLinks(JSON.stringify({ data: tree.links })),
    ports: decodePortStates(JSON.stringify(tree.ports.map(briefPort))),
  });
  return buildFabricSnapshot(fabric, levels, (h) => (isNode(h) ? h : undefined), nullLogger);
}
const gen = (o: FatTreeOptions) => generateFatTree({ nodesPerSu: 4, ...o });
const byTier = (s: DiscoveredHyperNode[], tier: number) => s.filter((h) => h.spec.tier === tier);
const members = (h: DiscoveredHyperNode) => h.spec.members.map((m) => m.selector!.exactMatch!.name);
const named = (s: DiscoveredHyperNode[], name: string) => s.find((h) => h.metadata.name === name)!;

test('two tiers: one leaf group per scalable unit, named after its lowest leaf GUID, under one spine group named after the fabric', () => {
  const tree = gen({ sus: 3, tiers: 2 });
  const snap = discover(tree);
  assert.equal(validateSnapshot(snap), []);
  const leaves = byTier(snap, 1);
  assert.equal(leaves.map((h) => h.metadata.name).sort(), tree.leafGuids.map((g) => `ufm-leaf-${g[0]}`).sort());
  assert.equal(members(named(snap, `ufm-leaf-${tree.leafGuids[1]![0]}`)), ['su02-n01', 'su02-n02', 'su02-n03', 'su02-n04']);
  assert.equal(byTier(snap, 2).map((h) => [h.metadata.name, h.spec.tierName, members(h).length]), [['ufm', 'spine', 3]]);
  assert.is(leaves[0]!.spec.tierName, 'leaf');
  assert.is(leaves[0]!.metadata.labels?.[UFM_FABRIC_LABEL], 'ufm');
  assert.is(leaves[0]!.metadata.labels?.['volcano.sh/network-topology-source'], 'ufm');
});

test('three tiers: scalable units, then spine-leaf groups of four units, then the whole fabric as core', () => {
  const tree = gen({ sus: 16, rails: 4 });
  const snap = discover(tree, 'pod-a');
  assert.equal(validateSnapshot(snap), []);
  assert.is(byTier(snap, 1).length, 16);
  const spines = byTier(snap, 2);
  assert.is(spines.length, 4);
  for (const s of spines) assert.is(members(s).length, 4);
  assert.ok(spines.every((s) => s.metadata.name.startsWith('pod-a-spine-') && s.spec.tierName === 'spine'));
  // The units 1–4 share their spines: they are one spine group.
  const first = spines.find((s) => members(s).includes(`pod-a-leaf-${tree.leafGuids[0]![0]}`))!;
  assert.equal(members(first).sort(), tree.leafGuids.slice(0, 4).map((g) => `pod-a-leaf-${g[0]}`).sort());
  assert.equal(byTier(snap, 3).map((h) => [h.metadata.name, h.spec.tierName, members(h).length]), [['pod-a', 'core', 4]]);
});

for (const [label, before, after] of [
  ['two tiers, 2 → 3 units', { sus: 2, tiers: 2 }, { sus: 3, tiers: 2 }],
  ['three tiers, 16 → 17 units', { sus: 16, rails: 2 }, { sus: 17, rails: 2 }],
] as const) {
  test(`adding a scalable unit creates HyperNodes and renames none (${label})`, () => {
    const old = discover(gen(before));
    const now = discover(gen(after));
    const nowByName = new Map(now.map((h) => [h.metadata.name, h]));
    for (const h of old) {
      const same = nowByName.get(h.metadata.name);
      assert.ok(same, `${h.metadata.name} disappeared`);
      // Existing groups keep their members; only the groups above gain the new ones.
      for (const m of members(h)) assert.ok(members(same!).includes(m), `${h.metadata.name} lost ${m}`);
    }
    assert.ok(now.length > old.length);
  });
}

test('a down host port and an inactive cable to another unit join nothing; an active one merges the units', () => {
  const base = { sus: 2, tiers: 2 as const, downHostPorts: ['su01-n02/1'] };
  const quiet = discover(gen({ ...base, crossCables: [{ su: 1, node: 1, toSu: 2, rail: 1, active: false }] }));
  assert.is(byTier(quiet, 1).length, 2);
  assert.ok(members(byTier(quiet, 1).find((h) => members(h).includes('su01-n02'))!).length === 4);
  const merged = discover(gen({ ...base, crossCables: [{ su: 1, node: 1, toSu: 2, rail: 1, active: true }] }));
  assert.is(byTier(merged, 1).length, 1);
});

test('aggregation nodes on the spines do not make the spines leaves', () => {
  const snap = discover(gen({ sus: 2, tiers: 2, aggregationNodes: true }));
  assert.equal(byTier(snap, 1).length, 2);
  assert.equal(byTier(snap, 2).length, 1);
  assert.not.ok(snap.some((h) => members(h).some((m) => m.includes('Aggregation'))));
});

test('hosts that are not Nodes are no members, and a unit without Nodes has no HyperNode; names stay', () => {
  const tree = gen({ sus: 3, tiers: 2 });
  const all = discover(tree);
  const some = discover(tree, 'ufm', (h) => !h.startsWith('su02') && h !== 'su01-n04');
  assert.equal(byTier(some, 1).map((h) => h.metadata.name), byTier(all, 1).filter((h) => !members(h)[0]!.startsWith('su02')).map((h) => h.metadata.name));
  assert.not.ok(some.some((h) => members(h).includes('su01-n04')));
  assert.is(members(named(some, 'ufm')).length, 2);
});

test('legacy mode on the same fabric keeps Volcano\'s leaf-hn-N and spine-hn', () => {
  const tree = gen({ sus: 16, rails: 2 });
  const snap = buildSnapshot(decodePorts(JSON.stringify(tree.ports)), nullLogger);
  assert.equal(snap.map((h) => h.metadata.name), [...Array.from({ length: 16 }, (_, i) => `leaf-hn-${i}`), 'spine-hn']);
  assert.is(snap[0]!.spec.tierName, undefined);
});

test('two fabrics give two trees with their own names and labels', () => {
  const a = discover(gen({ sus: 2, tiers: 2, fabricId: 1 }), 'pod-a');
  const b = discover(gen({ sus: 2, tiers: 2, fabricId: 2, hostName: (s, n) => `b-su${s}-n${n}` }), 'pod-b');
  assert.equal(validateSnapshot([...a, ...b]), []);
  assert.ok(a.every((h) => h.metadata.labels?.[UFM_FABRIC_LABEL] === 'pod-a' && h.metadata.name.startsWith('pod-a')));
  assert.ok(b.every((h) => h.metadata.labels?.[UFM_FABRIC_LABEL] === 'pod-b' && h.metadata.name.startsWith('pod-b')));
});

test.run();
