// Properties of the fabric layer with `minSharedHosts: 2` (what a source sets
// so that miscabling never merges scalable units) over generated
// rail-optimised graphs (1–5 units of 2–4 hosts, 1–4 rails, 1–3 spines) with up
// to three hosts each cabled once to another unit's leaf, at most one between
// two units (two would be two shared hosts, which the threshold of 2 joins):
//
// - the leaf groups are exactly the units (no miscabled host merges two), and
//   each miscabled host is reported once, naming it, and stays in its unit;
// - the result is a valid tree (every Node in one leaf, one parent each);
// - the HyperNodes, names included, and the problems do not depend on the
//   order of the switches, hosts and links.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import type { FabricGraph, FabricLink } from '../../../../src/hypernode/discovery/fabric/fabric-graph.ts';
import { parseGraphDocument } from '../../../../src/hypernode/discovery/graph/graph-fabric-graph.ts';
import { validateSnapshot } from '../../../../src/hypernode/reconcile/snapshot-validation.ts';
import { nullLogger } from '../../../../src/log.ts';
import { railGraphDocument } from '../../../../testing/graph-server.ts';
import { propertyParameters, shuffled } from '../../../support/property.ts';

const caseArb = fc
  .record({
    sus: fc.integer({ min: 1, max: 5 }),
    rails: fc.integer({ min: 1, max: 4 }),
    hostsPerSu: fc.integer({ min: 2, max: 4 }),
    spines: fc.integer({ min: 1, max: 3 }),
    seed: fc.integer(),
  })
  .chain((shape) =>
    fc.record({
      shape: fc.constant(shape),
      miscabled: fc.uniqueArray(
        fc.record({
          su: fc.integer({ min: 1, max: shape.sus }),
          host: fc.integer({ min: 1, max: shape.hostsPerSu }),
          toSu: fc.integer({ min: 1, max: shape.sus }),
          rail: fc.integer({ min: 1, max: shape.rails }),
        }),
        {
          maxLength: 3,
          selector: (m) => `${m.su}/${m.host}`,
        },
      ),
    }),
  )
  .map(({ shape, miscabled }) => {
    const pairs = new Set<string>();
    // At least one host of each unit stays cabled at home only: on one rail a
    // unit whose every host also reaches another unit's leaf cannot be told
    // from hosts of that unit, so no layering can keep it apart.
    const abroad = new Map<number, number>();
    const kept = miscabled.filter((m) => {
      const pair = `${Math.min(m.su, m.toSu)}/${Math.max(m.su, m.toSu)}`;
      if (m.toSu === m.su || pairs.has(pair) || (abroad.get(m.su) ?? 0) + 1 >= shape.hostsPerSu) return false;
      pairs.add(pair);
      abroad.set(m.su, (abroad.get(m.su) ?? 0) + 1);
      return true;
    });
    return { shape, miscabled: kept };
  });

interface Case {
  shape: { sus: number; rails: number; hostsPerSu: number; spines: number; seed: number };
  miscabled: { su: number; host: number; toSu: number; rail: number }[];
}

function graphOf(c: Case): FabricGraph {
  const doc = railGraphDocument(c.shape);
  const extra = c.miscabled.map((m) => ({
    a: { host: `su${m.su}-h${m.host}`, port: 'eth9' },
    b: { switch: `leaf-su${m.toSu}-r${m.rail}`, port: 'swp99' },
  }));
  return parseGraphDocument(JSON.stringify({ switches: doc.switches, links: [...doc.links, ...extra] }));
}

const run = (graph: FabricGraph) =>
  fabricHyperNodes({ graph, fabric: 'f', source: 'graph', mapHost: (h) => h, minSharedHosts: 2, logger: nullLogger });
const members = (s: ReturnType<typeof run>['snapshot'], tier: number) =>
  s
    .filter((h) => h.spec.tier === tier)
    .map((h) =>
      h.spec.members
        .map((m) => m.selector!.exactMatch!.name!)
        .sort()
        .join(','),
    )
    .sort();

test('with minSharedHosts 2 miscabled hosts never merge units, are reported and stay home; the tree is valid and independent of order', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const graph = graphOf(c);
      const r = run(graph);
      assert.equal(validateSnapshot([...r.snapshot]), []);
      const units = Array.from({ length: c.shape.sus }, (_, s) =>
        Array.from({ length: c.shape.hostsPerSu }, (_, h) => `su${s + 1}-h${h + 1}`)
          .sort()
          .join(','),
      ).sort();
      // A unit of one rail has a single leaf: its miscabled host has one leaf at home and one abroad, a tie the lower
      // leaf id wins.
      if (c.shape.rails > 1) assert.equal(members(r.snapshot, 1), units);
      else assert.is(members(r.snapshot, 1).length, c.shape.sus);
      assert.equal(
        r.problems.map((p) => p.kind),
        c.miscabled.map(() => 'split-host'),
      );
      for (const m of c.miscabled)
        assert.ok(
          r.problems.some((p) => p.message.startsWith(`host su${m.su}-h${m.host} is cabled to the leaves of 2 groups`)),
          `su${m.su}-h${m.host} reported`,
        );
      const reordered: FabricGraph = {
        switches: shuffled(graph.switches, c.shape.seed),
        hosts: shuffled(graph.hosts, c.shape.seed + 1),
        links: shuffled(graph.links, c.shape.seed + 2).map((l, i): FabricLink => (i % 2 ? { a: l.b, b: l.a } : l)),
      };
      const again = run(reordered);
      const byName = (s: typeof r.snapshot) => [...s].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
      assert.equal(byName(again.snapshot), byName(r.snapshot));
      assert.equal([...again.problems].map((p) => p.message).sort(), [...r.problems].map((p) => p.message).sort());
    }),
    propertyParameters(),
  );
});

test.run();
