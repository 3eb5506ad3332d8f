// The Slurm model and its hostlists: compression that Slurm's hostlist
// syntax reads back to exactly the names given (zero padding, mixed widths,
// duplicates, names without digits), sanitised switch names, and the errors
// for names Slurm could not hold; the trees of several sources as one file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DiscoveredHyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import type { KeptTopology } from '../../../../src/hypernode/reconcile/kept-topology.ts';
import { compressHostlist } from '../../../../src/hypernode/exports/slurm/slurm-hostlist.ts';
import { blockSizes, treeOrder } from '../../../../src/hypernode/exports/slurm/slurm-blocks.ts';
import { slurmName, slurmSwitchName } from '../../../../src/hypernode/exports/slurm/slurm-names.ts';
import { slurmTopology } from '../../../../src/hypernode/exports/slurm/slurm-topology.ts';
import { expandHostlist } from '../../../support/slurm-topology-reader.ts';

const roundTrip = (names: string[]) => expandHostlist(compressHostlist(names)).sort();

test('compressHostlist ranges equal-width numbers and reads back to the same names', () => {
  assert.is(compressHostlist(['n03', 'n01', 'n02', 'n07']), 'n[01-03,07]');
  assert.is(compressHostlist(['rack1-node5', 'rack1-node6', 'login']), 'login,rack1-node[5-6]');
  // n9 and n10 differ in width: Slurm would pad n[9-10] to one width, so they stay apart.
  assert.is(compressHostlist(['n9', 'n10', 'n11']), 'n9,n[10-11]'.split(',').sort().join(','));
  assert.is(compressHostlist(['a1', 'a1', 'a2']), 'a[1-2]');
  assert.is(compressHostlist(['solo7']), 'solo7');
  for (const names of [
    ['n9', 'n10', 'n11'],
    ['x001', 'x002', 'x010', 'x1', 'y'],
    Array.from({ length: 130 }, (_, i) => `gpu-${String(i * 3).padStart(3, '0')}`),
  ]) {
    assert.equal(roundTrip(names), [...new Set(names)].sort());
  }
});

test('slurmName keeps what Slurm reads and replaces hostlist syntax', () => {
  assert.is(slurmName('hypernode-label-tier1-ab3de'), 'hypernode-label-tier1-ab3de');
  assert.is(slurmName('leaf[1],a b#c=d'), 'leaf_1__a_b_c_d');
});

const hn = (
  name: string,
  tier: number,
  members: Array<[type: 'Node' | 'HyperNode', name: string]>,
  tierName?: string,
): DiscoveredHyperNode => ({
  apiVersion: 'topology.volcano.sh/v1alpha1',
  kind: 'HyperNode',
  metadata: { name },
  spec: {
    tier,
    ...(tierName ? { tierName } : {}),
    members: members.map(([type, n]) => ({ type, selector: { exactMatch: { name: n } } })),
  },
});
const opts = { blockTiers: ['nvl-domain'], hostName: (n: string) => n };
/** One source's tree as kept, nothing held. */
const kept = (hyperNodes: DiscoveredHyperNode[], source = 'label'): KeptTopology => ({
  source,
  hyperNodes,
  heldDeletes: undefined,
  heldNodes: [],
});

test('slurmTopology resolves regex members against the Nodes and skips children that do not exist', () => {
  const leaf: DiscoveredHyperNode = {
    ...hn('leaf', 1, []),
    spec: { tier: 1, members: [{ type: 'Node', selector: { regexMatch: { pattern: '^a' } } }] },
  };
  const top = hn('top', 2, [
    ['HyperNode', 'leaf'],
    ['HyperNode', 'gone'],
  ]);
  const t = slurmTopology(
    [kept([top, leaf])],
    [{ metadata: { name: 'a1' } }, { metadata: { name: 'a2' } }, { metadata: { name: 'b1' } }],
    opts,
  );
  assert.equal(t.switches, [
    { name: 'leaf', switches: [], nodes: ['a1', 'a2'] },
    { name: 'top', switches: ['leaf'], nodes: [] },
  ]);
});

test('the trees of several sources make one file, the same whatever their order; a name two trees hold is one switch', () => {
  const ufm = kept(
    [
      hn('ufm-spine', 2, [['HyperNode', 'ufm-leaf']]),
      hn('ufm-leaf', 1, [
        ['Node', 'a2'],
        ['Node', 'a1'],
      ]),
    ],
    'ufm',
  );
  const label = kept([hn('rack', 1, [['Node', 'b1']])]);
  const nodes = ['a1', 'a2', 'b1'].map((name) => ({ metadata: { name } }));
  const t = slurmTopology([ufm, label], nodes, opts);
  assert.equal(t, slurmTopology([label, ufm], nodes, opts));
  assert.equal(t.switches, [
    { name: 'rack', switches: [], nodes: ['b1'] },
    { name: 'ufm-leaf', switches: [], nodes: ['a1', 'a2'] },
    { name: 'ufm-spine', switches: ['ufm-leaf'], nodes: [] },
  ]);
  // A delete one source's guard holds, under a name another source now wants: one switch, the first tree's.
  const graph = kept([hn('rack', 1, [['Node', 'b2']])], 'graph');
  assert.equal(slurmTopology([label, graph], nodes, opts).switches, [{ name: 'rack', switches: [], nodes: ['b1'] }]);
});

test('a host name Slurm cannot read is refused naming the Node', () => {
  assert.throws(
    () => slurmTopology([kept([hn('leaf', 1, [['Node', 'n1']])])], [], { ...opts, hostName: () => 'n 1' }),
    /Node n1 maps to host name "n 1", which Slurm cannot read/,
  );
});

test('two HyperNodes whose names sanitise alike are refused', () => {
  assert.throws(
    () => slurmTopology([kept([hn('a:b', 1, []), hn('a_b', 1, [])])], [], opts),
    /HyperNode a:b and HyperNode a_b would both be named a_b in Slurm; rename one of them/,
  );
});

test('a HyperNode holding Nodes and HyperNodes gets its Nodes under a synthetic leaf switch named <name>.nodes', () => {
  const t = slurmTopology(
    [
      kept([
        hn('leaf', 1, [['Node', 'a1']]),
        hn('mid', 2, [
          ['HyperNode', 'leaf'],
          ['Node', 'b1'],
          ['Node', 'b2'],
        ]),
      ]),
    ],
    [],
    opts,
  );
  assert.equal(t.switches, [
    { name: 'leaf', switches: [], nodes: ['a1'] },
    { name: 'mid.nodes', switches: [], nodes: ['b1', 'b2'] },
    { name: 'mid', switches: ['leaf', 'mid.nodes'], nodes: [] },
  ]);
  assert.throws(
    () =>
      slurmTopology(
        [
          kept([
            hn('mid.nodes', 1, []),
            hn('mid', 2, [
              ['HyperNode', 'mid.nodes'],
              ['Node', 'b1'],
            ]),
          ]),
        ],
        [],
        opts,
      ),
    /HyperNode mid.nodes and the Nodes of HyperNode mid would both be named mid.nodes in Slurm; rename one of them/,
  );
});

test('names over 64 characters are cut with a hash of the whole name: deterministic, distinct, the synthetic leaf sharing the hash', () => {
  const head = 'lab-fabric-leaf-'.padEnd(60, 'x');
  const [a, b] = [`${head}-su1-r1`, `${head}-su1-r2`];
  const t = slurmTopology(
    [
      kept([
        hn(a, 1, [['Node', 'n1']]),
        hn(b, 1, [['Node', 'n2']]),
        hn('top', 2, [
          ['HyperNode', a],
          ['HyperNode', b],
          ['Node', 'n3'],
        ]),
      ]),
    ],
    [],
    opts,
  );
  const names = t.switches.map((s) => s.name);
  for (const n of names) assert.ok(n.length <= 64, n);
  const [sa, sb] = [slurmSwitchName(a), slurmSwitchName(b)];
  assert.is(sa.length, 64);
  assert.ok(sa.startsWith(head.slice(0, 53)) && sa !== sb);
  assert.is(slurmSwitchName(a), sa, 'the same name every time');
  assert.equal(t.switches.find((s) => s.name === 'top')!.switches, [sa, sb, 'top.nodes'].sort());
  const long = 'top-'.padEnd(80, 'y');
  const mixed = slurmTopology(
    [
      kept([
        hn('leaf', 1, [['Node', 'n1']]),
        hn(long, 2, [
          ['HyperNode', 'leaf'],
          ['Node', 'n2'],
        ]),
      ]),
    ],
    [],
    opts,
  );
  const leaf = mixed.switches.find((s) => s.nodes.includes('n2'))!.name;
  assert.is(leaf.length, 64);
  assert.ok(leaf.endsWith('.nodes') && leaf.slice(-16, -6) === slurmSwitchName(long).slice(-10), leaf);
  // A HyperNode already named like another's shortened name is refused with both names, in tier and name order.
  assert.throws(
    () => slurmTopology([kept([hn(a, 1, []), hn(sa, 1, [])])], [], opts),
    new RegExp(`HyperNode ${sa} and HyperNode ${a} would both be named ${sa}`),
  );
});

test('blocks follow the tree, so the NVLink domains of one leaf are neighbours, with BlockSizes from the smallest block', () => {
  // Domain names sort across the leaves: d1, d3 under leaf-a; d2, d4 under leaf-b.
  const d = (name: string, ...nodes: string[]) =>
    hn(
      name,
      1,
      nodes.map((n) => ['Node', n] as ['Node', string]),
      'nvl-domain',
    );
  const t = slurmTopology(
    [
      kept([
        d('d1', 'a1', 'a2', 'a3'),
        d('d2', 'b1', 'b2'),
        d('d3', 'a4', 'a5'),
        d('d4', 'b3', 'b4', 'b5'),
        hn('leaf-a', 2, [
          ['HyperNode', 'd3'],
          ['HyperNode', 'd1'],
        ]),
        hn('leaf-b', 2, [
          ['HyperNode', 'd4'],
          ['HyperNode', 'd2'],
        ]),
        hn('spine', 3, [
          ['HyperNode', 'leaf-b'],
          ['HyperNode', 'leaf-a'],
        ]),
      ]),
    ],
    [],
    opts,
  );
  assert.equal(
    t.blocks.map((b) => b.name),
    ['d1', 'd3', 'd2', 'd4'],
  );
  assert.equal(blockSizes(t.blocks, undefined), [2, 4, 8]);
  assert.equal(blockSizes(t.blocks, 2), [2, 4, 8]);
  assert.equal(blockSizes(t.blocks.slice(0, 1), 1), [1]);
  assert.throws(
    () => blockSizes(t.blocks, 3),
    /--slurm-block-size 3: blocks d3 \(2\), d2 \(2\) have fewer Nodes.*pass at most 2/,
  );
  assert.throws(
    () => blockSizes(t.blocks, -3),
    /--slurm-block-size must be a whole number of Nodes, at least 1; got -3/,
  );
});

test('treeOrder: tops by name, each followed by its children by name; what no top reaches comes last', () => {
  const children = new Map([
    ['z-top', ['b', 'a']],
    ['a', []],
    ['b', ['c']],
    ['c', []],
    ['m-top', []],
    ['loop1', ['loop2']],
    ['loop2', ['loop1']],
  ]);
  assert.equal(treeOrder(children), ['m-top', 'z-top', 'a', 'b', 'c', 'loop1', 'loop2']);
  assert.equal(blockSizes([], undefined), []);
  assert.equal(
    blockSizes(
      Array.from({ length: 5 }, (_, i) => ({ name: `b${i}`, nodes: ['x', 'y', 'z'] })),
      undefined,
    ),
    [3, 6, 12, 24],
  );
});

test.run();
