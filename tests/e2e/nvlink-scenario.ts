// The NVLink scenario every fabric source's end-to-end test runs against the
// built executable (UFM fabric and legacy mode, graph, the lldpd/snmpd lab,
// the ibsim lab with the real ibnetdiscover): two scalable units of four
// Nodes under one spine layer, three racks' cliques on them (rack A: two
// Nodes of unit 1; rack B: three of unit 2; rack C: one Node in each unit, a
// rack split over units) and one Node of unit 1 without a clique yet. Step
// by step, with the HyperNode writes the API server stand-in records (status
// writes left out: nodeCount and conditions follow):
//
// 1. without config.nvlink: the fabric tree;
// 2. nvlink turned on, on the running fabric: the fabric's HyperNodes are
//    updated in place (same names and uids, one tier up), the domains are
//    created, nothing is deleted; rack C is split per unit and named once in
//    an NvlinkDomainSplit Event with its Nodes and leaf groups;
// 3. the unlabelled Node's clique appears: exactly the two updates the move
//    needs (its domain, its leaf group), without reading the fabric again;
// 4. nvlink turned off: updates in place back to the fabric tree, the domains
//    deleted, nothing created, the fabric's uids kept.

import * as assert from 'uvu/assert';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { nvlinkHyperNodeName } from '../../src/hypernode/discovery/fabric/nvlink-tier.ts';
import type { ApiServer, RequestRecord } from '../../testing/apiserver/index.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { generateFatTree, type FatTree } from '../../testing/fat-tree.ts';
import {
  NS,
  answeredHyperNodeWrites,
  describeWrites,
  hyperNodes,
  node,
  nodeCountsSettled,
  seedConfigMap,
  setDiscoveryConfig,
  setNodeLabels,
  uidsByName,
} from './cluster.ts';
import type { Session } from './session.ts';

export const CLIQUE = 'nvidia.com/gpu.clique';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Two scalable units of four GB200 trays each on a two-tier UFM fabric (fabric id 3), the hosts gb-su<u>-n<n>. */
export function twoUnitUfmFabric(): FatTree {
  return generateFatTree({
    sus: 2,
    tiers: 2,
    uplinks: 2,
    nodesPerSu: 4,
    rails: 2,
    fabricId: 3,
    hostName: (su, n) => `gb-su${pad2(su)}-n${pad2(n)}`,
  });
}
const RACK_A = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';
const RACK_B = '52c0ab5e-1f0e-4a3c-9d6b-2f8e7a1c0b93';
const RACK_C = 'e0d1c2b3-a495-4867-b8c9-dae0f1a2b3c4';

export interface NvlinkFabric {
  readonly source: string;
  /** The discovery document; with `nvlink` its entry carries `config.nvlink: <nvlink>`. */
  config(nvlink?: string): string;
  /** Two units of four Node names (the fabric's hosts, mapped). */
  readonly units: readonly [readonly string[], readonly string[]];
  /** What the domains' names start with: the fabric name. */
  readonly fabric: string;
  /** The leaf group HyperNode of each unit, and the one above both. */
  readonly leafGroups: readonly [string, string];
  readonly spine: string;
  /** The tierNames of the fabric's HyperNodes (legacy mode writes none). */
  readonly tierNames?: { readonly leaf: string; readonly spine: string };
  /** How often the fabric has been read so far (a UFM request, a graph fetch). */
  reads(): number;
}

interface Seen {
  tier: number;
  tierName: string;
  members: string[];
}

function tree(api: ApiServer, source: string): Record<string, Seen> {
  return Object.fromEntries(
    hyperNodes(api, source)
      .map(
        (hn: HyperNode) =>
          [
            hn.metadata.name,
            { tier: hn.spec!.tier, tierName: hn.spec!.tierName ?? '', members: memberNames(hn) },
          ] as const,
      )
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}
const sorted = (o: Record<string, Seen>) =>
  JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
/** Creates, updates and deletes of HyperNodes, sorted; status writes left out. */
const specWrites = (rs: RequestRecord[]) => describeWrites(rs.filter((r) => r.subresource !== 'status')).sort();

/**
 * Every nodeCount and every FabricHealthy of the source caught up with the
 * last spec change, and every write answered: a window opened now sees only
 * the writes of what the test does next.
 */
async function quiet(s: Session, api: ApiServer, source: string, what: string): Promise<void> {
  const judged = (hn: HyperNode) =>
    hn.status?.conditions?.some((c) => c.type === 'FabricHealthy' && c.observedGeneration === hn.metadata.generation);
  await s.converge(
    () => (nodeCountsSettled(api) && hyperNodes(api, source).every(judged)) || undefined,
    `every status caught up: ${what}`,
  );
  await answeredHyperNodeWrites(api);
}

/** The Nodes with their cliques, and the discovery document without nvlink, before the controller starts. */
export function seedNvlinkCluster(api: ApiServer, f: NvlinkFabric): void {
  const [u1, u2] = f.units;
  const cliques: Record<string, string> = {
    [u1[0]!]: `${RACK_A}.1`,
    [u1[1]!]: `${RACK_A}.2`,
    [u1[2]!]: `${RACK_C}.1`,
    [u2[0]!]: `${RACK_B}.1`,
    [u2[1]!]: `${RACK_B}.1`,
    [u2[2]!]: `${RACK_B}.1`,
    [u2[3]!]: `${RACK_C}.1`,
  };
  for (const name of [...u1, ...u2])
    api.store.create(node(name, cliques[name] === undefined ? {} : { [CLIQUE]: cliques[name] }));
  seedConfigMap(api, f.config());
}

/** Steps 1–4 on a cluster seeded by seedNvlinkCluster with the controller running. */
export async function nvlinkScenario(s: Session, api: ApiServer, f: NvlinkFabric): Promise<void> {
  const converge = s.converge.bind(s);
  const [u1, u2] = f.units;
  const [leaf1, leaf2] = f.leafGroups;
  const leafTier = f.tierNames?.leaf ?? '';
  const spineTier = f.tierNames?.spine ?? '';
  const sortedNames = (xs: readonly string[]) => [...xs].sort();
  const domain = (rack: string, leafGroup?: string) => nvlinkHyperNodeName(f.fabric, 'nvl-domain', rack, leafGroup);

  // 1. The fabric tree.
  const fabricTree: Record<string, Seen> = {
    [leaf1]: { tier: 1, tierName: leafTier, members: sortedNames(u1) },
    [leaf2]: { tier: 1, tierName: leafTier, members: sortedNames(u2) },
    [f.spine]: { tier: 2, tierName: spineTier, members: sortedNames([leaf1, leaf2]) },
  };
  await converge(
    () => JSON.stringify(tree(api, f.source)) === sorted(fabricTree) || undefined,
    'the fabric tree without nvlink',
  );
  const before = uidsByName(api, f.source);
  await quiet(s, api, f.source, 'the fabric tree');

  // 2. nvlink on: Node → nvl-domain → leaf group → spine; rack C split per unit.
  api.requests.clear();
  setDiscoveryConfig(api, f.config('domain'));
  const [a, b, c1, c2] = [domain(RACK_A), domain(RACK_B), domain(RACK_C, leaf1), domain(RACK_C, leaf2)];
  const domains = [a, b, c1, c2];
  const withNvlink: Record<string, Seen> = {
    [a]: { tier: 1, tierName: 'nvl-domain', members: sortedNames(u1.slice(0, 2)) },
    [b]: { tier: 1, tierName: 'nvl-domain', members: sortedNames(u2.slice(0, 3)) },
    [c1]: { tier: 1, tierName: 'nvl-domain', members: [u1[2]!] },
    [c2]: { tier: 1, tierName: 'nvl-domain', members: [u2[3]!] },
    [leaf1]: { tier: 2, tierName: leafTier, members: [u1[3]!, ...sortedNames([a, c1])] },
    [leaf2]: { tier: 2, tierName: leafTier, members: sortedNames([b, c2]) },
    [f.spine]: { tier: 3, tierName: spineTier, members: sortedNames([leaf1, leaf2]) },
  };
  await converge(
    () => JSON.stringify(tree(api, f.source)) === sorted(withNvlink) || undefined,
    'the NVLink domains inside the fabric tree',
  );
  assert.equal(
    specWrites(await answeredHyperNodeWrites(api)),
    [...domains.map(() => 'create <new> → 201'), ...[leaf1, leaf2, f.spine].map((n) => `update ${n} → 200`)].sort(),
    'in place',
  );
  const on = uidsByName(api, f.source);
  for (const [name, uid] of before) assert.is(on.get(name), uid, `${name} kept its uid`);
  for (const d of domains)
    assert.is(
      hyperNodes(api, f.source).find((hn) => hn.metadata.name === d)!.metadata.labels?.[CLIQUE],
      d === b ? RACK_B : d === a ? RACK_A : RACK_C,
    );
  const splits = await converge(() => {
    const found = (
      api.store.list('events', NS) as unknown as { reason: string; message: string; count?: number }[]
    ).filter((e) => e.reason === 'NvlinkDomainSplit');
    return found.length > 0 ? found : undefined;
  }, 'the NvlinkDomainSplit Event');
  assert.is(splits.length, 1, 'one Event');
  for (const word of [RACK_C, u1[2]!, u2[3]!, leaf1, leaf2]) assert.match(splits[0]!.message, word);

  // 3. The fourth Node of unit 1 gets rack A's clique: it moves into A, two updates, the fabric is not read.
  await quiet(s, api, f.source, 'the NVLink tree');
  const reads = f.reads();
  api.requests.clear();
  setNodeLabels(api, u1[3]!, { [CLIQUE]: `${RACK_A}.3` });
  const moved = {
    ...withNvlink,
    [a]: { ...withNvlink[a]!, members: sortedNames([...u1.slice(0, 2), u1[3]!]) },
    [leaf1]: { ...withNvlink[leaf1]!, members: sortedNames([a, c1]) },
  };
  await converge(
    () => JSON.stringify(tree(api, f.source)) === sorted(moved) || undefined,
    `${u1[3]} in rack A's domain`,
  );
  assert.equal(
    specWrites(await answeredHyperNodeWrites(api)),
    [`update ${a} → 200`, `update ${leaf1} → 200`].sort(),
    'only the move',
  );
  assert.is(f.reads(), reads, 'no poll of the fabric for a label change');

  // 4. nvlink off: back to the fabric tree in place; the domains deleted.
  await quiet(s, api, f.source, 'the moved Node');
  api.requests.clear();
  setDiscoveryConfig(api, f.config());
  await converge(
    () => JSON.stringify(tree(api, f.source)) === sorted(fabricTree) || undefined,
    'the fabric tree again',
  );
  assert.equal(
    specWrites(await answeredHyperNodeWrites(api)),
    [...domains.map((d) => `delete ${d} → 200`), ...[leaf1, leaf2, f.spine].map((n) => `update ${n} → 200`)].sort(),
    'in place',
  );
  const off = uidsByName(api, f.source);
  for (const [name, uid] of before) assert.is(off.get(name), uid, `${name} still has its uid`);
}
