import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeCount, resolveMembers } from '../../src/hypernode/member-selector.ts';
import type { MemberSelector, MemberSpec, NodeMeta } from '../../src/hypernode/api/types.ts';

const node = (name: string, labels?: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const exact = (name: string): MemberSpec => ({ type: 'Node', selector: { exactMatch: { name } } });
const regex = (pattern: string, type: MemberSpec['type'] = 'Node'): MemberSpec => ({ type, selector: { regexMatch: { pattern } } });
const sorted = (s: Set<string>) => [...s].sort();

const cluster = [node('node1', { zone: 'east' }), node('node2'), node('node3'), node('node4', { zone: 'west' }), node('master')];
const workers = [node('worker-1', { role: 'worker' }), node('worker-2', { role: 'worker' }), node('control-plane-1', { role: 'control-plane' })];

test('exact names count even when no Node exists', () => {
  assert.is(nodeCount({ spec: { tier: 1, members: [exact('node1'), exact('node2'), exact('node3')] } }, []), 3);
});

test('exact, label and regex members are unioned', () => {
  const members: MemberSpec[] = [exact('master'), { type: 'Node', selector: { labelMatch: { matchLabels: { zone: 'east' } } } }, regex('node[1-3]')];
  assert.is(nodeCount({ spec: { tier: 1, members } }, cluster), 4);
  const all = new Set(members.flatMap((m) => [...resolveMembers(m.selector, cluster)]));
  assert.equal(sorted(all), ['master', 'node1', 'node2', 'node3']);
});

test('an empty label selector adds nothing and the member type is ignored', () => {
  const members: MemberSpec[] = [exact('master'), { type: 'Node', selector: { labelMatch: {} } }, regex('node[2-4]', 'HyperNode')];
  assert.is(nodeCount({ spec: { tier: 1, members } }, cluster), 4);
});

const workerTable: [string, MemberSelector, number][] = [
  ['regex ^worker-', { regexMatch: { pattern: '^worker-' } }, 2],
  ['invalid regex [', { regexMatch: { pattern: '[' } }, 0],
  ['labelMatch {}', { labelMatch: {} }, 0],
  ['regex is an unanchored search', { regexMatch: { pattern: 'plane' } }, 1],
  ['(?i) inline flag is RE2 syntax', { regexMatch: { pattern: '(?i)WORKER' } }, 2],
  ['\\pL Unicode class is RE2 syntax', { regexMatch: { pattern: '^\\pL+-\\pL+-1$' } }, 1],
  ['lookahead is rejected as a compile error', { regexMatch: { pattern: 'worker(?=-1)' } }, 0],
  ['backreference is rejected as a compile error', { regexMatch: { pattern: '(w)\\1' } }, 0],
  ['In', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'In', values: ['worker', 'x'] }] } }, 2],
  ['NotIn matches Nodes lacking the key', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'NotIn', values: ['worker'] }] } }, 1],
  ['Exists', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'Exists' }] } }, 3],
  ['DoesNotExist', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'DoesNotExist' }] } }, 0],
  ['requirements are ANDed', { labelMatch: { matchLabels: { role: 'worker' }, matchExpressions: [{ key: 'role', operator: 'NotIn', values: ['worker'] }] } }, 0],
  ['unknown operator → empty', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'Gt', values: ['1'] }] } }, 0],
  ['In without values → empty', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'In', values: [] }] } }, 0],
  ['Exists with values → empty', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'Exists', values: ['worker'] }] } }, 0],
  ['invalid key → empty', { labelMatch: { matchLabels: { 'bad key!': 'worker' } } }, 0],
  ['invalid prefix → empty', { labelMatch: { matchLabels: { 'Example.com/role': 'worker' } } }, 0],
  ['invalid value → empty', { labelMatch: { matchLabels: { role: '-worker' } } }, 0],
  ['value longer than 63 → empty', { labelMatch: { matchLabels: { role: 'w'.repeat(64) } } }, 0],
  ['empty value is valid and matches nothing here', { labelMatch: { matchLabels: { role: '' } } }, 0],
  ['no part → empty', {}, 0],
];
for (const [name, selector, count] of workerTable) {
  test(`selector: ${name} → ${count}`, () => {
    assert.is(resolveMembers(selector, workers).size, count);
  });
}

test('an empty exact name returns nothing even with other parts', () => {
  assert.is(resolveMembers({ exactMatch: { name: '' }, regexMatch: { pattern: 'worker' } }, workers).size, 0);
});

test('a regex compile error discards an exact name already collected', () => {
  assert.is(resolveMembers({ exactMatch: { name: 'a' }, regexMatch: { pattern: '(' } }, workers).size, 0);
});

test('an empty label selector keeps what was collected before it', () => {
  assert.equal(sorted(resolveMembers({ exactMatch: { name: 'a' }, labelMatch: {} }, workers)), ['a']);
});

test('a label conversion error discards what was collected before it', () => {
  const sel: MemberSelector = { exactMatch: { name: 'a' }, labelMatch: { matchExpressions: [{ key: 'k', operator: 'Bogus' }] } };
  assert.is(resolveMembers(sel, workers).size, 0);
});

test('a prefixed key with a valid DNS subdomain matches', () => {
  const nodes = [node('n1', { 'topology.example.com/rack': 'r1' }), node('n2')];
  assert.equal(sorted(resolveMembers({ labelMatch: { matchLabels: { 'topology.example.com/rack': 'r1' } } }, nodes)), ['n1']);
});

test('the same pattern resolves the same way on repeated (cached) use', () => {
  for (let i = 0; i < 3; i++) assert.is(resolveMembers({ regexMatch: { pattern: '^worker-' } }, workers).size, 2);
  for (let i = 0; i < 3; i++) assert.is(resolveMembers({ regexMatch: { pattern: '[' } }, workers).size, 0);
});

test.run();
