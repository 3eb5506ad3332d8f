// What follows a fabric tree with the NVLink tier (one UFM fabric of two
// units, two racks' domains and a Node whose clique is not published yet):
// the Node labels of exports.nodeLabels and the Kueue and KAI Topology
// levels carry nvl-domain between the hostname and the leaf; `kubectl
// hypernode why` says why a Node is in its domain (its clique, not cables);
// the tree and the HTML view show the tier with the ClusterUUID as the
// domain; and NodesReady rolls up through the domains to the leaf groups and
// the spine.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import type { FabricGraph } from '../../../../src/hypernode/discovery/fabric/fabric-graph.ts';
import { parseNvlinkConfig, type NvlinkConfig } from '../../../../src/hypernode/discovery/fabric/nvlink-config.ts';
import { nvlinkHyperNodeName, nvlinkTier } from '../../../../src/hypernode/discovery/fabric/nvlink-tier.ts';
import { UFM_FABRIC_LABEL } from '../../../../src/hypernode/model/hypernode-labels.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { renderHyperNodeTree } from '../../../../src/hypernode/preview/hypernode-tree.ts';
import { nodeMemberships } from '../../../../src/hypernode/exports/view/node-membership.ts';
import { topologyView } from '../../../../src/hypernode/exports/view/topology-model.ts';
import { desiredNodeLabels } from '../../../../src/hypernode/exports/node-labels/node-label-values.ts';
import { desiredTopologies } from '../../../../src/hypernode/exports/topology-objects/topology-object-specs.ts';
import { NODES_READY } from '../../../../src/hypernode/reconcile/health/conditions.ts';
import { nullLogger } from '../../../../src/log.ts';
import { health, rig } from '../../reconcile/health/health-rig.ts';
import { hostLink, swLink } from './fabric-links.ts';

const CLIQUE = 'nvidia.com/gpu.clique';
const RACK_A = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';
const RACK_B = '52c0ab5e-1f0e-4a3c-9d6b-2f8e7a1c0b93';
const P = 'topology.example.com';
const OWNED = { 'volcano.sh/network-topology-source': 'ufm', [UFM_FABRIC_LABEL]: 'pod' };

/** Unit 1: n0, n1 (rack A) and n2 (no clique yet) on leaf l1; unit 2: n4–n7 (rack B) on leaf l2; spine s. */
const GRAPH: FabricGraph = {
  switches: ['l1', 'l2', 's'].map((id) => ({ id, name: id.toUpperCase() })),
  hosts: ['n0', 'n1', 'n2', 'n4', 'n5', 'n6', 'n7'].map((name) => ({ name })),
  links: [
    ...['n0', 'n1', 'n2'].map((h) => hostLink(h, 'l1')),
    ...['n4', 'n5', 'n6', 'n7'].map((h) => hostLink(h, 'l2')),
    swLink('l1', 's'),
    swLink('l2', 's'),
  ],
};
const NODES: NodeMeta[] = ['n0', 'n1', 'n2', 'n4', 'n5', 'n6', 'n7'].map((name) => ({
  metadata: {
    name,
    labels: {
      'kubernetes.io/hostname': name,
      ...(name === 'n2' ? {} : { [CLIQUE]: `${name < 'n3' ? RACK_A : RACK_B}.1` }),
    },
  },
}));

function snapshot(): DiscoveredHyperNode[] {
  const base = fabricHyperNodes({
    graph: GRAPH,
    fabric: 'pod',
    source: 'ufm',
    labels: { [UFM_FABRIC_LABEL]: 'pod' },
    mapHost: (h) => h,
    logger: nullLogger,
  }).snapshot;
  const labels = new Map(NODES.map((n) => [n.metadata.name, n.metadata.labels?.[CLIQUE]]));
  return [
    ...nvlinkTier({
      base,
      fabric: 'pod',
      config: parseNvlinkConfig('domain') as NvlinkConfig,
      labels: OWNED,
      labelOf: (n) => labels.get(n),
    }).snapshot,
  ];
}
const A = nvlinkHyperNodeName('pod', 'nvl-domain', RACK_A);
const B = nvlinkHyperNodeName('pod', 'nvl-domain', RACK_B);

test('Node labels: nvl-domain on the Nodes of a domain, leaf and spine on all; Kueue and KAI levels spine, leaf, nvl-domain, hostname', () => {
  const labels = desiredNodeLabels(P, snapshot(), NODES);
  assert.equal(Object.fromEntries(labels.get('n0')!), {
    [`${P}/leaf`]: 'pod-leaf-l1',
    [`${P}/nvl-domain`]: A,
    [`${P}/spine`]: 'pod-spine-s',
  });
  assert.equal(
    Object.fromEntries(labels.get('n2')!),
    { [`${P}/leaf`]: 'pod-leaf-l1', [`${P}/spine`]: 'pod-spine-s' },
    'no clique yet: no domain label',
  );
  const kueue = desiredTopologies('ufm', P, snapshot(), {
    holder: 'Kueue Topology kueue.x-k8s.io/v1beta2',
    maxLevels: 16,
    alias: false,
  });
  const keys = [`${P}/spine`, `${P}/leaf`, `${P}/nvl-domain`, 'kubernetes.io/hostname'];
  assert.equal([...kueue.levels], [['hypernode-ufm', keys.map((nodeLabel) => ({ nodeLabel }))]]);
  assert.equal(kueue.errors, []);
  const kai = desiredTopologies('ufm', P, snapshot(), {
    holder: 'KAI Topology kai.scheduler/v1alpha1',
    maxLevels: 16,
    alias: true,
  });
  const aliases = ['spine', 'leaf', 'nvl-domain', undefined];
  assert.equal(
    [...kai.levels],
    [['hypernode-ufm', keys.map((nodeLabel, i) => (aliases[i] ? { nodeLabel, alias: aliases[i] } : { nodeLabel }))]],
    'KAI names the NVLink level by its tierName',
  );
  assert.equal(kai.errors, []);
});

test('why: the domain holds the Node by its clique, the leaf group and spine through it', () => {
  const memberships = nodeMemberships(NODES[0]!, snapshot());
  assert.equal(
    memberships.map((m) => [m.hyperNode, m.tier, m.tierName, m.through]),
    [
      [A, 1, 'nvl-domain', undefined],
      ['pod-leaf-l1', 2, 'leaf', A],
      ['pod-spine-s', 3, 'spine', 'pod-leaf-l1'],
    ],
  );
  assert.equal(memberships[0]!.reasons, [
    `member by name (exactMatch n0)`,
    `label ${CLIQUE}=${RACK_A}.1 (grouped as ${RACK_A})`,
    "NVLink nvl-domain inside a leaf group of UFM fabric pod: its Nodes share the domain and that group's switches",
  ]);
  // The Node without a clique is held by its leaf group directly, for its cables.
  assert.equal(nodeMemberships(NODES[2]!, snapshot())[0]!.reasons, [
    'member by name (exactMatch n2)',
    "UFM fabric pod: the Node's host ports link to the switches of this group",
  ]);
});

test('the tree and the HTML view show the nvl-domain tier, the domain by its ClusterUUID', () => {
  const s = snapshot();
  assert.equal(renderHyperNodeTree(s).split('\n'), [
    'pod-spine-s  tier=3 (spine)  nodeCount=0',
    '├─ pod-leaf-l1  tier=2 (leaf)  nodeCount=0  nodes: n2',
    `│  └─ ${A}  tier=1 (nvl-domain)  nodeCount=0  nodes: n0, n1`,
    '└─ pod-leaf-l2  tier=2 (leaf)  nodeCount=0',
    `   └─ ${B}  tier=1 (nvl-domain)  nodeCount=0  nodes: n4, n5, n6, n7`,
  ]);
  const view = topologyView('render', s, NODES);
  assert.equal(
    view.levels.map((l) => [l.tierName, l.tiers, l.labelKeys]),
    [
      ['spine', [3], []],
      ['leaf', [2], []],
      ['nvl-domain', [1], [CLIQUE]],
    ],
  );
  const a = view.hyperNodes.find((h) => h.name === A)!;
  assert.equal([a.domain, a.domainLabel, a.fabric, a.nodes], [RACK_A, CLIQUE, 'pod', ['n0', 'n1']]);
});

test('NodesReady rolls up through the domains: a NotReady Node of rack A marks its domain, its leaf group and the spine, not rack B', async () => {
  const r = rig(snapshot());
  try {
    await r.settle(() => r.condition('pod-spine-s', NODES_READY)?.status === 'True', 'every HyperNode judged');
    r.nodes.apply(health('n1', 'False'));
    await r.settle(() => r.condition('pod-spine-s', NODES_READY)?.status === 'False', 'the spine marked');
    assert.equal(
      [A, 'pod-leaf-l1', 'pod-spine-s', B, 'pod-leaf-l2'].map((n) => r.condition(n, NODES_READY)?.status),
      ['False', 'False', 'False', 'True', 'True'],
    );
    assert.match(r.condition('pod-leaf-l1', NODES_READY)!.message, 'n1 (NotReady)');
  } finally {
    await r.stop();
  }
});

test.run();
