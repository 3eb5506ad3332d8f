// Properties of the fabric layer over generated fat trees (two or three
// tiers, 1–6 scalable units, 1–4 rails, 1–4 spines per group and uplinks, down host ports, cables to another
// unit that are up or down, SHARP aggregation nodes, hosts that are no Node),
// decoded from UFM's JSON answers as the discoverer decodes them:
//
// - each tier is a partition of the tier below and the result is a tree: every
//   HyperNode has at most one parent, one tier above it;
// - every host that is a Node and has an active cable is a member of exactly
//   one leaf HyperNode, and each tier groups the Nodes as an independent model
//   of the wiring says (units joined by active cables, then spine-leaf groups,
//   then the whole fabric), not as the union-find under test computes it;
// - the HyperNodes, names included, do not depend on the order of the systems,
//   links and ports in UFM's answers.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  decodeLinks,
  decodePortStates,
  decodeSystems,
} from '../../../../src/hypernode/discovery/ufm/fabric-resources.ts';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import { ufmFabricGraph } from '../../../../src/hypernode/discovery/ufm/ufm-fabric-graph.ts';
import { UFM_FABRIC_LABEL } from '../../../../src/hypernode/model/hypernode-labels.ts';
import type { DiscoveredHyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { validateSnapshot } from '../../../../src/hypernode/reconcile/snapshot-validation.ts';
import { nullLogger } from '../../../../src/log.ts';
import {
  briefPort,
  defaultHostName,
  generateFatTree,
  type CrossCable,
  type FatTree,
  type FatTreeOptions,
} from '../../../../testing/fat-tree.ts';
import { propertyParameters, shuffled } from '../../../support/property.ts';

interface Case {
  opts: FatTreeOptions & { nodesPerSu: number; rails: number; tiers: 2 | 3 };
  /** Hosts UFM reports that are no Kubernetes Node. */
  notNodes: Set<string>;
  /** Seed of the shuffle of the answers. */
  shuffleSeed: number;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    tiers: fc.constantFrom(2 as const, 3 as const),
    sus: fc.integer({ min: 1, max: 6 }),
    rails: fc.integer({ min: 1, max: 4 }),
    nodesPerSu: fc.integer({ min: 1, max: 3 }),
    slgSus: fc.integer({ min: 1, max: 3 }),
    slgSpines: fc.integer({ min: 1, max: 4 }),
    uplinks: fc.integer({ min: 1, max: 4 }),
    aggregationNodes: fc.boolean(),
    shuffleSeed: fc.integer(),
  })
  .chain((shape) => {
    const host = fc.record({
      su: fc.integer({ min: 1, max: shape.sus }),
      node: fc.integer({ min: 1, max: shape.nodesPerSu }),
    });
    const rail = fc.integer({ min: 1, max: shape.rails });
    return fc.record({
      shape: fc.constant(shape),
      down: fc.array(fc.record({ host, rail }), { maxLength: 6 }),
      cross: fc.array(fc.record({ host, toSu: fc.integer({ min: 1, max: shape.sus }), rail, active: fc.boolean() }), {
        maxLength: 3,
      }),
      notNodes: fc.array(host, { maxLength: 4 }),
    });
  })
  .map(({ shape, down, cross, notNodes }) => ({
    opts: {
      sus: shape.sus,
      tiers: shape.tiers,
      rails: shape.rails,
      nodesPerSu: shape.nodesPerSu,
      slgSus: shape.slgSus,
      slgSpines: shape.slgSpines,
      uplinks: shape.uplinks,
      aggregationNodes: shape.aggregationNodes,
      downHostPorts: down.map((d) => `${defaultHostName(d.host.su, d.host.node)}/${d.rail}`),
      // A cable to another unit's leaf; one to the host's own unit would be a second cable to the same leaf.
      crossCables: cross
        .filter((c) => c.toSu !== c.host.su)
        .map((c): CrossCable => ({ su: c.host.su, node: c.host.node, toSu: c.toSu, rail: c.rail, active: c.active })),
    },
    notNodes: new Set(notNodes.map((h) => defaultHostName(h.su, h.node))),
    shuffleSeed: shape.shuffleSeed,
  }));

/** The fabric's HyperNodes from its answers in the given order, every host that is a Node mapped to itself. */
function discover(
  tree: FatTree,
  c: Case,
  order: (xs: readonly unknown[], salt: number) => unknown[],
): DiscoveredHyperNode[] {
  const graph = ufmFabricGraph({
    systems: decodeSystems(JSON.stringify(order(tree.systems, 1))),
    links: decodeLinks(JSON.stringify(order(tree.links, 2))),
    ports: decodePortStates(JSON.stringify(order(tree.ports.map(briefPort), 3))),
  });
  return fabricHyperNodes({
    graph,
    fabric: 'fab',
    source: 'ufm',
    labels: { [UFM_FABRIC_LABEL]: 'fab' },
    mapHost: (h) => (c.notNodes.has(h) ? undefined : h),
    logger: nullLogger,
  }).snapshot;
}

const names = (hn: DiscoveredHyperNode) => hn.spec.members.map((m) => m.selector!.exactMatch!.name!);

interface Group {
  hosts: Set<string>;
  /** What joins two groups when they share it: leaves at the leaf tier, spine-leaf groups above. */
  keys: Set<string>;
}

/** Merges groups that share a key until none do (small inputs: quadratic is fine). */
function mergeSharing(groups: Group[]): Group[] {
  const out = groups.map((g) => ({ hosts: new Set(g.hosts), keys: new Set(g.keys) }));
  for (let i = 0; i < out.length; i++) {
    for (let j = i + 1; j < out.length; j++) {
      if (![...out[j]!.keys].some((k) => out[i]!.keys.has(k))) continue;
      for (const h of out[j]!.hosts) out[i]!.hosts.add(h);
      for (const k of out[j]!.keys) out[i]!.keys.add(k);
      out.splice(j, 1);
      j = i; // rescan: the grown group may now share a key with an earlier one
    }
  }
  return out;
}

/**
 * The groups the wiring implies, tier by tier, as sorted lists of the Nodes
 * below each: a host is cabled to the rail leaves of its unit whose ports are
 * up and to the leaves of active cables to other units, and leaves sharing a
 * host are one leaf group; in three tiers the leaf groups that reach the same
 * spine-leaf group are one spine group; above that (two tiers: above the
 * leaves) every group reaches the same spines or cores, so there is one.
 * Grouping stops at a tier with one group.
 */
function expectedTiers(c: Case): string[][][] {
  const down = new Set(c.opts.downHostPorts);
  const leavesOf = new Map<string, Set<string>>();
  for (let su = 1; su <= c.opts.sus; su++) {
    for (let n = 1; n <= c.opts.nodesPerSu; n++) {
      const host = defaultHostName(su, n);
      const leaves = new Set<string>();
      for (let r = 1; r <= c.opts.rails; r++) if (!down.has(`${host}/${r}`)) leaves.add(`${su}/${r}`);
      leavesOf.set(host, leaves);
    }
  }
  for (const x of c.opts.crossCables ?? [])
    if (x.active) leavesOf.get(defaultHostName(x.su, x.node))!.add(`${x.toSu}/${x.rail}`);
  const leafGroups = mergeSharing(
    [...leavesOf].filter(([, ls]) => ls.size > 0).map(([h, ls]) => ({ hosts: new Set([h]), keys: ls })),
  );
  const tiers = [leafGroups];
  const all = (gs: Group[]) => [{ hosts: new Set(gs.flatMap((g) => [...g.hosts])), keys: new Set<string>() }];
  if (leafGroups.length > 1) {
    if (c.opts.tiers === 2) tiers.push(all(leafGroups));
    else {
      const slgOf = (leaf: string) => String(Math.floor((Number(leaf.split('/')[0]) - 1) / c.opts.slgSus!));
      const spineGroups = mergeSharing(
        leafGroups.map((g) => ({ hosts: g.hosts, keys: new Set([...g.keys].map(slgOf)) })),
      );
      tiers.push(spineGroups);
      if (spineGroups.length > 1) tiers.push(all(spineGroups));
    }
  }
  // A group without Nodes below it is no HyperNode; a tier of such groups is no tier.
  return tiers
    .map((gs) =>
      gs
        .map((g) => [...g.hosts].filter((h) => !c.notNodes.has(h)).sort())
        .filter((hosts) => hosts.length > 0)
        .sort(byFirst),
    )
    .filter((gs) => gs.length > 0);
}

const byFirst = (a: string[], b: string[]) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0);

/** Per tier, the Nodes below each HyperNode (sorted lists, sorted). */
function actualTiers(snap: DiscoveredHyperNode[]): string[][][] {
  const byName = new Map(snap.map((hn) => [hn.metadata.name, hn]));
  const below = (hn: DiscoveredHyperNode): string[] =>
    hn.spec.tier === 1 ? names(hn) : names(hn).flatMap((m) => below(byName.get(m)!));
  const top = Math.max(0, ...snap.map((hn) => hn.spec.tier));
  return Array.from({ length: top }, (_, i) =>
    snap
      .filter((hn) => hn.spec.tier === i + 1)
      .map((hn) => below(hn).sort())
      .sort(byFirst),
  );
}

const canonical = (snap: DiscoveredHyperNode[]) =>
  JSON.stringify([...snap].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)));

test('fabric tiers partition the tier below and form a tree; every host that is a Node and cabled is in exactly one leaf; names ignore answer order', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const tree = generateFatTree(c.opts);
      const snap = discover(tree, c, (xs) => [...xs]);
      assert.equal(validateSnapshot(snap), [], 'a valid snapshot');
      const byName = new Map(snap.map((hn) => [hn.metadata.name, hn]));
      const top = Math.max(...snap.map((hn) => hn.spec.tier));
      assert.ok(top <= c.opts.tiers, `at most ${c.opts.tiers} tiers, got ${top}`);

      // A tree: each HyperNode is a member of at most one other, which is one tier above it.
      const parents = new Map<string, string[]>();
      for (const hn of snap) {
        if (hn.spec.tier === 1) continue;
        for (const m of hn.spec.members) {
          assert.is(m.type, 'HyperNode', `${hn.metadata.name} has a HyperNode member`);
          const child = byName.get(m.selector!.exactMatch!.name!);
          assert.ok(child, `${hn.metadata.name}: member ${m.selector!.exactMatch!.name} exists`);
          assert.is(
            child!.spec.tier,
            hn.spec.tier - 1,
            `${child!.metadata.name} sits one tier below its parent ${hn.metadata.name}`,
          );
          parents.set(child!.metadata.name, [...(parents.get(child!.metadata.name) ?? []), hn.metadata.name]);
        }
      }
      for (const [child, ps] of parents) assert.is(ps.length, 1, `${child} has one parent, not ${ps.join(', ')}`);
      // A partition: below the top tier every HyperNode has its parent.
      for (const hn of snap)
        if (hn.spec.tier < top)
          assert.ok(
            parents.has(hn.metadata.name),
            `${hn.metadata.name} (tier ${hn.spec.tier}) belongs to a tier-${hn.spec.tier + 1} HyperNode`,
          );

      // The leaf tier: Node members only, each host once; every tier grouped as the wiring says.
      const leaves = snap.filter((hn) => hn.spec.tier === 1);
      assert.ok(leaves.every((hn) => hn.spec.members.every((m) => m.type === 'Node')));
      const leafHosts = leaves.flatMap(names);
      assert.is(new Set(leafHosts).size, leafHosts.length, 'no host in two leaf HyperNodes');
      assert.equal(actualTiers(snap), expectedTiers(c), 'the groups of the wiring, tier by tier');

      // Order independence: the same HyperNodes, names included, from shuffled answers.
      const again = discover(tree, c, (xs, salt) => shuffled(xs, c.shuffleSeed ^ salt));
      assert.is(canonical(again), canonical(snap), 'the answer order changes nothing');
    }),
    propertyParameters(),
  );
});

test.run();
