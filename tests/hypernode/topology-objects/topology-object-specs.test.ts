// The Topology objects a snapshot asks for and the changes that reach them
// (topology-object-specs.ts): one object per source when its trees share
// their levels, one per set of levels otherwise (a mixed-depth cluster),
// levels highest tier first with the hostname last, a tree deeper than 8
// levels refused by name, and creates / replaces / deletes against the
// objects the source owns (a replace where the levels differ, nothing where
// they are equal, everything deleted when the export is off).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildWithTierName } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { desiredTopologies, topologyChanges, topologyObject, TOPOLOGY_KINDS } from '../../../src/hypernode/reconcile/topology-objects/topology-object-specs.ts';

const P = 'topo.example.com';
const HOST = 'kubernetes.io/hostname';
const nodes = (...names: string[]) => names.map((name) => ({ type: 'Node' as const, selector: { exactMatch: { name } } }));
const children = (...names: string[]) => names.map((name) => ({ type: 'HyperNode' as const, selector: { exactMatch: { name } } }));

/** A chain of tiers (lowest first) named `<tree>-<tier>` down to one Node. */
function chain(tree: string, tierNames: string[]): DiscoveredHyperNode[] {
  return tierNames.map((t, i) => buildWithTierName(`${tree}-${t}`, i + 1, t, i === 0 ? nodes(`${tree}-n`) : children(`${tree}-${tierNames[i - 1]}`), {}));
}

test('trees sharing their levels give one object named after the source; levels highest first, hostname last', () => {
  const { levels, errors } = desiredTopologies('ufm', P, [...chain('a', ['leaf', 'spine']), ...chain('b', ['leaf', 'spine'])]);
  assert.equal([...levels], [['hypernode-ufm', [`${P}/spine`, `${P}/leaf`, HOST]]]);
  assert.equal(errors, []);
});

test('a mixed-depth cluster gives one object per set of levels, named by its tiers', () => {
  const { levels } = desiredTopologies('label', P, [...chain('h100', ['leaf', 'spine']), ...chain('gb200', ['nvl-domain', 'leaf', 'spine'])]);
  assert.equal(
    new Map(levels),
    new Map([
      ['hypernode-label-spine-leaf', [`${P}/spine`, `${P}/leaf`, HOST]],
      ['hypernode-label-spine-leaf-nvl-domain', [`${P}/spine`, `${P}/leaf`, `${P}/nvl-domain`, HOST]],
    ]),
  );
});

test('8 levels are written; a tree needing 9 is refused naming its tiers and the fix, beside a tree that fits', () => {
  const seven = Array.from({ length: 7 }, (_, i) => `t${i}`);
  assert.is(desiredTopologies('label', P, chain('x', seven)).levels.get('hypernode-label')!.length, 8);
  const { levels, errors } = desiredTopologies('label', P, [...chain('x', [...seven, 't7']), ...chain('y', ['rack'])]);
  assert.equal([...levels.keys()], ['hypernode-label-rack']);
  assert.equal(errors, [
    'the tree of tiers t7, t6, t5, t4, t3, t2, t1, t0 of discovery source "label" needs 9 Topology levels (with kubernetes.io/hostname), more than the 8 a Kueue or KAI Topology holds; no Topology hypernode-label-t7-t6-t5-t4-t3-t2-t1-t0 is written (turn off exports.kueueTopology/kaiTopology on the "label" entry, or use fewer tiers)',
  ]);
});

test('changes: create what is missing, replace where levels differ, keep what is equal, delete the rest, or all when off', () => {
  const kind = TOPOLOGY_KINDS[0]!;
  const obj = (name: string, lv: string[], uid: string) => {
    const o = topologyObject(kind, 'v1beta2', 'ufm', name, lv);
    return { ...o, metadata: { ...o.metadata, uid } };
  };
  const existing = [obj('same', ['a', HOST], 'u1'), obj('moved', ['a', HOST], 'u2'), obj('gone', ['b', HOST], 'u3')];
  const desired = new Map([
    ['same', ['a', HOST]],
    ['moved', ['c', 'a', HOST]],
    ['new', ['d', HOST]],
  ]);
  assert.equal(topologyChanges(existing, desired), [
    { action: 'delete', name: 'gone', previous: ['b', HOST], uid: 'u3' },
    { action: 'replace', name: 'moved', levels: ['c', 'a', HOST], previous: ['a', HOST], uid: 'u2' },
    { action: 'create', name: 'new', levels: ['d', HOST] },
  ]);
  assert.equal(
    topologyChanges(existing, undefined).map((c) => `${c.action} ${c.name}`),
    ['delete gone', 'delete moved', 'delete same'],
  );
  assert.equal(obj('x', ['a'], 'u').metadata.labels, { 'volcano.sh/network-topology-source': 'ufm' });
  assert.is(obj('x', ['a'], 'u').apiVersion, 'kueue.x-k8s.io/v1beta2');
});

test.run();
