// Properties of the NVLink tier over generated fat trees (two or three
// tiers, 1–5 units, 1–4 hosts per unit, cables to other units) whose Nodes
// carry cliques of a few racks at random, some none, some racks spread over
// several units, some values without a CliqueID:
//
// - the result is a tree a scheduler accepts (snapshot validation passes);
// - every Node of the fabric tree is in it exactly once, below the same leaf
//   group: in a domain when its label gives one, else directly in its group;
// - each domain HyperNode holds Nodes of one domain value and one leaf group;
// - the fabric's HyperNodes keep their names and members between them, one
//   tier higher;
// - with no label at all, only the tiers change.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import { parseNvlinkConfig, type NvlinkConfig } from '../../../../src/hypernode/discovery/fabric/nvlink-config.ts';
import { nvlinkTier } from '../../../../src/hypernode/discovery/fabric/nvlink-tier.ts';
import {
  decodeLinks,
  decodePortStates,
  decodeSystems,
} from '../../../../src/hypernode/discovery/ufm/fabric-resources.ts';
import { ufmFabricGraph } from '../../../../src/hypernode/discovery/ufm/ufm-fabric-graph.ts';
import type { DiscoveredHyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { domainOfValue } from '../../../../src/hypernode/model/nvlink.ts';
import { validateSnapshot } from '../../../../src/hypernode/reconcile/snapshot-validation.ts';
import { nullLogger } from '../../../../src/log.ts';
import { briefPort, defaultHostName, generateFatTree, type FatTreeOptions } from '../../../../testing/fat-tree.ts';
import { propertyParameters } from '../../../support/property.ts';

const RACKS = [
  '11111111-1111-4111-8111-111111111111',
  '22222222-2222-4222-8222-222222222222',
  '33333333-3333-4333-8333-333333333333',
];

interface Case {
  opts: FatTreeOptions;
  /** Host → its clique value (absent: no label). */
  cliques: Map<string, string>;
  level: 'domain' | 'partition';
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    tiers: fc.constantFrom(2 as const, 3 as const),
    sus: fc.integer({ min: 1, max: 5 }),
    nodesPerSu: fc.integer({ min: 1, max: 4 }),
    rails: fc.integer({ min: 1, max: 2 }),
    level: fc.constantFrom('domain' as const, 'partition' as const),
  })
  .chain((shape) => {
    const host = fc.record({
      su: fc.integer({ min: 1, max: shape.sus }),
      node: fc.integer({ min: 1, max: shape.nodesPerSu }),
    });
    // A clique value, a bare ClusterUUID (no CliqueID: no domain), or no label.
    const clique = fc.oneof(
      fc
        .record({ rack: fc.constantFrom(...RACKS), id: fc.integer({ min: 1, max: 2 }) })
        .map(({ rack, id }) => `${rack}.${id}`),
      fc.constantFrom(...RACKS),
      fc.constant(undefined),
    );
    return fc.record({
      shape: fc.constant(shape),
      labels: fc.array(fc.tuple(host, clique), { maxLength: shape.sus * shape.nodesPerSu }),
      cross: fc.array(fc.record({ host, toSu: fc.integer({ min: 1, max: shape.sus }) }), { maxLength: 2 }),
    });
  })
  .map(({ shape, labels, cross }) => ({
    opts: {
      sus: shape.sus,
      tiers: shape.tiers,
      nodesPerSu: shape.nodesPerSu,
      rails: shape.rails,
      slgSus: 2,
      slgSpines: 1,
      uplinks: 1,
      crossCables: cross
        .filter((c) => c.toSu !== c.host.su)
        .map((c) => ({ su: c.host.su, node: c.host.node, toSu: c.toSu, rail: 1, active: true })),
    },
    cliques: new Map(
      labels.flatMap(([h, v]) => (v === undefined ? [] : [[defaultHostName(h.su, h.node), v] as const])),
    ),
    level: shape.level,
  }));

function fabricTree(opts: FatTreeOptions): DiscoveredHyperNode[] {
  const tree = generateFatTree(opts);
  const graph = ufmFabricGraph({
    systems: decodeSystems(JSON.stringify(tree.systems)),
    links: decodeLinks(JSON.stringify(tree.links)),
    ports: decodePortStates(JSON.stringify(tree.ports.map(briefPort))),
  });
  return fabricHyperNodes({ graph, fabric: 'fab', source: 'ufm', mapHost: (h) => h, logger: nullLogger }).snapshot;
}

const memberNames = (hn: DiscoveredHyperNode, type: string) =>
  hn.spec.members.filter((m) => m.type === type).map((m) => m.selector!.exactMatch!.name);

test('the NVLink tier keeps a tree: each Node once, in its own leaf group, in a domain of its value when it has one; fabric names and members kept one tier up', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const base = fabricTree(c.opts);
      const config = parseNvlinkConfig(c.level) as NvlinkConfig;
      const tier = nvlinkTier({ base, fabric: 'fab', config, labels: {}, labelOf: (n) => c.cliques.get(n) });
      assert.equal(validateSnapshot([...tier.snapshot]), [], 'a valid snapshot');
      const byName = new Map(tier.snapshot.map((hn) => [hn.metadata.name, hn]));
      const domains = tier.snapshot.filter((hn) => hn.spec.tierName === config.tierName);
      for (const d of domains)
        assert.equal([d.spec.tier, memberNames(d, 'HyperNode')], [1, []], `${d.metadata.name}: tier 1, Nodes only`);
      // The fabric's HyperNodes: same names, one tier up, same HyperNode members apart from the domains.
      assert.equal(
        tier.snapshot
          .filter((hn) => hn.spec.tierName !== config.tierName)
          .map((hn) => [hn.metadata.name, hn.spec.tier]),
        base.map((hn) => [hn.metadata.name, hn.spec.tier + 1]),
      );
      for (const b of base) {
        const raised = byName.get(b.metadata.name)!;
        const kids = memberNames(raised, 'HyperNode').filter((n) => byName.get(n)!.spec.tierName !== config.tierName);
        assert.equal(kids, memberNames(b, 'HyperNode'));
        // Every Node of the leaf group is still below it: directly when its label gives no domain, else in a domain of
        // its value.
        for (const node of memberNames(b, 'Node')) {
          const raw = c.cliques.get(node);
          const domain = raw === undefined ? undefined : domainOfValue(raw, config.take);
          const holders = tier.snapshot.filter((hn) => memberNames(hn, 'Node').includes(node));
          assert.is(holders.length, 1, `${node} is in one HyperNode`);
          const holder = holders[0]!;
          if (domain === undefined) assert.is(holder.metadata.name, b.metadata.name, `${node} stays in its leaf group`);
          else {
            assert.is(holder.spec.tierName, config.tierName, `${node} is in a domain`);
            assert.is(holder.metadata.labels?.[config.label], domain, `${node}'s domain is ${domain}`);
            assert.ok(
              memberNames(raised, 'HyperNode').includes(holder.metadata.name),
              `${holder.metadata.name} is under ${node}'s leaf group`,
            );
          }
        }
      }
      // Without labels only the tiers move.
      const bare = nvlinkTier({ base, fabric: 'fab', config, labels: {}, labelOf: () => undefined });
      assert.equal(
        bare.snapshot.map((hn) => [hn.metadata.name, hn.spec.tier - 1, hn.spec.members]),
        base.map((hn) => [hn.metadata.name, hn.spec.tier, hn.spec.members]),
      );
    }),
    propertyParameters(),
  );
});

test.run();
