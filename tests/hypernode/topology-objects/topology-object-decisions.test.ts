// What one pass decides for a kind (topology-object-decisions.ts) against
// what the API server serves: the newest version at which `topologies` are
// served is written, whatever the group's other kinds serve (Kueue 0.9 to
// 0.13: Topology only at v1alpha1), with that version's level limit (16 for
// Kueue v1beta2 and KAI, 8 for Kueue v1beta1 and v1alpha1); discovery asked
// per resource; and the Nodes still lacking the labels a create needs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../src/hypernode/config/loader.ts';
import { buildWithTierName } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { TopologyObjectClient } from '../../../src/hypernode/model/contracts.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { decideTopologyObjects } from '../../../src/hypernode/reconcile/topology-objects/topology-object-decisions.ts';
import { TOPOLOGY_KINDS } from '../../../src/hypernode/reconcile/topology-objects/topology-object-specs.ts';

const P = 'topo.example.com';
const [KUEUE, KAI] = TOPOLOGY_KINDS as [(typeof TOPOLOGY_KINDS)[number], (typeof TOPOLOGY_KINDS)[number]];
const CONFIG = parseConfig(
  `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    exports:\n      nodeLabels: {prefix: ${P}}\n      kueueTopology: true\n      kaiTopology: true\n    config:\n      networkTopologyTypes:\n        t:\n          - nodeLabel: a\n`,
);

/** A chain of `depth` tiers over Nodes n0 and n1. */
function chain(depth: number): DiscoveredHyperNode[] {
  return Array.from({ length: depth }, (_, i) =>
    buildWithTierName(
      `t${i}`,
      i + 1,
      `l${i}`,
      i === 0
        ? ['n0', 'n1'].map((name) => ({ type: 'Node' as const, selector: { exactMatch: { name } } }))
        : [{ type: 'HyperNode' as const, selector: { exactMatch: { name: `t${i - 1}` } } }],
      {},
    ),
  );
}

/** A server serving `topologies` of each group at the given versions; records discovery questions. */
function server(served: Record<string, string[]>) {
  const asked: string[] = [];
  const client: Pick<TopologyObjectClient, 'servedVersions' | 'list'> = {
    async servedVersions(group, resource) {
      asked.push(`${group} ${resource}`);
      return served[group] ?? [];
    },
    list: async () => [],
  };
  return { client, asked };
}

const nodes = (labels: Record<string, string> = {}): NodeMeta[] => ['n0', 'n1'].map((name) => ({ metadata: { name, labels } }));

test('the newest version serving topologies is written, with its level limit', async () => {
  const twelve = new Map([['label', chain(11)]]);
  const cases: Array<[string[], string, number]> = [
    [['v1beta2', 'v1beta1'], 'v1beta2', 0],
    [['v1beta1', 'v1alpha1'], 'v1beta1', 1],
    [['v1alpha1'], 'v1alpha1', 1],
  ];
  for (const [versions, want, refused] of cases) {
    const { client, asked } = server({ 'kueue.x-k8s.io': versions });
    const d = await decideTopologyObjects(KUEUE, CONFIG, twelve, client, nodes());
    assert.ok(d.served);
    if (!d.served) continue;
    assert.is(d.version, want, versions.join());
    assert.is(d.sources[0]!.errors.length, refused, `${want}: 12 levels ${refused ? 'refused' : 'written'}`);
    assert.equal(asked, ['kueue.x-k8s.io topologies'], 'discovery is asked about the resource, not the group');
  }
  const kai = await decideTopologyObjects(KAI, CONFIG, twelve, server({ 'kai.scheduler': ['v1alpha1'] }).client, nodes());
  assert.ok(kai.served && kai.sources[0]!.changes[0]!.levels!.length === 12, 'KAI takes 12');
  const none = await decideTopologyObjects(KUEUE, CONFIG, twelve, server({}).client, nodes());
  assert.equal(none, {
    served: false,
    wanted: true,
    message: 'The Kueue Topology CRD (kueue.x-k8s.io, versions v1beta2, v1beta1, v1alpha1) is not served; no Kueue Topology is written until it is',
  });
});

test('a create counts the Nodes still lacking the labels its levels name', async () => {
  const { client } = server({ 'kueue.x-k8s.io': ['v1beta2'] });
  const snapshots = new Map([['label', chain(2)]]);
  const lacking = await decideTopologyObjects(KUEUE, CONFIG, snapshots, client, nodes({ [`${P}/l0`]: 't0' }));
  assert.ok(lacking.served && lacking.sources[0]!.labelsPending === 2);
  const labelled = await decideTopologyObjects(KUEUE, CONFIG, snapshots, client, nodes({ [`${P}/l0`]: 't0', [`${P}/l1`]: 't1' }));
  assert.ok(labelled.served && labelled.sources[0]!.labelsPending === 0);
});

test.run();
