// Label discovery runs with profiles: node-to-profile assignment, profile-
// scoped domains, names and adoption, the profile label, and the fail-closed
// conditions (the run throws, so the discoverer publishes nothing).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { discoverSnapshot } from '../../../../../src/hypernode/discovery/label/label-grouping.ts';
import { topologyTypes, type TopologyType } from '../../../../../src/hypernode/discovery/label/label-config.ts';
import { profileHyperNodeName } from '../../../../../src/hypernode/discovery/label/name-book.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../../../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../../../src/log.ts';
import { FakeInformer } from '../../../../support/fake-informer.ts';
import { MIXED_CONFIG, MIXED_UUIDS as UUID, mixedNodes } from '../../../../../testing/mixed-cluster.ts';

const SRC = 'volcano.sh/network-topology-source';
const PROFILE = 'volcano.sh/network-topology-profile';
const HOST = { nodeLabel: 'kubernetes.io/hostname' };
const HN = 'example.com/hypernode-domain';
const SP = 'example.com/superpod-domain';
const HC = 'example.com/hypercluster-domain';
const DEPTH = 'example.com/depth';

const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const types = (networkTopologyTypes: Record<string, unknown>): TopologyType[] =>
  topologyTypes({ networkTopologyTypes }, nullLogger);
const run = (nodes: NodeMeta[], t: TopologyType[], existing: HyperNode[] = []) =>
  discoverSnapshot(nodes, t, new FakeInformer<HyperNode>({ initial: existing }));
const members = (hn: DiscoveredHyperNode) => hn.spec.members!.map((m) => m.selector!.exactMatch!.name);
const failure = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

// The shallow/deep pair of the upstream unit tests: one physical label in two profiles.
const shallowDeep = types({
  topologyshallow: {
    nodeSelector: { matchLabels: { [DEPTH]: 'shallow' } },
    levels: [{ nodeLabel: HN, tierName: 'volcano.sh/hypernode' }, HOST],
  },
  topologydeep: {
    nodeSelector: { matchLabels: { [DEPTH]: 'deep' } },
    levels: [
      { nodeLabel: HC, tierName: 'volcano.sh/hypercluster' },
      { nodeLabel: HN, tierName: 'volcano.sh/hypernode' },
      { nodeLabel: SP, tierName: 'volcano.sh/superpod' },
      HOST,
    ],
  },
});
const shallowDeepNodes = [
  node('s0', { [DEPTH]: 'shallow', [HN]: 'hn-0' }),
  node('s1', { [DEPTH]: 'shallow', [HN]: 'hn-0' }),
  node('d0', { [DEPTH]: 'deep', [HN]: 'hn-0', [SP]: 'sp-0', [HC]: 'hc-0' }),
  node('d1', { [DEPTH]: 'deep', [HN]: 'hn-0', [SP]: 'sp-1', [HC]: 'hc-0' }),
];

test('one label value in two profiles gives two independent HyperNodes at their own tiers, each with its profile label', () => {
  const snap = run(shallowDeepNodes, shallowDeep);
  const byName = new Map(snap.map((h) => [h.metadata.name, h]));
  const shallowHn = byName.get('hypernode-topologyshallow-tier1-70fc021d49ff')!;
  const deepHn = byName.get('hypernode-topologydeep-tier2-eb5899446642')!;
  assert.ok(shallowHn && deepHn, [...byName.keys()].join(', '));
  assert.equal(shallowHn.metadata.labels, { [SRC]: 'label', [PROFILE]: 'topologyshallow', [HN]: 'hn-0' });
  assert.equal(
    [shallowHn.spec.tier, shallowHn.spec.tierName, members(shallowHn)],
    [1, 'volcano.sh/hypernode', ['s0', 's1']],
  );
  assert.equal(deepHn.metadata.labels, { [SRC]: 'label', [PROFILE]: 'topologydeep', [HN]: 'hn-0' });
  assert.equal([deepHn.spec.tier, deepHn.spec.tierName], [2, 'volcano.sh/hypernode']);
  assert.is(snap.length, 1 + 2 + 1 + 1, 'shallow hn, deep sp-0 and sp-1, deep hn, deep hc');
  const top = snap.find((h) => h.spec.tier === 3)!;
  assert.equal([top.spec.tierName, members(top)], ['volcano.sh/hypercluster', [deepHn.metadata.name]]);
  assert.ok(snap.every((h) => h.metadata.labels![PROFILE] !== undefined));
  assert.equal(run([...shallowDeepNodes].reverse(), shallowDeep), snap, 'repeatable and independent of Node order');
});

test('an explicit owner excludes selector-less profiles and legacy lists; without one every candidate applies', () => {
  const t = types({
    legacy: [{ nodeLabel: 'rack' }, HOST],
    open: { levels: [{ nodeLabel: 'rack' }, HOST] },
    owned: { nodeSelector: { matchLabels: { pool: 'a' } }, levels: [{ nodeLabel: 'rack' }, HOST] },
  });
  const snap = run([node('n1', { pool: 'a', rack: 'r1' }), node('n2', { rack: 'r1' })], t);
  const profileOf = (n: string) =>
    snap
      .filter((h) => members(h).includes(n))
      .map((h) => h.metadata.labels![PROFILE] ?? 'legacy')
      .sort();
  assert.equal(profileOf('n1'), ['owned']);
  assert.equal(profileOf('n2'), ['legacy', 'open']);
  const legacyHn = snap.find((h) => h.metadata.labels![PROFILE] === undefined)!;
  assert.match(
    legacyHn.metadata.name,
    /^hypernode-legacy-tier1-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
    'legacy naming unchanged',
  );
});

test('a selector-less profile needs the tier-1 label and allows partial chains', () => {
  const t = types({ open: { levels: [{ nodeLabel: 'spine' }, { nodeLabel: 'rack' }, HOST] } });
  const snap = run([node('n1', { rack: 'r1' }), node('n2', { spine: 's1' })], t);
  assert.equal(
    snap.map((h) => [h.spec.tier, members(h)]),
    [[1, ['n1']]],
  );
});

test('fail closed: a Node selected by two explicit profiles', () => {
  const t = types({
    a: {
      nodeSelector: { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] },
      levels: [{ nodeLabel: 'rack' }, HOST],
    },
    b: { nodeSelector: { matchLabels: { gpu: 'h100' } }, levels: [{ nodeLabel: 'rack' }, HOST] },
  });
  assert.equal(run([node('n0', { gpu: 'gb200', rack: 'r' })], t).length, 1, 'no overlap on this Node');
  assert.is(
    failure(() => run([node('n0', { gpu: 'gb200', rack: 'r' }), node('n1', { gpu: 'h100', rack: 'r' })], t)),
    'node n1 matches multiple topology profiles: a and b',
  );
});

test('fail closed: a Node of an explicit profile lacking a level, or whose value misses the pattern', () => {
  const t = types({
    p: {
      nodeSelector: {},
      levels: [{ nodeLabel: 'spine' }, { nodeLabel: 'clique', valuePattern: '^(.+)\\.[0-9]+$' }, HOST],
    },
  });
  assert.is(
    failure(() => run([node('n0', { clique: 'u.1', spine: 's' }), node('n1', { clique: 'u.2' })], t)),
    'node n1 selected by topology profile p is missing level label spine',
  );
  assert.is(
    failure(() => run([node('n0', { clique: 'u', spine: 's' })], t)),
    'node n0 selected by topology profile p is missing level label clique: its value "u" does not match valuePattern "^(.+)\\\\.[0-9]+$"',
  );
});

test('fail closed: a domain under two parents, in any profile kind; legacy lists keep listing it in both', () => {
  const nodes = [node('n0', { rack: 'r1', spine: 's1' }), node('n1', { rack: 'r1', spine: 's2' })];
  const open = types({ open: { levels: [{ nodeLabel: 'spine' }, { nodeLabel: 'rack' }, HOST] } });
  const rack = profileHyperNodeName('open', 'rack', 'r1', 1);
  assert.is(
    failure(() => run(nodes, open)),
    `HyperNode ${rack} in profile open belongs to multiple parents: ${profileHyperNodeName('open', 'spine', 's1', 2)} and ${profileHyperNodeName('open', 'spine', 's2', 2)} (node n1 puts rack=r1 under spine=s2, node n0 under spine=s1)`,
  );
  assert.is(run(nodes, types({ legacy: [{ nodeLabel: 'spine' }, { nodeLabel: 'rack' }, HOST] })).length, 3);
});

test("adoption: an object of the same profile prefix without a profile label (legacy-made) or with this profile is kept; another profile's is not", () => {
  const t = types({ p: { nodeSelector: {}, levels: [{ nodeLabel: 'rack' }, HOST] } });
  const hn = (name: string, labels: Record<string, string>): HyperNode => ({
    metadata: { name, labels: { [SRC]: 'label', ...labels } },
    spec: { tier: 1 },
  });
  const legacyMade = [
    hn('hypernode-p-tier1-zzzzz', { rack: 'r1' }),
    hn('hypernode-p-tier1-bbbbb', { rack: 'r1', [PROFILE]: 'other' }),
  ];
  assert.equal(
    run([node('n0', { rack: 'r1' })], t, legacyMade).map((h) => h.metadata.name),
    ['hypernode-p-tier1-zzzzz'],
  );
  const ufm = [hn('hypernode-p-tier1-aaaaa', { rack: 'r1' })];
  ufm[0]!.metadata.labels![SRC] = 'ufm';
  assert.equal(
    run([node('n0', { rack: 'r1' })], t, ufm).map((h) => h.metadata.name),
    [profileHyperNodeName('p', 'rack', 'r1', 1)],
    'another source is never adopted',
  );
  assert.equal(
    run([node('n0', { rack: 'r1' })], t, [hn('hypernode-p-tier10-aaaaa', { rack: 'r1' })]).map((h) => h.metadata.name),
    [profileHyperNodeName('p', 'rack', 'r1', 1)],
    'tier1 does not adopt tier10',
  );
});

test('fail closed: the deterministic name is held by an object of another domain', () => {
  const t = types({ p: { nodeSelector: {}, levels: [{ nodeLabel: 'rack' }, HOST] } });
  const name = profileHyperNodeName('p', 'rack', 'r1', 1);
  const squatter: HyperNode = { metadata: { name, labels: { [SRC]: 'label', rack: 'r2' } }, spec: { tier: 1 } };
  assert.is(
    failure(() => run([node('n0', { rack: 'r1' })], t, [squatter])),
    `build HyperNode for profile p: deterministic HyperNode name ${name} is already used by a different topology domain (node n0, rack=r1)`,
  );
});

test('mixed H100 + GB200: independent trees with the right tiers, tierNames, members and profile labels', () => {
  const snap = run(mixedNodes(), types(MIXED_CONFIG));
  const of = (profile: string) => snap.filter((h) => h.metadata.labels![PROFILE] === profile);
  const shape = (profile: string) =>
    of(profile)
      .map((h) => [
        h.spec.tier,
        h.spec.tierName,
        Object.entries(h.metadata.labels!).find(([k]) => k !== SRC && k !== PROFILE)![1],
        members(h).length,
      ])
      .sort();
  assert.equal(shape('h100'), [
    [1, 'leaf', 'leaf-h0', 4],
    [1, 'leaf', 'leaf-h1', 4],
    [2, 'spine', 'spine-h', 2],
  ]);
  assert.equal(
    shape('gb200'),
    [
      [1, 'nvl-domain', UUID[1], 3],
      [1, 'nvl-domain', UUID[0], 4],
      [2, 'leaf', 'leaf-g0', 2],
      [3, 'spine', 'spine-g', 1],
    ].sort(),
  );
  assert.equal(shape('gb200-pending'), [
    [1, 'leaf', 'leaf-g0', 1],
    [2, 'spine', 'spine-g', 1],
  ]);
  const nvl = of('gb200').find((h) => h.metadata.labels!['nvidia.com/gpu.clique'] === UUID[0])!;
  assert.equal(
    members(nvl),
    ['gb200-0', 'gb200-1', 'gb200-2', 'gb200-3'],
    'both partitions of the rack in one NVLink domain',
  );
  assert.equal(members(of('gb200-pending').find((h) => h.spec.tier === 1)!), ['gb200-7']);
  // Three roots, one per profile: the trees never share a HyperNode.
  const children = new Set(snap.flatMap((h) => (h.spec.tier > 1 ? members(h) : [])));
  assert.equal(
    snap
      .filter((h) => !children.has(h.metadata.name))
      .map((h) => h.metadata.labels![PROFILE])
      .sort(),
    ['gb200', 'gb200-pending', 'h100'],
  );
  assert.is(snap.length, 3 + 4 + 2);
});

test.run();
