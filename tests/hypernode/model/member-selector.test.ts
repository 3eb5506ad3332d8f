import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dependsOnNodes, nodeCount, resolveMembers } from '../../../src/hypernode/model/member-selector.ts';
import type { HyperNode, MemberSelector, MemberSpec, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import {
  CACHE_MAX_PROGRAM_SIZE,
  MAX_PATTERN_BYTES,
  MAX_PROGRAM_SIZE,
  patternCacheStats,
} from '../../../src/hypernode/model/node-name-pattern.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';

const node = (name: string, labels?: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const exact = (name: string): MemberSpec => ({ type: 'Node', selector: { exactMatch: { name } } });
const regex = (pattern: string, type: MemberSpec['type'] = 'Node'): MemberSpec => ({
  type,
  selector: { regexMatch: { pattern } },
});
const sorted = (s: Set<string>) => [...s].sort();

const cluster = [
  node('node1', { zone: 'east' }),
  node('node2'),
  node('node3'),
  node('node4', { zone: 'west' }),
  node('master'),
];
const workers = [
  node('worker-1', { role: 'worker' }),
  node('worker-2', { role: 'worker' }),
  node('control-plane-1', { role: 'control-plane' }),
];

test('exact names count even when no Node exists', () => {
  assert.is(nodeCount({ spec: { tier: 1, members: [exact('node1'), exact('node2'), exact('node3')] } }, []), 3);
});

test('exact, label and regex members are unioned', () => {
  const members: MemberSpec[] = [
    exact('master'),
    { type: 'Node', selector: { labelMatch: { matchLabels: { zone: 'east' } } } },
    regex('node[1-3]'),
  ];
  assert.is(nodeCount({ spec: { tier: 1, members } }, cluster), 4);
  const all = new Set(members.flatMap((m) => [...resolveMembers(m.selector, cluster)]));
  assert.equal(sorted(all), ['master', 'node1', 'node2', 'node3']);
});

test('an empty label selector adds nothing and the member type is ignored', () => {
  const members: MemberSpec[] = [
    exact('master'),
    { type: 'Node', selector: { labelMatch: {} } },
    regex('node[2-4]', 'HyperNode'),
  ];
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
  [
    'NotIn matches Nodes lacking the key',
    { labelMatch: { matchExpressions: [{ key: 'role', operator: 'NotIn', values: ['worker'] }] } },
    1,
  ],
  ['Exists', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'Exists' }] } }, 3],
  ['DoesNotExist', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'DoesNotExist' }] } }, 0],
  [
    'requirements are ANDed',
    {
      labelMatch: {
        matchLabels: { role: 'worker' },
        matchExpressions: [{ key: 'role', operator: 'NotIn', values: ['worker'] }],
      },
    },
    0,
  ],
  [
    'unknown operator → empty',
    { labelMatch: { matchExpressions: [{ key: 'role', operator: 'Gt', values: ['1'] }] } },
    0,
  ],
  ['In without values → empty', { labelMatch: { matchExpressions: [{ key: 'role', operator: 'In', values: [] }] } }, 0],
  [
    'Exists with values → empty',
    { labelMatch: { matchExpressions: [{ key: 'role', operator: 'Exists', values: ['worker'] }] } },
    0,
  ],
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
  const sel: MemberSelector = {
    exactMatch: { name: 'a' },
    labelMatch: { matchExpressions: [{ key: 'k', operator: 'Bogus' }] },
  };
  assert.is(resolveMembers(sel, workers).size, 0);
});

test('a prefixed key with a valid DNS subdomain matches', () => {
  const nodes = [node('n1', { 'topology.example.com/rack': 'r1' }), node('n2')];
  assert.equal(sorted(resolveMembers({ labelMatch: { matchLabels: { 'topology.example.com/rack': 'r1' } } }, nodes)), [
    'n1',
  ]);
});

test('the same pattern resolves the same way on repeated (cached) use', () => {
  for (let i = 0; i < 3; i++) assert.is(resolveMembers({ regexMatch: { pattern: '^worker-' } }, workers).size, 2);
  for (let i = 0; i < 3; i++) assert.is(resolveMembers({ regexMatch: { pattern: '[' } }, workers).size, 0);
});

// --- shapes the CRD admits --------------------------------------------------

test('a HyperNode without spec, or with a member that has a type and no selector, has no members', () => {
  const shapes = [
    {},
    { spec: { tier: 1 } },
    { spec: { tier: 1, members: [{ type: 'Node' }] } },
    { spec: { tier: 2, members: [{ type: 'HyperNode' }, regex('^worker-')] } },
  ];
  const counts = shapes.map((hn) => [
    nodeCount(hn as Pick<HyperNode, 'spec'>, workers),
    dependsOnNodes(hn as Pick<HyperNode, 'spec'>),
  ]);
  assert.equal(counts, [
    [0, false],
    [0, false],
    [0, false],
    [2, true],
  ]);
});

test('null where the CRD has an optional field counts as absent', () => {
  const shapes = [
    { spec: null },
    { spec: { tier: 1, members: null } },
    { spec: { tier: 1, members: [{ type: 'Node', selector: null }] } },
  ];
  for (const hn of shapes)
    assert.is(nodeCount(hn as unknown as Pick<HyperNode, 'spec'>, workers), 0, JSON.stringify(hn));
});

// --- labels are own properties only -----------------------------------------

const plain = [node('n1', JSON.parse('{"role":"worker"}')), node('n2')];
const inherited: [string, MemberSelector, string[]][] = [
  ['constructor Exists', { labelMatch: { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] } }, []],
  [
    'toString DoesNotExist',
    { labelMatch: { matchExpressions: [{ key: 'toString', operator: 'DoesNotExist' }] } },
    ['n1', 'n2'],
  ],
  [
    'hasOwnProperty NotIn',
    { labelMatch: { matchExpressions: [{ key: 'hasOwnProperty', operator: 'NotIn', values: ['x'] }] } },
    ['n1', 'n2'],
  ],
  ['valueOf In', { labelMatch: { matchExpressions: [{ key: 'valueOf', operator: 'In', values: ['x'] }] } }, []],
];
for (const [name, selector, want] of inherited) {
  test(`a label key named after an Object.prototype property is not inherited: ${name}`, () => {
    assert.equal(sorted(resolveMembers(selector, plain)), want);
  });
}

test('a Node label named constructor is found as a label', () => {
  const nodes = [node('n1', JSON.parse('{"constructor":"x"}')), node('n2')];
  assert.equal(sorted(resolveMembers({ labelMatch: { matchLabels: { constructor: 'x' } } }, nodes)), ['n1']);
});

// --- regex budget ----------------------------------------------------------------

const many = (n: number) => Array.from({ length: n }, (_, i) => node(`a-${i}`));

test('a pattern expanding past the budget selects nothing and is logged once', () => {
  const { logger, lines } = capturingLogger();
  // 3 × 1000 repetitions: RE2 accepts it (each count is ≤ 1000), the budget does not.
  const pattern = 'a{1000}'.repeat(3);
  for (let i = 0; i < 3; i++) assert.is(resolveMembers({ regexMatch: { pattern } }, many(5), logger).size, 0);
  const logged = lines.filter((l) => l.includes('Regular expression is too large'));
  assert.is(logged.length, 1, lines.join('\n'));
  assert.match(logged[0]!, /RE2 instructions/);
});

test('a pattern over the byte cap selects nothing, and the log shows only its beginning', () => {
  const { logger, lines } = capturingLogger();
  const pattern = `^(${'a-1|'.repeat(MAX_PATTERN_BYTES / 4)}a-2)$`;
  assert.is(resolveMembers({ regexMatch: { pattern } }, many(5), logger).size, 0);
  assert.is(lines.length, 1);
  assert.match(lines[0]!, /too large.*bytes, more than the 1024 allowed/);
  assert.ok(lines[0]!.length < 1000, 'the pattern is truncated in the log');
});

test('a realistic pattern near the caps still works', () => {
  const names = Array.from({ length: 40 }, (_, i) => `a-${i}`);
  const alternation = `^(${names.join('|')})$`;
  assert.is(resolveMembers({ regexMatch: { pattern: alternation } }, many(60)).size, 40);
  assert.is(
    resolveMembers({ regexMatch: { pattern: `^a-[0-9]{1,${MAX_PROGRAM_SIZE / 2 - 10}}$` } }, many(60)).size,
    60,
  );
});

test('the compiled-pattern cache stays within its total program size', () => {
  // Each pattern is ~2000 instructions: 100 of them would hold twice the bound.
  for (let i = 0; i < 100; i++) resolveMembers({ regexMatch: { pattern: `^a-${i}[0-9]{0,990}$` } }, many(1));
  const { programSize } = patternCacheStats();
  assert.ok(programSize <= CACHE_MAX_PROGRAM_SIZE, `cache holds ${programSize}`);
  assert.ok(programSize > CACHE_MAX_PROGRAM_SIZE / 2, 'the cache is used');
});

test.run();
