// The Topology objects a snapshot asks for and the changes that reach them
// (topology-object-specs.ts): one object per source when its trees share
// their levels, one per set of levels otherwise (a mixed-depth cluster),
// levels highest tier first with the hostname last, a tree deeper than the
// served version takes (16 for Kueue v1beta2 and KAI, 8 for Kueue v1alpha1)
// refused by name, and creates / replaces / deletes against the objects the
// source owns (a replace where the levels differ, nothing where they are
// equal, everything deleted when the export is off, a wait for an object a
// finalizer holds).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildWithTierName } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { desiredTopologies, topologyChanges, topologyObject, TOPOLOGY_KINDS } from '../../../src/hypernode/reconcile/topology-objects/topology-object-specs.ts';

const P = 'topo.example.com';
const WIDE = { holder: 'Kueue Topology kueue.x-k8s.io/v1beta2', maxLevels: 16 };
const NARROW = { holder: 'Kueue Topology kueue.x-k8s.io/v1alpha1', maxLevels: 8 };
const HOST = 'kubernetes.io/hostname';
const nodes = (...names: string[]) => names.map((name) => ({ type: 'Node' as const, selector: { exactMatch: { name } } }));
const children = (...names: string[]) => names.map((name) => ({ type: 'HyperNode' as const, selector: { exactMatch: { name } } }));

/** A chain of tiers (lowest first) named `<tree>-<tier>` down to one Node. */
function chain(tree: string, tierNames: string[]): DiscoveredHyperNode[] {
  return tierNames.map((t, i) => buildWithTierName(`${tree}-${t}`, i + 1, t, i === 0 ? nodes(`${tree}-n`) : children(`${tree}-${tierNames[i - 1]}`), {}));
}

test('trees sharing their levels give one object named after the source; levels highest first, hostname last', () => {
  const { levels, errors } = desiredTopologies('ufm', P, [...chain('a', ['leaf', 'spine']), ...chain('b', ['leaf', 'spine'])], WIDE);
  assert.equal([...levels], [['hypernode-ufm', [`${P}/spine`, `${P}/leaf`, HOST]]]);
  assert.equal(errors, []);
});

test('a mixed-depth cluster gives one object per set of levels, named by its tiers', () => {
  const { levels } = desiredTopologies('label', P, [...chain('h100', ['leaf', 'spine']), ...chain('gb200', ['nvl-domain', 'leaf', 'spine'])], WIDE);
  assert.equal(
    new Map(levels),
    new Map([
      ['hypernode-label-spine-leaf', [`${P}/spine`, `${P}/leaf`, HOST]],
      ['hypernode-label-spine-leaf-nvl-domain', [`${P}/spine`, `${P}/leaf`, `${P}/nvl-domain`, HOST]],
    ]),
  );
});

test('the served version bounds the levels: 12 are written where 16 are taken; past 8 on v1alpha1 a tree is refused naming its tiers and the fix, beside a tree that fits', () => {
  const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`);
  assert.is(desiredTopologies('label', P, chain('x', eleven), WIDE).levels.get('hypernode-label')!.length, 12);
  const seven = eleven.slice(0, 7);
  assert.is(desiredTopologies('label', P, chain('x', seven), NARROW).levels.get('hypernode-label')!.length, 8);
  const { levels, errors } = desiredTopologies('label', P, [...chain('x', [...seven, 't7']), ...chain('y', ['rack'])], NARROW);
  assert.equal([...levels.keys()], ['hypernode-label-rack']);
  assert.equal(errors, [
    'the tree of tiers t7, t6, t5, t4, t3, t2, t1, t0 of discovery source "label" needs 9 Topology levels (with kubernetes.io/hostname), more than the 8 a Kueue Topology kueue.x-k8s.io/v1alpha1 holds; no Topology hypernode-label-t7-t6-t5-t4-t3-t2-t1-t0 is written (turn off the export on the "label" entry, use fewer tiers, or upgrade to a version that takes more levels)',
  ]);
  assert.equal(desiredTopologies('label', P, chain('x', [...eleven, ...eleven.map((t) => `${t}b`)]), WIDE).errors.length, 1, '23 levels are too many even at 16');
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
  const held = (o: ReturnType<typeof obj>) => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['kueue.x-k8s.io/resource-in-use'] } });
  assert.equal(
    topologyChanges([held(obj('moved', ['a', HOST], 'u2')), held(obj('gone', ['b', HOST], 'u3'))], desired).map((c) => [c.action, c.name, c.levels, c.finalizers]),
    [
      ['held', 'gone', undefined, ['kueue.x-k8s.io/resource-in-use']],
      ['held', 'moved', ['c', 'a', HOST], ['kueue.x-k8s.io/resource-in-use']],
      ['create', 'new', ['d', HOST], undefined],
      ['create', 'same', ['a', HOST], undefined],
    ],
    'an object being deleted is waited for, never deleted or created over',
  );
  assert.equal(obj('x', ['a'], 'u').metadata.labels, { 'volcano.sh/network-topology-source': 'ufm' });
  assert.is(obj('x', ['a'], 'u').apiVersion, 'kueue.x-k8s.io/v1beta2');
});

test.run();
