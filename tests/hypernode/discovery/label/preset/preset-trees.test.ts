// Presets on clusters labelled as each vendor documents it, with mixed
// depths: each tierName sits at one tier number in the whole output (what a
// released Volcano scheduler needs), Nodes sharing a level value share one
// HyperNode whether or not they carry a deeper label, domains whose values
// are unique only under their parent are keyed by it, and a Node whose
// labels do not fit is left out with its labels named while the rest is placed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { discoverTopology } from '../../../../../src/hypernode/discovery/label/label-grouping.ts';
import { topologyTypes } from '../../../../../src/hypernode/discovery/label/label-config.ts';
import { PRESET_NAMES } from '../../../../../src/hypernode/discovery/label/preset/preset-families.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../../../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../../../src/log.ts';
import { FakeInformer } from '../../../../support/fake-informer.ts';

const SRC = 'volcano.sh/network-topology-source';
const PROFILE = 'volcano.sh/network-topology-profile';
const CLIQUE = 'nvidia.com/gpu.clique';
const UUID = ['7b968a6d-c8aa-45e1-9e07-e1e51be99c31', '0f3c1e2a-5b6d-4e7f-8a9b-0c1d2e3f4a5b'];

const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const run = (config: Record<string, unknown>, nodes: NodeMeta[], existing: HyperNode[] = []) =>
  discoverTopology(
    nodes,
    topologyTypes({ networkTopologyTypes: config }, nullLogger),
    new FakeInformer<HyperNode>({ initial: existing }),
  );

/** The domain label's `key=value` of a HyperNode. */
const domainOf = (h: DiscoveredHyperNode) =>
  Object.entries(h.metadata.labels!)
    .find(([k]) => k !== SRC && k !== PROFILE)!
    .join('=');

/**
 * One line per HyperNode, `tier tierName key=value ← members`, members being
 * Node names and the children's `key=value`; sorted. Checks on the way that
 * each tierName has one tier.
 */
function tree(snapshot: readonly DiscoveredHyperNode[]): string[] {
  const byName = new Map(snapshot.map((h) => [h.metadata.name, h]));
  const tierOf = new Map<string, number>();
  for (const h of snapshot) {
    const seen = tierOf.get(h.spec.tierName!);
    assert.ok(
      seen === undefined || seen === h.spec.tier,
      `tierName ${h.spec.tierName} at tiers ${seen} and ${h.spec.tier}`,
    );
    tierOf.set(h.spec.tierName!, h.spec.tier);
  }
  return snapshot
    .map((h) => {
      const members = h.spec.members.map((m) => {
        const name = m.selector!.exactMatch!.name;
        assert.is(m.type, byName.has(name) ? 'HyperNode' : 'Node', `member type of ${name}`);
        return byName.has(name) ? domainOf(byName.get(name)!) : name;
      });
      return `${h.spec.tier} ${h.spec.tierName} ${domainOf(h)} ← ${members.sort().join(',')}`;
    })
    .sort();
}

test('the preset list', () => {
  assert.equal(PRESET_NAMES, [
    'aws',
    'coreweave',
    'gke',
    'gke-host',
    'k8s-zone',
    'nebius',
    'nvlink',
    'oci',
    'topograph',
    'topograph-accel',
    'topograph-tier-n',
    'topograph-v0.1',
    'topograph-v0.5',
  ]);
});

test('topograph with nvlink: domain: a leaf holds Nodes with and without a clique; tiers above tier-3 are kept; each tierName one tier', () => {
  const k = (n: number) => `fabric.topograph.run/tier-${n}`;
  const fabric = (leaf: string, spine: string, extra: Record<string, string> = {}) => ({
    [k(0)]: leaf,
    [k(1)]: spine,
    [k(2)]: 'S-core0',
    ...extra,
  });
  const nodes = [
    node('gb200-0', { ...fabric('S-0001', 'S-1001'), [CLIQUE]: `${UUID[0]}.1` }),
    node('gb200-1', { ...fabric('S-0001', 'S-1001'), [CLIQUE]: `${UUID[0]}.2` }),
    node('gb200-2', fabric('S-0001', 'S-1001')), // fabric manager not finished: no clique yet
    node('h100-0', fabric('S-0002', 'S-1002', { [k(3)]: 'S-3000', [k(4)]: 'S-4000' })),
    node('cpu-0', {}),
  ];
  const t = run({ fabric: { preset: 'topograph', nvlink: 'domain' } }, nodes);
  assert.equal(tree(t.snapshot), [
    `1 nvl-domain nvidia.com/gpu.clique=${UUID[0]} ← gb200-0,gb200-1`,
    `2 leaf fabric.topograph.run/tier-0=S-0001 ← gb200-2,nvidia.com/gpu.clique=${UUID[0]}`,
    '2 leaf fabric.topograph.run/tier-0=S-0002 ← h100-0',
    '3 spine fabric.topograph.run/tier-1=S-1001 ← fabric.topograph.run/tier-0=S-0001',
    '3 spine fabric.topograph.run/tier-1=S-1002 ← fabric.topograph.run/tier-0=S-0002',
    '4 core fabric.topograph.run/tier-2=S-core0 ← fabric.topograph.run/tier-1=S-1001,fabric.topograph.run/tier-1=S-1002',
    '5 super-core fabric.topograph.run/tier-3=S-3000 ← fabric.topograph.run/tier-2=S-core0',
    '6 tier-4 fabric.topograph.run/tier-4=S-4000 ← fabric.topograph.run/tier-3=S-3000',
  ]);
  assert.equal(t.uncovered, []);
  assert.equal(t.ambiguous, []);
  // When the clique appears on gb200-2, the leaf keeps its name; only members move.
  const leafName = (s: readonly DiscoveredHyperNode[]) =>
    s.find((h) => domainOf(h) === `${k(0)}=S-0001`)!.metadata.name;
  const later = run({ fabric: { preset: 'topograph', nvlink: 'domain' } }, [
    ...nodes.slice(0, 2),
    node('gb200-2', { ...fabric('S-0001', 'S-1001'), [CLIQUE]: `${UUID[0]}.2` }),
    ...nodes.slice(3),
  ]);
  assert.is(leafName(later.snapshot), leafName(t.snapshot));
  assert.equal(new Set(later.snapshot.map((h) => h.metadata.name)), new Set(t.snapshot.map((h) => h.metadata.name)));
});

test('topograph: a Node with a gap, only a top tier, or an empty clique is left out and named; every other Node is placed', () => {
  const k = (n: number) => `fabric.topograph.run/tier-${n}`;
  const nodes = [
    node('good', { [k(0)]: 'S-a', [k(1)]: 'S-x' }),
    node('gap', { [k(0)]: 'S-a', [k(2)]: 'S-core' }),
    node('top-only', { [k(2)]: 'S-core' }),
    node('empty-clique', { [k(0)]: 'S-a', [k(1)]: 'S-x', [CLIQUE]: '' }),
    node('bad-clique', { [k(0)]: 'S-a', [k(1)]: 'S-x', [CLIQUE]: 'not-a-clique' }),
  ];
  const t = run({ tg: { preset: 'topograph', nvlink: 'domain' } }, nodes);
  assert.equal(tree(t.snapshot), [
    '2 leaf fabric.topograph.run/tier-0=S-a ← good',
    '3 spine fabric.topograph.run/tier-1=S-x ← fabric.topograph.run/tier-0=S-a',
  ]);
  assert.equal(t.uncovered, [
    {
      name: 'bad-clique',
      reason: 'bad-value',
      why: 'its nvidia.com/gpu.clique=not-a-clique is not of the form <ClusterUUID>.<CliqueID> (preset profile tg)',
      preset: true,
    },
    {
      name: 'empty-clique',
      reason: 'empty-value',
      why: 'its nvidia.com/gpu.clique is empty (preset profile tg)',
      preset: true,
    },
    {
      name: 'gap',
      reason: 'missing-level',
      why: 'it carries fabric.topograph.run/tier-0=S-a and fabric.topograph.run/tier-2=S-core but no fabric.topograph.run/tier-1 between them (preset profile tg)',
      preset: true,
    },
    {
      name: 'top-only',
      reason: 'missing-level',
      why: 'it carries fabric.topograph.run/tier-2=S-core but no fabric.topograph.run/tier-0 (preset profile tg)',
      preset: true,
    },
  ]);
});

test('topograph generations and the accelerator keys: old tier-N keys with network.topology.nvidia.com/accelerator, v1 domain/sub-domain', () => {
  const nv = (p: string) => `network.topology.nvidia.com/${p}`;
  const nodes = [
    node('a', { [nv('tier-0')]: 't0', [nv('tier-1')]: 't1', [nv('accelerator')]: `${UUID[1]}.3` }),
    node('b', { [nv('tier-0')]: 't0', [nv('tier-1')]: 't1' }),
  ];
  assert.equal(tree(run({ tn: { preset: 'topograph-tier-n', nvlink: 'domain' } }, nodes).snapshot), [
    `1 nvl-domain ${nv('accelerator')}=${UUID[1]} ← a`,
    `2 leaf ${nv('tier-0')}=t0 ← b,${nv('accelerator')}=${UUID[1]}`,
    `3 spine ${nv('tier-1')}=t1 ← ${nv('tier-0')}=t0`,
  ]);
  const v05 = [
    node('n0', { [nv('leaf')]: 'l0', [nv('spine')]: 's0', [nv('core')]: 'c0' }),
    node('n1', { [nv('leaf')]: 'l1', [nv('spine')]: 's0' }),
  ];
  assert.equal(tree(run({ old: { preset: 'topograph-v0.5' } }, v05).snapshot), [
    `1 leaf ${nv('leaf')}=l0 ← n0`,
    `1 leaf ${nv('leaf')}=l1 ← n1`,
    `2 spine ${nv('spine')}=s0 ← ${nv('leaf')}=l0,${nv('leaf')}=l1`,
    `3 core ${nv('core')}=c0 ← ${nv('spine')}=s0`,
  ]);
  const acc = (p: string) => `accelerator.topograph.run/${p}`;
  const oci = [
    node('bm-0', { [acc('domain')]: 'gmf-1', [acc('sub-domain')]: 'gmf-1.r1' }),
    node('bm-1', { [acc('domain')]: 'gmf-1', [acc('sub-domain')]: 'gmf-1.r2' }),
    node('bm-2', { [acc('domain')]: 'gmf-1' }),
  ];
  assert.equal(tree(run({ acc: { preset: 'topograph-accel' } }, oci).snapshot), [
    `1 nvl-sub-domain ${acc('sub-domain')}=gmf-1.r1 ← bm-0`,
    `1 nvl-sub-domain ${acc('sub-domain')}=gmf-1.r2 ← bm-1`,
    `2 nvl-domain ${acc('domain')}=gmf-1 ← ${acc('sub-domain')}=gmf-1.r1,${acc('sub-domain')}=gmf-1.r2,bm-2`,
  ]);
});

test('aws: 3-layer (p5) and 4-layer (p6-b200) instances under shared layers: aws-layer-3 is tier 2 for both; UltraServer as NVLink domain', () => {
  const l = (n: number) => `topology.k8s.aws/network-node-layer-${n}`;
  const top = { [l(1)]: 'nn-e50490a237cb0f01a', [l(2)]: 'nn-2b0d4f3a6c1e59870' };
  const nodes = [
    node('p5-0', { ...top, [l(3)]: 'nn-3a' }),
    node('p5-1', { ...top, [l(3)]: 'nn-3a' }),
    node('p6-b200-0', { ...top, [l(3)]: 'nn-3c', [l(4)]: 'nn-4a' }),
    node('p6-b200-1', { ...top, [l(3)]: 'nn-3c', [l(4)]: 'nn-4b' }),
    node('broken', { [l(1)]: 'nn-e50490a237cb0f01a' }),
  ];
  const t = run({ aws: { preset: 'aws' } }, nodes);
  assert.equal(tree(t.snapshot), [
    `1 aws-layer-4 ${l(4)}=nn-4a ← p6-b200-0`,
    `1 aws-layer-4 ${l(4)}=nn-4b ← p6-b200-1`,
    `2 aws-layer-3 ${l(3)}=nn-3a ← p5-0,p5-1`,
    `2 aws-layer-3 ${l(3)}=nn-3c ← ${l(4)}=nn-4a,${l(4)}=nn-4b`,
    `3 aws-layer-2 ${l(2)}=nn-2b0d4f3a6c1e59870 ← ${l(3)}=nn-3a,${l(3)}=nn-3c`,
    `4 aws-layer-1 ${l(1)}=nn-e50490a237cb0f01a ← ${l(2)}=nn-2b0d4f3a6c1e59870`,
  ]);
  assert.equal(
    t.uncovered.map((u) => `${u.name} ${u.reason}`),
    ['broken missing-level'],
  );
  assert.match(t.uncovered[0]!.why, `it carries ${l(1)}=nn-e50490a237cb0f01a but no ${l(3)}`);
  const us = 'topology.k8s.aws/ultraserver-id';
  const gb = [
    node('gb-0', { ...top, [l(3)]: 'nn-3g', [us]: 'us-1' }),
    node('gb-1', { ...top, [l(3)]: 'nn-3g', [CLIQUE]: `${UUID[0]}.1` }),
    node('gb-2', { ...top, [l(3)]: 'nn-3g' }),
  ];
  assert.equal(tree(run({ aws: { preset: 'aws', nvlink: 'domain' } }, gb).snapshot), [
    `1 nvl-domain ${CLIQUE}=${UUID[0]} ← gb-1`,
    `1 nvl-domain ${us}=us-1 ← gb-0`,
    `3 aws-layer-3 ${l(3)}=nn-3g ← gb-2,${CLIQUE}=${UUID[0]},${us}=us-1`,
    `4 aws-layer-2 ${l(2)}=nn-2b0d4f3a6c1e59870 ← ${l(3)}=nn-3g`,
    `5 aws-layer-1 ${l(1)}=nn-e50490a237cb0f01a ← ${l(2)}=nn-2b0d4f3a6c1e59870`,
  ]);
});

test('k8s-zone stacks above a cloud preset; zone-only Nodes (CPU pools) are not part of it; it cannot sit above open-depth topograph', () => {
  const l = (n: number) => `topology.k8s.aws/network-node-layer-${n}`;
  const zone = { 'topology.kubernetes.io/region': 'us-east-1', 'topology.kubernetes.io/zone': 'us-east-1a' };
  const nodes = [node('p5-0', { ...zone, [l(1)]: 'nn-1', [l(2)]: 'nn-2', [l(3)]: 'nn-3' }), node('cpu-0', zone)];
  const t = run({ aws: { preset: ['k8s-zone', 'aws'] } }, nodes);
  assert.equal(tree(t.snapshot), [
    `2 aws-layer-3 ${l(3)}=nn-3 ← p5-0`,
    `3 aws-layer-2 ${l(2)}=nn-2 ← ${l(3)}=nn-3`,
    `4 aws-layer-1 ${l(1)}=nn-1 ← ${l(2)}=nn-2`,
    `5 zone topology.kubernetes.io/zone=us-east-1a ← ${l(1)}=nn-1`,
    '6 region topology.kubernetes.io/region=us-east-1 ← topology.kubernetes.io/zone=us-east-1a',
  ]);
  assert.equal(t.uncovered, []);
  assert.throws(
    () => run({ tg: { preset: ['k8s-zone', 'topograph'] } }, []),
    /k8s-zone cannot sit above topograph, whose depth is open/,
  );
  assert.throws(() => run({ x: { preset: ['aws', 'k8s-zone'] } }, []), /presets stack only as \[k8s-zone, <preset>\]/);
  assert.throws(
    () => run({ zones: { preset: 'k8s-zone' }, aws: { preset: 'aws' } }, nodes),
    /^node p5-0 matches multiple topology profiles: aws and zones; a Node belongs to one preset profile: stack zones above a vendor preset with preset: \[k8s-zone, <preset>\]/,
  );
});

test('gke (block, sub-block) and gke-host, oci (hpc island, network block, local block) from their documented labels', () => {
  const g = (p: string) => `cloud.google.com/gce-topology-${p}`;
  const nodes = [
    node('a3-0', { [g('block')]: 'b-3d8f', [g('subblock')]: 'sb-11', [g('host')]: 'h-01' }),
    node('a3-1', { [g('block')]: 'b-3d8f', [g('subblock')]: 'sb-11', [g('host')]: 'h-02' }),
    node('a3-2', { [g('block')]: 'b-3d8f', [g('subblock')]: 'sb-12', [g('host')]: 'h-03' }),
    node('a3-3', { [g('block')]: 'b-3d8f' }),
  ];
  const t = run({ gke: { preset: 'gke' } }, nodes);
  assert.equal(tree(t.snapshot), [
    `1 sub-block ${g('subblock')}=sb-11 ← a3-0,a3-1`,
    `1 sub-block ${g('subblock')}=sb-12 ← a3-2`,
    `2 block ${g('block')}=b-3d8f ← ${g('subblock')}=sb-11,${g('subblock')}=sb-12`,
  ]);
  assert.equal(
    t.uncovered.map((u) => u.name),
    ['a3-3'],
  );
  assert.equal(
    tree(run({ g: { preset: 'gke-host' } }, nodes.slice(0, 3)).snapshot).filter((x) => x.startsWith('1 ')),
    [`1 host ${g('host')}=h-01 ← a3-0`, `1 host ${g('host')}=h-02 ← a3-1`, `1 host ${g('host')}=h-03 ← a3-2`],
  );
  const o = (p: string) => `oci.oraclecloud.com/rdma.${p}`;
  const oci = [
    node('bm-0', {
      [o('hpc_island_id')]: 'isl1',
      [o('network_block_id')]: '7xmzl4p4wba',
      [o('local_block_id')]: '4tjxbt4s6ua',
    }),
    node('bm-1', {
      [o('hpc_island_id')]: 'isl1',
      [o('network_block_id')]: '7xmzl4p4wba',
      [o('local_block_id')]: '5abcd4s6ua',
    }),
  ];
  assert.equal(tree(run({ oci: { preset: 'oci' } }, oci).snapshot), [
    `1 local-block ${o('local_block_id')}=4tjxbt4s6ua ← bm-0`,
    `1 local-block ${o('local_block_id')}=5abcd4s6ua ← bm-1`,
    `2 network-block ${o('network_block_id')}=7xmzl4p4wba ← ${o('local_block_id')}=4tjxbt4s6ua,${o('local_block_id')}=5abcd4s6ua`,
    `3 hpc-island ${o('hpc_island_id')}=isl1 ← ${o('network_block_id')}=7xmzl4p4wba`,
  ]);
  const gmf = 'oci.oraclecloud.com/host.gpu_memory_fabric_id';
  assert.equal(
    tree(
      run({ oci: { preset: 'oci', nvlink: 'domain' } }, [node('gb-0', { ...oci[0]!.metadata.labels, [gmf]: 'gmf-a' })])
        .snapshot,
    )[0],
    `1 nvl-domain ${gmf}=gmf-a ← gb-0`,
  );
});

test('nebius with and without tier-0: a tier-1 value reused under two tier-2 switches is two leaves; gpu-cluster has one tier', () => {
  const nb = (p: string) => `topology.nebius.com/${p}`;
  const at = (leaf: string, spine: string, extra: Record<string, string> = {}) => ({
    [nb('gpu-cluster-id')]: 'computegpucluster-e00a',
    [nb('tier-2')]: spine,
    [nb('tier-1')]: leaf,
    ...extra,
  });
  const nodes = [
    node('gb200-0', at('l0', 's0', { [nb('tier-0')]: 'nvl-a' })),
    node('gb200-1', at('l0', 's0', { [nb('tier-0')]: 'nvl-a' })),
    node('h200-0', at('l0', 's0')),
    node('h200-1', at('l0', 's1')),
    node('cluster-only', { [nb('gpu-cluster-id')]: 'computegpucluster-e00a' }),
  ];
  const t = run({ nebius: { preset: 'nebius', nvlink: 'domain' } }, nodes);
  assert.equal(tree(t.snapshot), [
    `1 nvl-domain ${nb('tier-0')}=nvl-a ← gb200-0,gb200-1`,
    `2 leaf ${nb('tier-1')}=l0 ← h200-0,${nb('tier-0')}=nvl-a`,
    `2 leaf ${nb('tier-1')}=l0 ← h200-1`,
    `3 spine ${nb('tier-2')}=s0 ← ${nb('tier-1')}=l0`,
    `3 spine ${nb('tier-2')}=s1 ← ${nb('tier-1')}=l0`,
    `4 gpu-cluster ${nb('gpu-cluster-id')}=computegpucluster-e00a ← ${nb('tier-2')}=s0,${nb('tier-2')}=s1`,
  ]);
  assert.equal(
    t.uncovered.map((u) => `${u.name} ${u.reason}`),
    ['cluster-only missing-level'],
  );
});

test('coreweave: numbered superpods, leaf groups and racks are keyed by their parents; names are stable', () => {
  const cw = {
    fabric: 'ib.coreweave.cloud/fabric',
    superpod: 'ib.coreweave.cloud/superpod',
    leafgroup: 'ib.coreweave.cloud/leafgroup',
    rack: 'node.coreweave.cloud/rack',
  };
  const at = (superpod: string, leafgroup: string, rack?: string) => ({
    [cw.fabric]: 'us-east-04a-ib',
    [cw.superpod]: superpod,
    [cw.leafgroup]: leafgroup,
    ...(rack ? { [cw.rack]: rack } : {}),
  });
  const nodes = [
    node('g0', at('1', '3', '3')),
    node('g1', at('1', '3', '3')),
    node('g2', at('2', '3', '3')),
    node('g3', at('2', '4')),
  ];
  const t = run({ cw: { preset: 'coreweave' } }, nodes);
  assert.equal(tree(t.snapshot), [
    `1 rack ${cw.rack}=3 ← g0,g1`,
    `1 rack ${cw.rack}=3 ← g2`,
    `2 leaf-group ${cw.leafgroup}=3 ← ${cw.rack}=3`,
    `2 leaf-group ${cw.leafgroup}=3 ← ${cw.rack}=3`,
    `2 leaf-group ${cw.leafgroup}=4 ← g3`,
    `3 superpod ${cw.superpod}=1 ← ${cw.leafgroup}=3`,
    `3 superpod ${cw.superpod}=2 ← ${cw.leafgroup}=3,${cw.leafgroup}=4`,
    `4 fabric ${cw.fabric}=us-east-04a-ib ← ${cw.superpod}=1,${cw.superpod}=2`,
  ]);
  const again = run({ cw: { preset: 'coreweave' } }, [...nodes].reverse());
  assert.equal(
    again.snapshot.map((h) => h.metadata.name),
    t.snapshot.map((h) => h.metadata.name),
  );
  const nvl = 'ds.coreweave.com/nvlink.domain';
  assert.equal(
    tree(
      run({ cw: { preset: 'coreweave', nvlink: 'domain' } }, [node('gb0', { ...at('1', '3', '7'), [nvl]: 'nvl-17' })])
        .snapshot,
    )[0],
    `1 nvl-domain ${nvl}=nvl-17 ← gb0`,
  );
});

test('a domain under a second parent leaves the later Node out, naming both Nodes and labels', () => {
  const l = (n: number) => `topology.k8s.aws/network-node-layer-${n}`;
  const nodes = [
    node('a', { [l(1)]: 'nn-1', [l(2)]: 'nn-2', [l(3)]: 'nn-3' }),
    node('b', { [l(1)]: 'nn-1', [l(2)]: 'nn-9', [l(3)]: 'nn-3' }),
  ];
  const t = run({ aws: { preset: 'aws' } }, nodes);
  assert.equal(t.uncovered, [
    {
      name: 'b',
      reason: 'conflicting-parent',
      why: `its ${l(3)}=nn-3 is under ${l(2)}=nn-9, but Node a puts it under ${l(2)}=nn-2 (preset profile aws)`,
      preset: true,
    },
  ]);
  assert.equal(tree(t.snapshot)[0], `2 aws-layer-3 ${l(3)}=nn-3 ← a`);
});

test('a hash name held by an object of another domain leaves the Node out instead of failing the run', () => {
  const k = 'fabric.topograph.run/tier-0';
  const first = run({ tg: { preset: 'topograph' } }, [node('a', { [k]: 'S-1' })]).snapshot[0]!;
  const squatter: HyperNode = {
    metadata: { name: first.metadata.name, labels: { [SRC]: 'label', [k]: 'S-other' } },
    spec: { tier: 1, members: [] },
  };
  const t = run({ tg: { preset: 'topograph' } }, [node('a', { [k]: 'S-1' }), node('b', { [k]: 'S-2' })], [squatter]);
  assert.equal(
    t.uncovered.map((u) => `${u.name} ${u.reason}`),
    ['a name-taken'],
  );
  assert.match(t.uncovered[0]!.why, `for its ${k}=S-1 is held by an existing HyperNode of another domain`);
  assert.equal(tree(t.snapshot), [`1 leaf ${k}=S-2 ← b`]);
});

test('names count what the user wrote; preset profiles that would put one tierName at two tiers are refused; mistakes name the profile', () => {
  const error = (config: Record<string, unknown>) => {
    try {
      topologyTypes({ networkTopologyTypes: config }, nullLogger);
      return 'no error';
    } catch (err) {
      return (err as Error).message;
    }
  };
  assert.is(error({ 'a-very-long-name1234': { preset: 'aws', nvlink: 'domain' } }), 'no error');
  assert.match(
    error({ 'a-very-long-name12345': { preset: 'aws' } }),
    /^topology profile name "a-very-long-name12345" exceeds 20 characters/,
  );
  assert.match(
    error({
      h100: { preset: 'topograph', nodeSelector: { matchLabels: { gpu: 'h100' } } },
      gb200: { preset: 'topograph', nvlink: 'domain', nodeSelector: { matchLabels: { gpu: 'gb200' } } },
    }),
    /^preset profiles "gb200" and "h100" put tierName "leaf" at tier 2 and tier 1; released Volcano schedulers keep one tier per tierName/,
  );
  assert.match(
    error({ x: { preset: 'azure' } }),
    /^invalid topology profile "x": unknown preset "azure" \(known presets: aws, coreweave, gke, /,
  );
  assert.match(
    error({ x: { preset: 'aws', levels: [{ nodeLabel: 'a' }] } }),
    /^invalid topology profile "x": preset "aws" brings its own levels/,
  );
  assert.match(
    error({ x: { preset: 'aws', nvlink: 'rack' } }),
    /^invalid topology profile "x": nvlink "rack" is none of domain, partition/,
  );
  assert.match(
    error({ x: { levels: [{ nodeLabel: 'a' }, { nodeLabel: 'kubernetes.io/hostname' }], nvlink: 'domain' } }),
    /nvlink is a preset option/,
  );
});

test('a nodeSelector beside a preset narrows it; nvlink alone gives the domain or the partition', () => {
  const k = 'fabric.topograph.run/tier-0';
  assert.equal(
    tree(
      run({ tg: { preset: 'topograph', nodeSelector: { matchLabels: { pool: 'train' } } } }, [
        node('a', { [k]: 'S-1', pool: 'train' }),
        node('b', { [k]: 'S-1', pool: 'infer' }),
      ]).snapshot,
    ),
    [`1 leaf ${k}=S-1 ← a`],
  );
  const nodes = [node('g0', { [CLIQUE]: `${UUID[0]}.1` }), node('g1', { [CLIQUE]: `${UUID[0]}.2` })];
  assert.equal(tree(run({ nvl: { preset: 'nvlink' } }, nodes).snapshot), [`1 nvl-domain ${CLIQUE}=${UUID[0]} ← g0,g1`]);
  assert.equal(tree(run({ nvl: { preset: 'nvlink', nvlink: 'partition' } }, nodes).snapshot), [
    `1 nvl-partition ${CLIQUE}=${UUID[0]}.1 ← g0`,
    `1 nvl-partition ${CLIQUE}=${UUID[0]}.2 ← g1`,
  ]);
  // A ClusterUUID part that could not label a HyperNode (it ends in '-') leaves the Node out instead of breaking the
  // snapshot.
  const odd = run({ nvl: { preset: 'nvlink' } }, [...nodes, node('odd', { [CLIQUE]: 'abc-.1' })]);
  assert.equal(
    odd.uncovered.map((u) => `${u.name} ${u.reason}`),
    ['odd bad-value'],
  );
  assert.is(odd.snapshot.length, 1);
});

test('hand-written profiles keep their per-profile tiers, and the run reports a tierName they give two tier numbers', () => {
  const HOST = { nodeLabel: 'kubernetes.io/hostname' };
  const t = run(
    {
      h100: { nodeSelector: { matchLabels: { gpu: 'h100' } }, levels: [{ nodeLabel: 'leaf', tierName: 'leaf' }, HOST] },
      gb200: {
        nodeSelector: { matchLabels: { gpu: 'gb200' } },
        levels: [{ nodeLabel: 'leaf', tierName: 'leaf' }, { nodeLabel: 'clique', tierName: 'nvl' }, HOST],
      },
    },
    [node('h', { gpu: 'h100', leaf: 'l1' }), node('g', { gpu: 'gb200', leaf: 'l2', clique: 'c' })],
  );
  assert.equal(t.ambiguous, [{ tierName: 'leaf', tiers: [1, 2], types: ['gb200', 'h100'] }]);
});

test.run();
