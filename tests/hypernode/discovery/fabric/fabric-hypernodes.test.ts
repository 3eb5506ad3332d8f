// The source-neutral fabric layer on hand-made graphs: the tiers, names,
// members and labels a user sees, and the links it refuses to place (unknown
// ends, a switch cabled to itself, host-to-host cables, a host on two units'
// leaves when leaves must share several hosts), each reported by name.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fabricHyperNodes, type FabricInput } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import type { FabricGraph, FabricLink } from '../../../../src/hypernode/discovery/fabric/fabric-graph.ts';
import { validateSnapshot } from '../../../../src/hypernode/reconcile/snapshot-validation.ts';
import { nullLogger } from '../../../../src/log.ts';
import type { DiscoveredHyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { hostLink, swLink } from './fabric-links.ts';

/** Two units of two rails (leaves l<unit><rail>) with two hosts each, under spines s1 and s2. */
function twoUnits(extra: FabricLink[] = []): FabricGraph {
  const leaves = ['l11', 'l12', 'l21', 'l22'];
  const hosts = ['u1-a', 'u1-b', 'u2-a', 'u2-b'];
  const links = [
    ...hosts.flatMap((h) => [1, 2].map((rail) => hostLink(h, `l${h[1]}${rail}`, String(rail)))),
    ...leaves.flatMap((l) => ['s1', 's2'].map((s) => swLink(l, s))),
    ...extra,
  ];
  return {
    switches: [...leaves, 's1', 's2'].map((id) => ({ id, name: id.toUpperCase() })),
    hosts: hosts.map((name) => ({ name })),
    links,
  };
}

const run = (graph: FabricGraph, more: Partial<FabricInput> = {}) =>
  fabricHyperNodes({
    graph,
    fabric: 'f',
    source: 'graph',
    labels: { 'example.com/fabric': 'f' },
    mapHost: (h) => h,
    logger: nullLogger,
    ...more,
  });
const shape = (s: readonly DiscoveredHyperNode[]) =>
  s.map(
    (h) =>
      `${h.metadata.name} ${h.spec.tier} ${h.spec.tierName}: ${h.spec.members.map((m) => m.selector!.exactMatch!.name).join(',')}`,
  );

test('leaves sharing hosts form one group per unit; spines above them; names from the lowest switch id; labels in order', () => {
  const r = run(twoUnits());
  assert.equal(shape(r.snapshot), [
    'f-leaf-l11 1 leaf: u1-a,u1-b',
    'f-leaf-l21 1 leaf: u2-a,u2-b',
    'f-spine-s1 2 spine: f-leaf-l11,f-leaf-l21',
  ]);
  assert.equal(r.snapshot[0]!.metadata.labels, {
    'volcano.sh/network-topology-source': 'graph',
    'example.com/fabric': 'f',
  });
  assert.equal(validateSnapshot([...r.snapshot]), []);
  assert.equal([r.hostCount, [...r.leafHosts].sort(), r.problems], [4, ['u1-a', 'u1-b', 'u2-a', 'u2-b'], []]);
});

test('each HyperNode names its switches for people: the one it is named after, then how many more; the id when a switch has no name', () => {
  const switches = (g: FabricGraph) => run(g).snapshot.map((h) => [h.metadata.name, h.metadata.annotations]);
  assert.equal(switches(twoUnits()), [
    ['f-leaf-l11', { 'volcano.sh/fabric-switches': 'L11 +1' }],
    ['f-leaf-l21', { 'volcano.sh/fabric-switches': 'L21 +1' }],
    ['f-spine-s1', { 'volcano.sh/fabric-switches': 'S1 +1' }],
  ]);
  const unnamed = twoUnits();
  const nameless = { ...unnamed, switches: unnamed.switches.map((s) => (s.id === 'l11' ? { id: s.id, name: '' } : s)) };
  assert.equal(switches(nameless)[0], ['f-leaf-l11', { 'volcano.sh/fabric-switches': 'l11 +1' }]);
});

test('hosts that map to no Node are no members and are listed for the report; mapped names are used', () => {
  const r = run(twoUnits(), { mapHost: (h) => (h.startsWith('u2') ? undefined : `node-${h}`) });
  assert.equal(shape(r.snapshot), ['f-leaf-l11 1 leaf: node-u1-a,node-u1-b', 'f-spine-s1 2 spine: f-leaf-l11']);
  assert.ok(r.leafHosts.includes('u2-a'));
});

test('links the graph cannot place join nothing and are reported naming the switch, port or host', () => {
  const r = run(
    twoUnits([
      hostLink('ghost', 'l11'),
      hostLink('u1-a', 'l99'),
      { a: { kind: 'switch', id: 's1', port: '7' }, b: { kind: 'switch', id: 's1', port: '8' } },
      { a: { kind: 'host', name: 'u1-a', port: 'eth9' }, b: { kind: 'host', name: 'u2-a', port: 'eth9' } },
    ]),
  );
  assert.equal(shape(r.snapshot), shape(run(twoUnits()).snapshot));
  assert.equal(
    r.problems.map((p) => p.kind),
    ['unknown-end', 'unknown-end', 'self-link', 'host-to-host'],
  );
  assert.match(r.problems[0]!.message, 'host ghost');
  assert.match(r.problems[1]!.message, 'switch l99');
  assert.match(r.problems[2]!.message, 'switch s1 is cabled to itself (port 7 – port 8)');
  assert.match(r.problems[3]!.message, 'hosts u1-a and u2-a');
});

test('one host cabled to the other unit merges the units by default; with minSharedHosts 2 they stay apart and the host is reported', () => {
  const miscabled = twoUnits([hostLink('u1-a', 'l21', '9')]);
  assert.equal(shape(run(miscabled).snapshot)[0], 'f-leaf-l11 1 leaf: u1-a,u1-b,u2-a,u2-b');
  const guarded = run(miscabled, { minSharedHosts: 2 });
  assert.equal(shape(guarded.snapshot), shape(run(twoUnits()).snapshot));
  assert.equal(
    guarded.problems.map((p) => p.kind),
    ['split-host'],
  );
  assert.match(
    guarded.problems[0]!.message,
    'host u1-a is cabled to the leaves of 2 groups (l11+l12, l21+l22); they stay apart and the host joins the group of l11+l12',
  );
});

test('a third tier appears when spine groups share cores; a group without uplinks has no parent', () => {
  const g = twoUnits();
  // Unit 2 moves to its own spines s3/s4; cores c1 join s1 and s3; a third unit has no spine at all.
  const links = g.links
    .filter((l) => !(l.a.kind === 'switch' && l.a.id.startsWith('l2') && l.b.kind === 'switch'))
    .concat(
      swLink('l21', 's3'),
      swLink('l22', 's4'),
      swLink('s1', 'c1'),
      swLink('s3', 'c1'),
      swLink('s4', 'c1'),
      hostLink('u3-a', 'l31'),
    );
  const graph: FabricGraph = {
    switches: [...g.switches, ...['s3', 's4', 'c1', 'l31'].map((id) => ({ id, name: id }))],
    hosts: [...g.hosts, { name: 'u3-a' }],
    links,
  };
  assert.equal(shape(run(graph).snapshot), [
    'f-leaf-l11 1 leaf: u1-a,u1-b',
    'f-leaf-l21 1 leaf: u2-a,u2-b',
    'f-leaf-l31 1 leaf: u3-a',
    'f-spine-s1 2 spine: f-leaf-l11',
    'f-spine-s3 2 spine: f-leaf-l21',
    'f-core-c1 3 core: f-spine-s1,f-spine-s3',
  ]);
});

test('a graph without host links has no host and no HyperNode', () => {
  const r = run({ switches: [{ id: 's1', name: 'S1' }], hosts: [{ name: 'h' }], links: [] });
  assert.equal([r.hostCount, r.snapshot.length], [0, 0]);
});

test.run();
