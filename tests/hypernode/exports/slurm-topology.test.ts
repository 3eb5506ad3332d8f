// The Slurm model and its hostlists: compression that Slurm's hostlist
// syntax reads back to exactly the names given (zero padding, mixed widths,
// duplicates, names without digits), sanitised switch names, and the errors
// for names Slurm could not hold.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { compressHostlist } from '../../../src/hypernode/preview/slurm/slurm-hostlist.ts';
import { slurmName, slurmTopology } from '../../../src/hypernode/preview/slurm/slurm-topology.ts';
import { expandHostlist } from '../../support/slurm-topology-reader.ts';

const roundTrip = (names: string[]) => expandHostlist(compressHostlist(names)).sort();

test('compressHostlist ranges equal-width numbers and reads back to the same names', () => {
  assert.is(compressHostlist(['n03', 'n01', 'n02', 'n07']), 'n[01-03,07]');
  assert.is(compressHostlist(['rack1-node5', 'rack1-node6', 'login']), 'login,rack1-node[5-6]');
  // n9 and n10 differ in width: Slurm would pad n[9-10] to one width, so they stay apart.
  assert.is(compressHostlist(['n9', 'n10', 'n11']), 'n9,n[10-11]'.split(',').sort().join(','));
  assert.is(compressHostlist(['a1', 'a1', 'a2']), 'a[1-2]');
  assert.is(compressHostlist(['solo7']), 'solo7');
  for (const names of [['n9', 'n10', 'n11'], ['x001', 'x002', 'x010', 'x1', 'y'], Array.from({ length: 130 }, (_, i) => `gpu-${String(i * 3).padStart(3, '0')}`)]) {
    assert.equal(roundTrip(names), [...new Set(names)].sort());
  }
});

test('slurmName keeps what Slurm reads and replaces hostlist syntax', () => {
  assert.is(slurmName('hypernode-label-tier1-ab3de'), 'hypernode-label-tier1-ab3de');
  assert.is(slurmName('leaf[1],a b#c=d'), 'leaf_1__a_b_c_d');
});

const hn = (name: string, tier: number, members: Array<[type: 'Node' | 'HyperNode', name: string]>, tierName?: string): HyperNode => ({
  apiVersion: 'topology.volcano.sh/v1alpha1',
  kind: 'HyperNode',
  metadata: { name },
  spec: { tier, ...(tierName ? { tierName } : {}), members: members.map(([type, n]) => ({ type, selector: { exactMatch: { name: n } } })) },
});
const opts = { blockTiers: ['nvl-domain'], hostName: (n: string) => n };

test('slurmTopology resolves regex members against the Nodes and skips children that do not exist', () => {
  const leaf: HyperNode = { ...hn('leaf', 1, []), spec: { tier: 1, members: [{ type: 'Node', selector: { regexMatch: { pattern: '^a' } } }] } };
  const top = hn('top', 2, [
    ['HyperNode', 'leaf'],
    ['HyperNode', 'gone'],
  ]);
  const t = slurmTopology([top, leaf], [{ metadata: { name: 'a1' } }, { metadata: { name: 'a2' } }, { metadata: { name: 'b1' } }], opts);
  assert.equal(t.switches, [
    { name: 'leaf', switches: [], nodes: ['a1', 'a2'] },
    { name: 'top', switches: ['leaf'], nodes: [] },
  ]);
});

test('a host name Slurm cannot read is refused naming the Node', () => {
  assert.throws(() => slurmTopology([hn('leaf', 1, [['Node', 'n1']])], [], { ...opts, hostName: () => 'n 1' }), /Node n1 maps to host name "n 1", which Slurm cannot read/);
});

test('two HyperNodes whose names sanitise alike are refused', () => {
  assert.throws(() => slurmTopology([hn('a:b', 1, []), hn('a_b', 1, [])], [], opts), /HyperNodes a:b and a_b would both be named a_b in Slurm/);
});

test.run();
