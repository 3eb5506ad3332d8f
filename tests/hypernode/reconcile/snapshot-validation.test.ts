// The pre-write checks of a snapshot: one crafted snapshot per rule, each
// naming the objects that break it, and a well-formed three-tier snapshot
// that passes them all.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DiscoveredHyperNode, DiscoveredMember } from '../../../src/hypernode/model/hypernode-types.ts';
import {
  MAX_OBJECT_BYTES,
  describeViolations,
  validateSnapshot,
} from '../../../src/hypernode/reconcile/snapshot-validation.ts';

const nodes = (...names: string[]): DiscoveredMember[] =>
  names.map((name) => ({ type: 'Node', selector: { exactMatch: { name } } }));
const children = (...names: string[]): DiscoveredMember[] =>
  names.map((name) => ({ type: 'HyperNode', selector: { exactMatch: { name } } }));

function hn(
  name: string,
  tier: number,
  members: DiscoveredMember[],
  labels: Record<string, string> = { 'volcano.sh/network-topology-source': 'label' },
): DiscoveredHyperNode {
  return {
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name, labels },
    spec: { tier, members },
  };
}

const rules = (snapshot: DiscoveredHyperNode[]) =>
  validateSnapshot(snapshot).map((v) => `${v.rule} ${v.objects.join(',')}`);

test('a well-formed three-tier snapshot has no violations', () => {
  const snapshot = [
    hn('zone', 3, children('spine')),
    hn('spine', 2, children('rack-a', 'rack-b')),
    hn('rack-a', 1, nodes('n1', 'n2')),
    hn('rack-b', 1, nodes('n3')),
  ];
  assert.equal(validateSnapshot(snapshot), []);
});

test('a HyperNode member selected by regex or labels is a violation naming its parent', () => {
  const snapshot = [
    hn('spine', 2, [
      { type: 'HyperNode', selector: { regexMatch: { pattern: 'rack-.*' } } },
      { type: 'HyperNode', selector: { labelMatch: { matchLabels: { a: 'b' } } } },
    ]),
    hn('rack', 1, [{ type: 'Node', selector: { regexMatch: { pattern: 'n.*' } } }]),
  ];
  assert.equal(rules(snapshot), ['member-selector spine', 'member-selector spine']);
  assert.match(
    describeViolations(validateSnapshot(snapshot)),
    /spine: members\[0\] is a HyperNode member without exactMatch/,
  );
});

test('a cycle is reported once with the HyperNodes along it', () => {
  const snapshot = [hn('a', 3, children('b')), hn('b', 2, children('c')), hn('c', 1, children('a'))];
  const cycles = validateSnapshot(snapshot).filter((v) => v.rule === 'cycle');
  assert.equal(
    cycles.map((v) => v.objects),
    [['a', 'b', 'c']],
  );
  assert.match(cycles[0]!.message, /a → b → c → a/);
});

test('a HyperNode that is a member of two HyperNodes has too many parents', () => {
  const snapshot = [hn('spine-1', 2, children('rack')), hn('spine-2', 2, children('rack')), hn('rack', 1, nodes('n1'))];
  assert.equal(rules(snapshot), ['parents rack,spine-1,spine-2']);
});

test("a parent whose tier is not above its child's is a violation naming both", () => {
  const snapshot = [
    hn('spine', 1, children('rack')),
    hn('rack', 1, nodes('n1')),
    hn('zone', 2, children('higher')),
    hn('higher', 3, nodes('n2')),
  ];
  assert.equal(rules(snapshot), ['tier-order zone,higher', 'tier-order spine,rack']);
});

test('names that are not DNS-1123 subdomains are violations', () => {
  const snapshot = [
    hn('Rack_A', 1, nodes('n1')),
    hn('-rack', 1, nodes('n2')),
    hn('x'.repeat(254), 1, nodes('n3')),
    hn('rack.b', 1, nodes('n4')),
  ];
  assert.equal(rules(snapshot), ['name Rack_A', 'name -rack', `name ${'x'.repeat(254)}`]);
});

test('invalid label keys and values are violations', () => {
  const snapshot = [
    hn('rack-a', 1, nodes('n1'), { 'bad key': 'v', 'example.com/ok': 'fine' }),
    hn('rack-b', 1, nodes('n2'), { 'volcano.sh/hypernode': 'rack b!' }),
    hn('rack-c', 1, nodes('n3'), { 'volcano.sh/hypernode': 'r'.repeat(64) }),
    hn('rack-d', 1, nodes('n4'), { 'Example.com/x': 'v' }),
  ];
  assert.equal(rules(snapshot), ['label rack-a', 'label rack-b', 'label rack-c', 'label rack-d']);
});

test('an object serializing to 1 MiB or more is a violation; one just under is not', () => {
  const many = (n: number) => nodes(...Array.from({ length: n }, (_, i) => `node-${String(i).padStart(6, '0')}`));
  const per = JSON.stringify(many(1)[0]).length + 1;
  const under = hn('under', 1, many(Math.floor((MAX_OBJECT_BYTES - 500) / per)));
  assert.ok(JSON.stringify(under).length < MAX_OBJECT_BYTES);
  const over = hn('over', 1, many(Math.ceil(MAX_OBJECT_BYTES / per) + 10));
  assert.equal(rules([under, over]), ['size over']);
});

test.run();
