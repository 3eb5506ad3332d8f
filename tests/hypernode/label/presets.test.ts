// Presets on generated clusters of their label family: every Node carrying
// the family's labels lands in exactly one expanded profile, and the trees
// have the family's tiers and tier names.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { discoverSnapshot } from '../../../src/hypernode/discovery/label/label-grouping.ts';
import { expandPreset, PRESET_NAMES } from '../../../src/hypernode/discovery/label/preset/preset-families.ts';
import { topologyTypes } from '../../../src/hypernode/discovery/label/label-config.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../../../src/hypernode/api/types.ts';
import { nullLogger } from '../../../src/log.ts';
import { FakeInformer } from '../../support/fake-informer.ts';

const SRC = 'volcano.sh/network-topology-source';
const PROFILE = 'volcano.sh/network-topology-profile';
const CLIQUE = 'nvidia.com/gpu.clique';

const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });

/**
 * One line per HyperNode: `profile tier tierName value ← members`, members
 * being Node names at tier 1 and the children's values above; sorted.
 */
function treeLines(config: Record<string, unknown>, nodes: NodeMeta[]): string[] {
  const snap = discoverSnapshot(nodes, topologyTypes({ networkTopologyTypes: config }, nullLogger), new FakeInformer<HyperNode>());
  const valueOf = (h: DiscoveredHyperNode) => Object.entries(h.metadata.labels!).find(([k]) => k !== SRC && k !== PROFILE)![1];
  const byName = new Map(snap.map((h) => [h.metadata.name, h]));
  return snap
    .map((h) => {
      const members = h.spec.members!.map((m) => m.selector!.exactMatch!.name).map((n) => (byName.has(n) ? valueOf(byName.get(n)!) : n));
      return `${h.metadata.labels![PROFILE]} ${h.spec.tier} ${h.spec.tierName} ${valueOf(h)} ← ${members.sort().join(',')}`;
    })
    .sort();
}

/**
 * One line per expanded profile: `name: +key -key → tierName=label ...`, the
 * selector's Exists (+) and DoesNotExist (-) keys, then the levels top first
 * (`-` for the hostname level's empty tier name, `~pattern` for a value pattern).
 */
function expansionLines(preset: string): string[] {
  const out = expandPreset({ name: preset, nodeSelector: undefined, levels: [], preset, nvlink: '' });
  if (typeof out === 'string') throw new Error(out);
  return out.map((p) => {
    const selector = p.nodeSelector!.matchExpressions.map((r) => `${r.operator === 'Exists' ? '+' : '-'}${r.key}`).join(' ');
    const levels = p.levels.map((l) => `${l.tierName || '-'}=${l.nodeLabel}${l.valuePattern ? `~${l.valuePattern}` : ''}`).join(' ');
    return `${p.name}: ${selector} → ${levels}`;
  });
}

test('every preset expands to its label keys and tier names, one profile per depth selecting the deepest key present', () => {
  const H = '-=kubernetes.io/hostname';
  const aws = (n: number) => `aws-layer-${n}=topology.k8s.aws/network-node-layer-${n}`;
  assert.equal(PRESET_NAMES, ['aws', 'gke', 'gke-host', 'k8s-zone', 'nebius', 'nvlink', 'oci', 'topograph', 'topograph-tier-n', 'topograph-v0.1', 'topograph-v0.5']);
  assert.equal(expansionLines('aws'), [
    `aws-1: +topology.k8s.aws/network-node-layer-1 -topology.k8s.aws/network-node-layer-2 → ${aws(1)} ${H}`,
    `aws-2: +topology.k8s.aws/network-node-layer-2 -topology.k8s.aws/network-node-layer-3 → ${aws(1)} ${aws(2)} ${H}`,
    `aws-3: +topology.k8s.aws/network-node-layer-3 -topology.k8s.aws/network-node-layer-4 → ${aws(1)} ${aws(2)} ${aws(3)} ${H}`,
    `aws-4: +topology.k8s.aws/network-node-layer-4 → ${aws(1)} ${aws(2)} ${aws(3)} ${aws(4)} ${H}`,
  ]);
  assert.equal(expansionLines('gke'), [
    `gke-1: +cloud.google.com/gce-topology-block -cloud.google.com/gce-topology-subblock → block=cloud.google.com/gce-topology-block ${H}`,
    `gke-2: +cloud.google.com/gce-topology-subblock → block=cloud.google.com/gce-topology-block sub-block=cloud.google.com/gce-topology-subblock ${H}`,
  ]);
  assert.equal(expansionLines('gke-host'), [
    `gke-host-1: +cloud.google.com/gce-topology-block -cloud.google.com/gce-topology-subblock → block=cloud.google.com/gce-topology-block ${H}`,
    `gke-host-2: +cloud.google.com/gce-topology-subblock -cloud.google.com/gce-topology-host → block=cloud.google.com/gce-topology-block sub-block=cloud.google.com/gce-topology-subblock ${H}`,
    `gke-host-3: +cloud.google.com/gce-topology-host → block=cloud.google.com/gce-topology-block sub-block=cloud.google.com/gce-topology-subblock host=cloud.google.com/gce-topology-host ${H}`,
  ]);
  const tk = (p: string) => `topology.kubernetes.io/${p}`;
  assert.equal(expansionLines('k8s-zone'), [`k8s-zone-1: +${tk('region')} -${tk('zone')} → region=${tk('region')} ${H}`, `k8s-zone-2: +${tk('zone')} → region=${tk('region')} zone=${tk('zone')} ${H}`]);
  const nb = (p: string) => `topology.nebius.com/${p}`;
  assert.equal(expansionLines('nebius'), [
    `nebius-1: +${nb('gpu-cluster-id')} -${nb('tier-2')} → gpu-cluster=${nb('gpu-cluster-id')} ${H}`,
    `nebius-2: +${nb('tier-2')} -${nb('tier-1')} → gpu-cluster=${nb('gpu-cluster-id')} spine=${nb('tier-2')} ${H}`,
    `nebius-3: +${nb('tier-1')} → gpu-cluster=${nb('gpu-cluster-id')} spine=${nb('tier-2')} leaf=${nb('tier-1')} ${H}`,
  ]);
  assert.equal(expansionLines('nvlink'), [`nvlink: +nvidia.com/gpu.clique → nvl-domain=nvidia.com/gpu.clique~^(.+)\\.[0-9]+$ ${H}`]);
  const oci = (p: string) => `oci.oraclecloud.com/rdma.${p}`;
  assert.equal(expansionLines('oci'), [
    `oci-1: +${oci('hpc_island_id')} -${oci('network_block_id')} → hpc-island=${oci('hpc_island_id')} ${H}`,
    `oci-2: +${oci('network_block_id')} -${oci('local_block_id')} → hpc-island=${oci('hpc_island_id')} network-block=${oci('network_block_id')} ${H}`,
    `oci-3: +${oci('local_block_id')} → hpc-island=${oci('hpc_island_id')} network-block=${oci('network_block_id')} local-block=${oci('local_block_id')} ${H}`,
  ]);
  for (const [preset, prefix] of [
    ['topograph', 'fabric.topograph.run/tier-'],
    ['topograph-tier-n', 'network.topology.nvidia.com/tier-'],
  ] as const) {
    assert.equal(expansionLines(preset), [
      `${preset}-1: +${prefix}0 -${prefix}1 → leaf=${prefix}0 ${H}`,
      `${preset}-2: +${prefix}1 -${prefix}2 → spine=${prefix}1 leaf=${prefix}0 ${H}`,
      `${preset}-3: +${prefix}2 -${prefix}3 → core=${prefix}2 spine=${prefix}1 leaf=${prefix}0 ${H}`,
      `${preset}-4: +${prefix}3 → super-core=${prefix}3 core=${prefix}2 spine=${prefix}1 leaf=${prefix}0 ${H}`,
    ]);
  }
  const nv = (p: string) => `network.topology.nvidia.com/${p}`;
  assert.equal(expansionLines('topograph-v0.1'), [
    `topograph-v0.1-1: +${nv('block')} -${nv('spine')} → leaf=${nv('block')} ${H}`,
    `topograph-v0.1-2: +${nv('spine')} -${nv('datacenter')} → spine=${nv('spine')} leaf=${nv('block')} ${H}`,
    `topograph-v0.1-3: +${nv('datacenter')} → core=${nv('datacenter')} spine=${nv('spine')} leaf=${nv('block')} ${H}`,
  ]);
  assert.equal(expansionLines('topograph-v0.5'), [
    `topograph-v0.5-1: +${nv('leaf')} -${nv('spine')} → leaf=${nv('leaf')} ${H}`,
    `topograph-v0.5-2: +${nv('spine')} -${nv('core')} → spine=${nv('spine')} leaf=${nv('leaf')} ${H}`,
    `topograph-v0.5-3: +${nv('core')} → core=${nv('core')} spine=${nv('spine')} leaf=${nv('leaf')} ${H}`,
  ]);
});

test('topograph (fabric.topograph.run/tier-N, closest first): one profile per depth, tier-0 is always tier 1', () => {
  const k = (n: number) => `fabric.topograph.run/tier-${n}`;
  const nodes = [
    node('a0', { [k(0)]: 'S-a', [k(1)]: 'S-x', [k(2)]: 'S-core' }),
    node('a1', { [k(0)]: 'S-a', [k(1)]: 'S-x', [k(2)]: 'S-core' }),
    node('b0', { [k(0)]: 'S-b', [k(1)]: 'S-y' }),
    node('c0', { [k(0)]: 'S-c' }),
    node('plain', {}),
  ];
  assert.equal(treeLines({ tg: { preset: 'topograph' } }, nodes), [
    'tg-1 1 leaf S-c ← c0',
    'tg-2 1 leaf S-b ← b0',
    'tg-2 2 spine S-y ← S-b',
    'tg-3 1 leaf S-a ← a0,a1',
    'tg-3 2 spine S-x ← S-a',
    'tg-3 3 core S-core ← S-x',
  ]);
});

test('topograph generations: v0.5 leaf/spine/core, v0.1 block/spine/datacenter, and the tier-N keys between', () => {
  const v05 = (p: string) => `network.topology.nvidia.com/${p}`;
  const nodes = [node('n0', { [v05('leaf')]: 'l0', [v05('spine')]: 's0', [v05('core')]: 'c0' }), node('n1', { [v05('leaf')]: 'l1', [v05('spine')]: 's0' })];
  assert.equal(treeLines({ old: { preset: 'topograph-v0.5' } }, nodes), ['old-2 1 leaf l1 ← n1', 'old-2 2 spine s0 ← l1', 'old-3 1 leaf l0 ← n0', 'old-3 2 spine s0 ← l0', 'old-3 3 core c0 ← s0']);
  const v01 = [node('n0', { [v05('block')]: 'b0', [v05('spine')]: 's0', [v05('datacenter')]: 'd0' })];
  assert.equal(treeLines({ older: { preset: 'topograph-v0.1' } }, v01), ['older-3 1 leaf b0 ← n0', 'older-3 2 spine s0 ← b0', 'older-3 3 core d0 ← s0']);
  const tn = [node('n0', { [v05('tier-0')]: 't0', [v05('tier-1')]: 't1' })];
  assert.equal(treeLines({ tn: { preset: 'topograph-tier-n' } }, tn), ['tn-2 1 leaf t0 ← n0', 'tn-2 2 spine t1 ← t0']);
});

test('aws: 3- and 4-layer instance types each get their own tree, tier 1 the deepest layer', () => {
  const l = (n: number) => `topology.k8s.aws/network-node-layer-${n}`;
  const nodes = [
    node('p5-0', { [l(1)]: 'nn-1', [l(2)]: 'nn-2', [l(3)]: 'nn-3a' }),
    node('p5-1', { [l(1)]: 'nn-1', [l(2)]: 'nn-2', [l(3)]: 'nn-3b' }),
    node('b200-0', { [l(1)]: 'nn-1', [l(2)]: 'nn-2', [l(3)]: 'nn-3c', [l(4)]: 'nn-4' }),
  ];
  assert.equal(treeLines({ aws: { preset: 'aws' } }, nodes), [
    'aws-3 1 aws-layer-3 nn-3a ← p5-0',
    'aws-3 1 aws-layer-3 nn-3b ← p5-1',
    'aws-3 2 aws-layer-2 nn-2 ← nn-3a,nn-3b',
    'aws-3 3 aws-layer-1 nn-1 ← nn-2',
    'aws-4 1 aws-layer-4 nn-4 ← b200-0',
    'aws-4 2 aws-layer-3 nn-3c ← nn-4',
    'aws-4 3 aws-layer-2 nn-2 ← nn-3c',
    'aws-4 4 aws-layer-1 nn-1 ← nn-2',
  ]);
});

test('gke block/sub-block (and gke-host down to the host), oci island/network block/local block', () => {
  const g = (p: string) => `cloud.google.com/gce-topology-${p}`;
  const nodes = [node('a0', { [g('block')]: 'b1', [g('subblock')]: 'sb1', [g('host')]: 'h1' }), node('a1', { [g('block')]: 'b1', [g('subblock')]: 'sb2', [g('host')]: 'h2' })];
  assert.equal(treeLines({ gke: { preset: 'gke' } }, nodes), ['gke-2 1 sub-block sb1 ← a0', 'gke-2 1 sub-block sb2 ← a1', 'gke-2 2 block b1 ← sb1,sb2']);
  assert.equal(treeLines({ g: { preset: 'gke-host' } }, nodes).filter((l) => l.includes(' host ')), ['g-3 1 host h1 ← a0', 'g-3 1 host h2 ← a1']);
  const o = (p: string) => `oci.oraclecloud.com/rdma.${p}`;
  const oci = [node('o0', { [o('hpc_island_id')]: 'isl', [o('network_block_id')]: 'nb', [o('local_block_id')]: 'lb0' }), node('o1', { [o('hpc_island_id')]: 'isl', [o('network_block_id')]: 'nb', [o('local_block_id')]: 'lb1' })];
  assert.equal(treeLines({ oci: { preset: 'oci' } }, oci), ['oci-3 1 local-block lb0 ← o0', 'oci-3 1 local-block lb1 ← o1', 'oci-3 2 network-block nb ← lb0,lb1', 'oci-3 3 hpc-island isl ← nb']);
});

test('nebius: GPU cluster above tier-2 above tier-1, tier 1 the leaf', () => {
  const nb = (p: string) => `topology.nebius.com/${p}`;
  const at = (leaf: string, spine: string) => ({ [nb('gpu-cluster-id')]: 'computegpucluster-e00a', [nb('tier-2')]: spine, [nb('tier-1')]: leaf });
  const nodes = [node('h0', at('l0', 's0')), node('h1', at('l0', 's0')), node('h2', at('l1', 's0')), node('h3', at('l2', 's1')), node('cpu', {})];
  assert.equal(treeLines({ nebius: { preset: 'nebius' } }, nodes), [
    'nebius-3 1 leaf l0 ← h0,h1',
    'nebius-3 1 leaf l1 ← h2',
    'nebius-3 1 leaf l2 ← h3',
    'nebius-3 2 spine s0 ← l0,l1',
    'nebius-3 2 spine s1 ← l2',
    'nebius-3 3 gpu-cluster computegpucluster-e00a ← s0,s1',
  ]);
  // A tier-1 value reused under another tier-2 (Nebius does not promise uniqueness) fails the run instead of merging the two leaves.
  const reused = [node('h0', at('l0', 's0')), node('h3', at('l0', 's1'))];
  assert.throws(() => treeLines({ nebius: { preset: 'nebius' } }, reused), /in profile nebius-3 belongs to multiple parents/);
});

test('nvlink: alone, the NVLink domain (ClusterUUID) or the partition; beside a family, an extra lowest tier for Nodes with a clique', () => {
  const u = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';
  const nodes = [node('g0', { [CLIQUE]: `${u}.1` }), node('g1', { [CLIQUE]: `${u}.2` })];
  assert.equal(treeLines({ nvl: { preset: 'nvlink' } }, nodes), [`nvl 1 nvl-domain ${u} ← g0,g1`]);
  assert.equal(treeLines({ nvl: { preset: 'nvlink', nvlink: 'partition' } }, nodes), [`nvl 1 nvl-partition ${u}.1 ← g0`, `nvl 1 nvl-partition ${u}.2 ← g1`]);
  const l = (n: number) => `topology.k8s.aws/network-node-layer-${n}`;
  const aws = { [l(1)]: 'nn-1', [l(2)]: 'nn-2', [l(3)]: 'nn-3' };
  const mixed = [node('gb0', { ...aws, [CLIQUE]: `${u}.1` }), node('gb1', { ...aws, [CLIQUE]: `${u}.1` }), node('gb2-pending', aws)];
  assert.equal(treeLines({ aws: { preset: 'aws', nvlink: 'domain' } }, mixed), [
    'aws-3 1 aws-layer-3 nn-3 ← gb2-pending',
    'aws-3 2 aws-layer-2 nn-2 ← nn-3',
    'aws-3 3 aws-layer-1 nn-1 ← nn-2',
    `aws-3n 1 nvl-domain ${u} ← gb0,gb1`,
    `aws-3n 2 aws-layer-3 nn-3 ← ${u}`,
    'aws-3n 3 aws-layer-2 nn-2 ← nn-3',
    'aws-3n 4 aws-layer-1 nn-1 ← nn-2',
  ]);
});

test('a nodeSelector beside a preset narrows every expanded profile', () => {
  const k = 'fabric.topograph.run/tier-0';
  const nodes = [node('a', { [k]: 'S-1', pool: 'train' }), node('b', { [k]: 'S-1', pool: 'infer' })];
  assert.equal(treeLines({ tg: { preset: 'topograph', nodeSelector: { matchLabels: { pool: 'train' } } } }, nodes), ['tg-1 1 leaf S-1 ← a']);
});

test('preset mistakes are configuration errors naming the profile', () => {
  const error = (config: Record<string, unknown>) => {
    try {
      topologyTypes({ networkTopologyTypes: config }, nullLogger);
      return 'no error';
    } catch (err) {
      return (err as Error).message;
    }
  };
  assert.match(error({ x: { preset: 'azure' } }), /^invalid topology profile "x": unknown preset "azure" \(known presets: aws, gke, gke-host, k8s-zone, nebius, nvlink, oci, topograph, /);
  assert.match(error({ x: { preset: 'aws', levels: [{ nodeLabel: 'a' }] } }), /^invalid topology profile "x": preset "aws" brings its own levels/);
  assert.match(error({ x: { preset: 'aws', nvlink: 'rack' } }), /^invalid topology profile "x": nvlink "rack" is none of domain, partition/);
  assert.match(error({ x: { levels: [{ nodeLabel: 'a' }, { nodeLabel: 'kubernetes.io/hostname' }], nvlink: 'domain' } }), /nvlink is a preset option/);
  assert.match(error({ 'a-very-long-name12': { preset: 'aws', nvlink: 'domain' } }), /^topology profile name "a-very-long-name12-1n" exceeds 20 characters/);
  assert.match(error({ aws: { preset: 'aws' }, 'aws-3': { levels: [{ nodeLabel: 'a' }, { nodeLabel: 'kubernetes.io/hostname' }] } }), /preset profile "aws-3" has the name of another profile/);
});

test.run();
