import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { discoverSnapshot } from '../../../../src/hypernode/discovery/label/label-grouping.ts';
import {
  NameBook,
  cleanTypeName,
  derivedSuffix,
  namePrefix,
  SUFFIX_ALPHABET,
} from '../../../../src/hypernode/discovery/label/name-book.ts';
import { buildMembers } from '../../../../src/hypernode/model/hypernode-builders.ts';
import type { TopologyType } from '../../../../src/hypernode/discovery/label/label-config.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';

const HN = 'volcano.sh/hypernode';
const HC = 'volcano.sh/hypercluster';
const SRC = 'volcano.sh/network-topology-source';
const A3: TopologyType = { name: 'topologyA3', tiers: [HN, HC] };
const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const exactNames = (hn: HyperNode) => hn.spec!.members!.map((m) => m.selector!.exactMatch!.name);

const guideNodes = [
  node('node0', { [HN]: 's0', [HC]: 's4' }),
  node('node1', { [HN]: 's0', [HC]: 's4' }),
  node('node2', { [HN]: 's1', [HC]: 's4' }),
  node('node3', { [HN]: 's1', [HC]: 's4' }),
  node('node4', { [HN]: 's2', [HC]: 's5' }),
  node('node5', { [HN]: 's2', [HC]: 's5' }),
  node('node6', { [HN]: 's3', [HC]: 's5' }),
  node('node7', { [HN]: 's3', [HC]: 's5' }),
];
const NAME = /^hypernode-topologya3-tier([12])-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

function byLabel(snapshot: HyperNode[], key: string, value: string): HyperNode {
  const hn = snapshot.find((h) => h.metadata.labels?.[key] === value);
  assert.ok(hn, `no HyperNode for ${key}=${value}`);
  return hn!;
}

test('user-guide example: six HyperNodes with tiers, tierNames, labels and sorted members', () => {
  const snap = discoverSnapshot(guideNodes, [A3], new FakeInformer<HyperNode>());
  assert.is(snap.length, 6);
  for (const hn of snap) assert.match(hn.metadata.name, NAME);
  const leaves = ['s0', 's1', 's2', 's3'].map((v) => byLabel(snap, HN, v));
  leaves.forEach((hn, i) => {
    assert.equal(hn.metadata.labels, { [SRC]: 'label', [HN]: `s${i}` });
    assert.is(hn.spec!.tier, 1);
    assert.is(hn.spec!.tierName, HN);
    assert.ok(hn.metadata.name.startsWith('hypernode-topologya3-tier1-'));
    assert.equal(hn.spec!.members, buildMembers([`node${2 * i}`, `node${2 * i + 1}`], 'Node'));
    assert.is(hn.status, undefined);
  });
  const s4 = byLabel(snap, HC, 's4');
  assert.equal(s4.metadata.labels, { [SRC]: 'label', [HC]: 's4' });
  assert.is(s4.spec!.tier, 2);
  assert.is(s4.spec!.tierName, HC);
  assert.equal(exactNames(s4), [leaves[0]!.metadata.name, leaves[1]!.metadata.name].sort());
  assert.ok(s4.spec!.members!.every((m) => m.type === 'HyperNode'));
  assert.equal(exactNames(byLabel(snap, HC, 's5')), [leaves[2]!.metadata.name, leaves[3]!.metadata.name].sort());
});

test('the next run over the created objects reuses every name', () => {
  const first = discoverSnapshot(guideNodes, [A3], new FakeInformer<HyperNode>());
  const second = discoverSnapshot(guideNodes, [A3], new FakeInformer({ initial: first }));
  assert.equal(second, first);
});

test('two discoverers over the same input agree on names (no randomness)', () => {
  const a = discoverSnapshot(guideNodes, [A3], new FakeInformer<HyperNode>());
  const b = discoverSnapshot([...guideNodes].reverse(), [A3], new FakeInformer<HyperNode>());
  assert.equal(a, b);
});

test('names made by the Go controller are adopted (same names, no churn)', () => {
  const goNames: Record<string, string> = {
    s0: 'hypernode-topologya3-tier1-x7k2q',
    s1: 'hypernode-topologya3-tier1-bbbbb',
    s2: 'hypernode-topologya3-tier1-zz9z9',
    s3: 'hypernode-topologya3-tier1-m4n5p',
    s4: 'hypernode-topologya3-tier2-q2w4r',
    s5: 'hypernode-topologya3-tier2-d6f7g',
  };
  const existing: HyperNode[] = Object.entries(goNames).map(([v, name]) => ({
    metadata: { name, labels: { [SRC]: 'label', [['s4', 's5'].includes(v) ? HC : HN]: v } },
    spec: { tier: 1 },
  }));
  const snap = discoverSnapshot(guideNodes, [A3], new FakeInformer({ initial: existing }));
  for (const [v, name] of Object.entries(goNames))
    assert.is(byLabel(snap, ['s4', 's5'].includes(v) ? HC : HN, v).metadata.name, name);
  assert.equal(exactNames(byLabel(snap, HC, 's4')), [goNames.s1!, goNames.s0!].sort());
});

test('adoption picks the smallest matching name and ignores other sources and prefixes', () => {
  const hn = (name: string, labels: Record<string, string>): HyperNode => ({
    metadata: { name, labels },
    spec: { tier: 1 },
  });
  const cache = new FakeInformer({
    initial: [
      hn('hypernode-topologya3-tier1-zzzzz', { [SRC]: 'label', [HN]: 's0' }),
      hn('hypernode-topologya3-tier1-ccccc', { [SRC]: 'label', [HN]: 's0' }),
      hn('hypernode-topologya3-tier1-bbbbb', { [SRC]: 'ufm', [HN]: 's0' }),
      hn('hypernode-other-tier1-bbbbb', { [SRC]: 'label', [HN]: 's0' }),
    ],
  });
  assert.is(new NameBook(cache).choose(new Set(), 'topologyA3', HN, 's0', 1), 'hypernode-topologya3-tier1-ccccc');
});

test('tier1 does not adopt a tier10 name (prefix includes the dash)', () => {
  const cache = new FakeInformer<HyperNode>({
    initial: [
      { metadata: { name: 'hypernode-t-tier10-bbbbb', labels: { [SRC]: 'label', k: 'v' } }, spec: { tier: 10 } },
    ],
  });
  const name = new NameBook(cache).choose(new Set(), 't', 'k', 'v', 1);
  assert.ok(name.startsWith('hypernode-t-tier1-'));
  assert.is.not(name, 'hypernode-t-tier10-bbbbb');
  assert.is(new NameBook(cache).choose(new Set(), 't', 'k', 'v', 10), 'hypernode-t-tier10-bbbbb');
});

test('a collision with the cache or this run takes the next derived candidate', () => {
  const first = namePrefix('t', 1) + derivedSuffix('t', 1, 'k', 'v', 0);
  const second = namePrefix('t', 1) + derivedSuffix('t', 1, 'k', 'v', 1);
  assert.is.not(first, second);
  const cache = new FakeInformer<HyperNode>({
    initial: [{ metadata: { name: first, labels: { [SRC]: 'ufm' } }, spec: { tier: 1 } }],
  });
  assert.is(new NameBook(cache).choose(new Set(), 't', 'k', 'v', 1), second);
  assert.is(new NameBook(new FakeInformer<HyperNode>()).choose(new Set([first]), 't', 'k', 'v', 1), second);
});

test('20 collisions are an error', () => {
  const taken = new Set(Array.from({ length: 20 }, (_, i) => namePrefix('t', 1) + derivedSuffix('t', 1, 'k', 'v', i)));
  assert.throws(
    () => new NameBook(new FakeInformer<HyperNode>()).choose(taken, 't', 'k', 'v', 1),
    /unable to get unique hyperNodeName after 20 attempts/,
  );
});

test('a cache read error fails the run', () => {
  const cache = new FakeInformer<HyperNode>();
  cache.failReads(new Error('cache broken'));
  assert.throws(() => discoverSnapshot(guideNodes, [A3], cache), /cache broken/);
});

test('suffixes use only the 27-symbol alphabet and spread over it', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) for (const ch of derivedSuffix('t', 1, 'k', `v${i}`, 0)) seen.add(ch);
  assert.ok([...seen].every((c) => SUFFIX_ALPHABET.includes(c)));
  assert.is(seen.size, 27);
});

test('clean(): Go examples and non-ASCII mapped to a dash', () => {
  const table: [string, string][] = [
    ['topologyA2', 'topologya2'],
    ['e2e-rack-topology', 'e2e-rack-topology'],
    ['rack_level', 'rack-level'],
    ['My Topo.v1', 'my-topo.v1'],
    ['Zürich', 'z-rich'],
    ['机房', '--'],
    ['a😀b', 'a-b'],
  ];
  for (const [input, want] of table) assert.is(cleanTypeName(input), want, input);
});

// Unit-test scenarios of label_test.go: type topologyA2 = [torA2-2, torA2-1, hostname].
const T2 = 'volcano.sh/torA2-2';
const T1 = 'volcano.sh_torA2-1';
const A2: TopologyType = { name: 'topologyA2', tiers: [T1, T2] };
const scenarios: [string, NodeMeta[], number][] = [
  [
    'two tiers fully labelled',
    [
      node('node0', { [T1]: 's0', [T2]: 's4' }),
      node('node1', { [T1]: 's0', [T2]: 's4' }),
      node('node2', { [T1]: 's1', [T2]: 's4' }),
      node('node3', { [T1]: 's1', [T2]: 's4' }),
      node('node4', { [T1]: 's2', [T2]: 's5' }),
      node('node5', { [T1]: 's2', [T2]: 's5' }),
      node('node6', { [T1]: 's3', [T2]: 's5' }),
      node('node7', { [T1]: 's3', [T2]: 's5' }),
    ],
    6,
  ],
  [
    'partial tier-2 labels',
    [
      node('node0', { [T1]: 's0' }),
      node('node1', { [T1]: 's0', [T2]: 's2' }),
      node('node2', { [T1]: 's1' }),
      node('node3', { [T1]: 's1' }),
    ],
    3,
  ],
  [
    'only one node has a tier-1 label',
    [node('node0', { [T2]: 's0' }), node('node1', { [T1]: 's0' }), node('node2', { [T2]: 's1' })],
    1,
  ],
];
for (const [name, nodes, count] of scenarios) {
  test(`label_test scenario: ${name} → ${count}`, () => {
    assert.is(discoverSnapshot(nodes, [A2], new FakeInformer<HyperNode>()).length, count);
  });
}

test('partial tier-2: the tier-2 group contains only the s0 HyperNode', () => {
  const snap = discoverSnapshot(scenarios[1]![1], [A2], new FakeInformer<HyperNode>());
  assert.equal(exactNames(byLabel(snap, T2, 's2')), [byLabel(snap, T1, 's0').metadata.name]);
});

test('two types sharing a label key share its HyperNode, named by the first type in sorted order', () => {
  const types: TopologyType[] = [
    { name: 'alpha', tiers: ['rack'] },
    { name: 'beta', tiers: ['rack'] },
  ];
  const snap = discoverSnapshot([node('n1', { rack: 'r1' })], types, new FakeInformer<HyperNode>());
  assert.is(snap.length, 1);
  assert.ok(snap[0]!.metadata.name.startsWith('hypernode-alpha-tier1-'));
  assert.equal(exactNames(snap[0]!), ['n1']);
});

test('members are distinct and sorted by byte order', () => {
  const snap = discoverSnapshot(
    [node('b', { rack: 'r' }), node('B', { rack: 'r' }), node('a', { rack: 'r' })],
    [{ name: 't', tiers: ['rack'] }],
    new FakeInformer<HyperNode>(),
  );
  assert.equal(exactNames(snap[0]!), ['B', 'a', 'b']);
});

test('buildMembers sorts by UTF-8 byte order (not UTF-16), keeps duplicates and leaves its input alone', () => {
  const input = ['😀', '\uFF21', 'b', 'b', 'B'];
  const names = buildMembers(input, 'Node').map((m) => m.selector.exactMatch!.name);
  assert.equal(names, ['B', 'b', 'b', '\uFF21', '😀']);
  assert.equal(input, ['😀', '\uFF21', 'b', 'b', 'B']);
});

test.run();
