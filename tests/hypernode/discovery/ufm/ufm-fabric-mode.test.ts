// Fabric mode's tree for generated fat trees: the tiers, members and names a
// user sees, that adding a scalable unit renames nothing (also when it adds a
// tier), and that down ports, aggregation nodes and hosts outside the cluster
// join no group.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  decodeLinks,
  decodePortStates,
  decodeSystems,
} from '../../../../src/hypernode/discovery/ufm/fabric-resources.ts';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import { ufmFabricGraph } from '../../../../src/hypernode/discovery/ufm/ufm-fabric-graph.ts';
import { UFM_FABRIC_LABEL } from '../../../../src/hypernode/model/hypernode-labels.ts';
import { buildSnapshot } from '../../../../src/hypernode/discovery/ufm/legacy-topology.ts';
import { decodePorts } from '../../../../src/hypernode/discovery/ufm/legacy-ports.ts';
import { validateSnapshot } from '../../../../src/hypernode/reconcile/snapshot-validation.ts';
import { nullLogger } from '../../../../src/log.ts';
import type { DiscoveredHyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import {
  briefPort,
  generateFatTree,
  lowestGuid,
  type FatTree,
  type FatTreeOptions,
} from '../../../../testing/fat-tree.ts';
import { startReconciler } from '../../reconcile/fixtures.ts';

function discover(tree: FatTree, fabric = 'ufm', isNode: (h: string) => boolean = () => true): DiscoveredHyperNode[] {
  const graph = ufmFabricGraph({
    systems: decodeSystems(JSON.stringify(tree.systems)),
    links: decodeLinks(JSON.stringify({ data: tree.links })),
    ports: decodePortStates(JSON.stringify(tree.ports.map(briefPort))),
  });
  return fabricHyperNodes({
    graph,
    fabric,
    source: 'ufm',
    labels: { [UFM_FABRIC_LABEL]: fabric },
    mapHost: (h) => (isNode(h) ? h : undefined),
    logger: nullLogger,
  }).snapshot;
}
const gen = (o: FatTreeOptions) => generateFatTree({ nodesPerSu: 4, ...o });
const byTier = (s: DiscoveredHyperNode[], tier: number) => s.filter((h) => h.spec.tier === tier);
const members = (h: DiscoveredHyperNode) => h.spec.members.map((m) => m.selector!.exactMatch!.name);
const named = (s: DiscoveredHyperNode[], name: string) => s.find((h) => h.metadata.name === name)!;

test('two tiers: one leaf group per scalable unit, named after its lowest leaf GUID, under one spine group named after its lowest spine GUID', () => {
  const tree = gen({ sus: 3, tiers: 2 });
  const snap = discover(tree);
  assert.equal(validateSnapshot(snap), []);
  const leaves = byTier(snap, 1);
  assert.equal(leaves.map((h) => h.metadata.name).sort(), tree.leafGuids.map((g) => `ufm-leaf-${g[0]}`).sort());
  assert.equal(members(named(snap, `ufm-leaf-${tree.leafGuids[1]![0]}`)), [
    'su02-n01',
    'su02-n02',
    'su02-n03',
    'su02-n04',
  ]);
  assert.equal(
    byTier(snap, 2).map((h) => [h.metadata.name, h.spec.tierName, members(h).length]),
    [[`ufm-spine-${lowestGuid(tree, 'spine-')}`, 'spine', 3]],
  );
  assert.is(leaves[0]!.spec.tierName, 'leaf');
  assert.is(leaves[0]!.metadata.labels?.[UFM_FABRIC_LABEL], 'ufm');
  assert.is(leaves[0]!.metadata.labels?.['volcano.sh/network-topology-source'], 'ufm');
});

test('three tiers: scalable units, then spine-leaf groups of four units named after their lowest spine GUID, then the whole fabric as core named after its lowest core GUID', () => {
  const tree = gen({ sus: 16, rails: 4 });
  const snap = discover(tree, 'pod-a');
  assert.equal(validateSnapshot(snap), []);
  assert.is(byTier(snap, 1).length, 16);
  const spines = byTier(snap, 2);
  assert.is(spines.length, 4);
  for (const s of spines) assert.is(members(s).length, 4);
  assert.ok(spines.every((s) => s.metadata.name.startsWith('pod-a-spine-') && s.spec.tierName === 'spine'));
  // The units 1–4 share their spines: they are one spine group.
  const first = named(snap, `pod-a-spine-${lowestGuid(tree, 'slg01-spine-')}`);
  assert.equal(
    members(first).sort(),
    tree.leafGuids
      .slice(0, 4)
      .map((g) => `pod-a-leaf-${g[0]}`)
      .sort(),
  );
  assert.equal(
    byTier(snap, 3).map((h) => [h.metadata.name, h.spec.tierName, members(h).length]),
    [[`pod-a-core-${lowestGuid(tree, 'cg')}`, 'core', 4]],
  );
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

/** The fabric before its core switches are installed: no core systems, no cables or ports to them. */
function withoutCores(tree: FatTree): FatTree {
  const cores = new Set(tree.systems.filter((s) => String(s.system_name).startsWith('cg')).map((s) => String(s.guid)));
  assert.ok(cores.size > 0, 'the generator cabled core switches');
  return {
    ...tree,
    systems: tree.systems.filter((s) => !cores.has(String(s.guid))),
    links: tree.links.filter((l) => !cores.has(String(l.source_guid)) && !cores.has(String(l.destination_guid))),
    ports: tree.ports.filter((p) => !cores.has(String(p.systemID)) && !cores.has(String(p.peer_node_guid))),
  };
}

// One spine-leaf group is a two-tier fabric: its spine group is the top. A
// second group makes it three tiers; the first group's spine HyperNode must
// stay what it was (same name, same members), with a new core above it.
const oneGroup = { sus: 4, tiers: 3, slgSus: 4, slgSpines: 4, uplinks: 2, rails: 2 } as const;
const twoGroups = { ...oneGroup, sus: 8 };
for (const [label, before] of [
  ['core switches cabled from the start', gen(oneGroup)],
  ['core switches installed with the second group', withoutCores(gen(oneGroup))],
] as const) {
  test(`growing from two tiers to three keeps every HyperNode's name and members; only the new ones appear (${label})`, async () => {
    const after = gen(twoGroups);
    const old = discover(before);
    const now = discover(after);
    assert.equal(
      old.map((h) => [h.metadata.name, h.spec.tier]),
      [...before.leafGuids.map((g) => [`ufm-leaf-${g[0]}`, 1]), [`ufm-spine-${lowestGuid(before, 'slg01-spine-')}`, 2]],
      'before: four units under one spine group, no core',
    );
    const nowByName = new Map(now.map((h) => [h.metadata.name, h]));
    for (const h of old)
      assert.equal(nowByName.get(h.metadata.name)?.spec, h.spec, `${h.metadata.name} kept its tier and members`);
    const oldNames = new Set(old.map((h) => h.metadata.name));
    const added = now.filter((h) => !oldNames.has(h.metadata.name)).map((h) => h.metadata.name);
    assert.equal(added, [
      ...after.leafGuids.slice(4).map((g) => `ufm-leaf-${g[0]}`),
      `ufm-spine-${lowestGuid(after, 'slg02-spine-')}`,
      `ufm-core-${lowestGuid(after, 'cg')}`,
    ]);
    assert.equal(
      members(named(now, `ufm-core-${lowestGuid(after, 'cg')}`)).sort(),
      [`ufm-spine-${lowestGuid(after, 'slg01-spine-')}`, `ufm-spine-${lowestGuid(after, 'slg02-spine-')}`].sort(),
    );

    // What the controller writes for the growth: creates of the new HyperNodes only, nothing updated or deleted.
    const { client, reconciler, stop } = startReconciler();
    try {
      await reconciler.reconcile('ufm', old);
      client.clearActions();
      const summary = await reconciler.reconcile('ufm', now);
      assert.equal(
        client.verbs(),
        added.map((n) => `create ${n}`),
      );
      assert.equal([summary.updated, summary.deleted, summary.unchanged], [0, 0, old.length]);
    } finally {
      await stop();
    }
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
  assert.equal(
    byTier(some, 1).map((h) => h.metadata.name),
    byTier(all, 1)
      .filter((h) => !members(h)[0]!.startsWith('su02'))
      .map((h) => h.metadata.name),
  );
  assert.not.ok(some.some((h) => members(h).includes('su01-n04')));
  assert.is(members(named(some, `ufm-spine-${lowestGuid(tree, 'spine-')}`)).length, 2);
});

test("legacy mode on the same fabric keeps Volcano's leaf-hn-N and spine-hn", () => {
  const tree = gen({ sus: 16, rails: 2 });
  const snap = buildSnapshot(decodePorts(JSON.stringify(tree.ports)), nullLogger);
  assert.equal(
    snap.map((h) => h.metadata.name),
    [...Array.from({ length: 16 }, (_, i) => `leaf-hn-${i}`), 'spine-hn'],
  );
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
