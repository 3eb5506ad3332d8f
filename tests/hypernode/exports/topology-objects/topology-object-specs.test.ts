// The Topology objects a snapshot asks for and the changes that reach them
// (topology-object-specs.ts): one object per source when its trees share
// their levels, one per set of levels otherwise (a mixed-depth cluster),
// levels highest tier first with the hostname last, a tree deeper than the
// served version takes (16 for Kueue v1beta2 and KAI, 8 for Kueue v1alpha1)
// refused by name (an object of ours of that name kept), aliases from the
// tierNames where the version takes them (none for the hostname, nor where
// two levels would share one or one would equal a nodeLabel), and creates /
// replaces / updates / deletes against the objects the source owns (a
// replace where the nodeLabels differ, an update where only aliases do,
// nothing where they are equal, everything deleted when the export is off, a
// wait for an object a finalizer holds).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildWithTierName } from '../../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import {
  desiredTopologies,
  labelsOf,
  topologyChanges,
  topologyObject,
  TOPOLOGY_KINDS,
} from '../../../../src/hypernode/exports/topology-objects/topology-object-specs.ts';

const P = 'topo.example.com';
const WIDE = { holder: 'Kueue Topology kueue.x-k8s.io/v1beta2', maxLevels: 16, alias: false };
const NARROW = { holder: 'Kueue Topology kueue.x-k8s.io/v1alpha1', maxLevels: 8, alias: false };
const KAI17 = { holder: 'KAI Topology kai.scheduler/v1alpha1', maxLevels: 16, alias: true };
const lv = (...nodeLabels: string[]) => nodeLabels.map((nodeLabel) => ({ nodeLabel }));
const HOST = 'kubernetes.io/hostname';
const nodes = (...names: string[]) =>
  names.map((name) => ({ type: 'Node' as const, selector: { exactMatch: { name } } }));
const children = (...names: string[]) =>
  names.map((name) => ({ type: 'HyperNode' as const, selector: { exactMatch: { name } } }));

/** A chain of tiers (lowest first) named `<tree>-<tier>` down to one Node. */
function chain(tree: string, tierNames: string[]): DiscoveredHyperNode[] {
  return tierNames.map((t, i) =>
    buildWithTierName(
      `${tree}-${t}`,
      i + 1,
      t,
      i === 0 ? nodes(`${tree}-n`) : children(`${tree}-${tierNames[i - 1]}`),
      {},
    ),
  );
}

test('trees sharing their levels give one object named after the source; levels highest first, hostname last', () => {
  const { levels, errors } = desiredTopologies(
    'ufm',
    P,
    [...chain('a', ['leaf', 'spine']), ...chain('b', ['leaf', 'spine'])],
    WIDE,
  );
  assert.equal([...levels], [['hypernode-ufm', lv(`${P}/spine`, `${P}/leaf`, HOST)]]);
  assert.equal(errors, []);
});

test('a mixed-depth cluster gives one object per set of levels, named by its tiers', () => {
  const { levels } = desiredTopologies(
    'label',
    P,
    [...chain('h100', ['leaf', 'spine']), ...chain('gb200', ['nvl-domain', 'leaf', 'spine'])],
    WIDE,
  );
  assert.equal(
    new Map(levels),
    new Map([
      ['hypernode-label-spine-leaf', lv(`${P}/spine`, `${P}/leaf`, HOST)],
      ['hypernode-label-spine-leaf-nvl-domain', lv(`${P}/spine`, `${P}/leaf`, `${P}/nvl-domain`, HOST)],
    ]),
  );
});

test('the served version bounds the levels: 12 are written where 16 are taken; past 8 on v1alpha1 a tree is refused naming its tiers and the fix, beside a tree that fits', () => {
  const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`);
  assert.is(desiredTopologies('label', P, chain('x', eleven), WIDE).levels.get('hypernode-label')!.length, 12);
  const seven = eleven.slice(0, 7);
  assert.is(desiredTopologies('label', P, chain('x', seven), NARROW).levels.get('hypernode-label')!.length, 8);
  const { levels, refused } = desiredTopologies(
    'label',
    P,
    [...chain('x', [...seven, 't7']), ...chain('y', ['rack'])],
    NARROW,
  );
  assert.equal([...levels.keys()], ['hypernode-label-rack']);
  assert.equal(
    [...refused],
    [
      [
        'hypernode-label-t7-t6-t5-t4-t3-t2-t1-t0',
        'the tree of tiers t7, t6, t5, t4, t3, t2, t1, t0 of discovery source "label" needs 9 Topology levels (with kubernetes.io/hostname), more than the 8 a Kueue Topology kueue.x-k8s.io/v1alpha1 holds; no Topology hypernode-label-t7-t6-t5-t4-t3-t2-t1-t0 is written, and one of ours of that name keeps its levels (turn off the export on the "label" entry, use fewer tiers, or upgrade to a version that takes more levels)',
      ],
    ],
  );
  assert.equal(
    desiredTopologies('label', P, chain('x', [...eleven, ...eleven.map((t) => `${t}b`)]), WIDE).refused.size,
    1,
    '23 levels are too many even at 16',
  );
});

test('aliases: each tierName where the version takes them, none for the hostname, none where two levels share one or one is a nodeLabel', () => {
  assert.equal(desiredTopologies('ufm', P, chain('a', ['leaf', 'spine', 'core']), KAI17).levels.get('hypernode-ufm'), [
    { nodeLabel: `${P}/core`, alias: 'core' },
    { nodeLabel: `${P}/spine`, alias: 'spine' },
    { nodeLabel: `${P}/leaf`, alias: 'leaf' },
    { nodeLabel: HOST },
  ]);
  // The label source names tiers after label keys: `example.com/rack` and `other.com/rack` give one level `rack` (two
  // tierNames: no alias).
  const mixed = [...chain('a', ['example.com/rack', 'zone']), ...chain('b', ['other.com/rack', 'zone'])];
  assert.equal(desiredTopologies('label', P, mixed, KAI17).levels.get('hypernode-label'), [
    { nodeLabel: `${P}/zone`, alias: 'zone' },
    { nodeLabel: `${P}/rack` },
    { nodeLabel: HOST },
  ]);
  // A tierName equal to the prefixed key would collide with that level's nodeLabel.
  assert.equal(
    desiredTopologies('label', P, chain('a', [`${P}/rack`]), KAI17).levels.get('hypernode-label'),
    lv(`${P}/rack`, HOST),
  );
});

test('changes: create what is missing, replace where nodeLabels differ, update where only aliases do, keep what is equal, delete the rest, or all when off', () => {
  const kind = TOPOLOGY_KINDS[0]!;
  const obj = (name: string, labels: string[], uid: string, aliases: string[] = []) => {
    const o = topologyObject(
      kind,
      'v1beta2',
      'ufm',
      name,
      labels.map((nodeLabel, i) => (aliases[i] ? { nodeLabel, alias: aliases[i]! } : { nodeLabel })),
    );
    return { ...o, metadata: { ...o.metadata, uid, resourceVersion: `rv-${uid}` } };
  };
  const existing = [obj('same', ['a', HOST], 'u1'), obj('moved', ['a', HOST], 'u2'), obj('gone', ['b', HOST], 'u3')];
  const desired = new Map([
    ['same', lv('a', HOST)],
    ['moved', lv('c', 'a', HOST)],
    ['new', lv('d', HOST)],
  ]);
  assert.equal(topologyChanges(existing, desired), [
    { action: 'delete', name: 'gone', previous: lv('b', HOST), uid: 'u3', resourceVersion: 'rv-u3' },
    {
      action: 'replace',
      name: 'moved',
      levels: lv('c', 'a', HOST),
      previous: lv('a', HOST),
      uid: 'u2',
      resourceVersion: 'rv-u2',
    },
    { action: 'create', name: 'new', levels: lv('d', HOST) },
  ]);
  assert.equal(
    topologyChanges(existing, undefined).map((c) => `${c.action} ${c.name}`),
    ['delete gone', 'delete moved', 'delete same'],
  );
  // A tree that cannot be written keeps the object of that name.
  assert.equal(
    topologyChanges(existing, new Map([['same', lv('a', HOST)]]), new Map([['moved', 'too many levels']])).map(
      (c) => `${c.action} ${c.name}`,
    ),
    ['delete gone'],
  );
  // Aliases: compared only where the version takes them; a change of aliases alone is an update of the same object.
  const aliased = new Map([['same', [{ nodeLabel: 'a', alias: 'rack' }, { nodeLabel: HOST }]]]);
  assert.equal(topologyChanges([obj('same', ['a', HOST], 'u1')], aliased, new Map(), false), []);
  assert.equal(
    topologyChanges([obj('same', ['a', HOST], 'u1', ['zone'])], aliased, new Map(), true).map((c) => [
      c.action,
      c.resourceVersion,
      labelsOf(c.levels!),
      c.levels![0]!.alias,
    ]),
    [['update', 'rv-u1', ['a', HOST], 'rack']],
  );
  const held = (o: ReturnType<typeof obj>) => ({
    ...o,
    metadata: {
      ...o.metadata,
      deletionTimestamp: '2026-01-01T00:00:00Z',
      finalizers: ['kueue.x-k8s.io/resource-in-use'],
    },
  });
  assert.equal(
    topologyChanges([held(obj('moved', ['a', HOST], 'u2')), held(obj('gone', ['b', HOST], 'u3'))], desired).map((c) => [
      c.action,
      c.name,
      c.levels && labelsOf(c.levels),
      c.finalizers,
    ]),
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
