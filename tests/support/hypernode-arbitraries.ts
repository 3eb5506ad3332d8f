// fast-check generators for HyperNodes and Nodes as the API server can hold
// them: every field the CRD leaves optional absent or present, members with a
// type and no selector, label keys that are also Object.prototype names, and
// regex patterns far over the size budget. `wellFormedHyperNode` stays within
// shapes whose nodeCount `referenceNodeCount` computes independently.

import fc from 'fast-check';
import type {
  HyperNode,
  LabelSelector,
  LabelSelectorRequirement,
  MemberSelector,
  MemberSpec,
  NodeMeta,
} from '../../src/hypernode/model/hypernode-types.ts';

/** Valid label keys that are also names every plain object inherits. */
export const PROTOTYPE_KEYS = [
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
];
const KEYS = ['zone', 'rack', 'example.com/tier', ...PROTOTYPE_KEYS];
const VALUES = ['a', 'b', ''];
export const NODE_NAMES = ['gpu-1', 'gpu-2', 'gpu-10', 'cpu-1', 'cpu-20', 'node-a', 'x'];
const HYPERNODE_NAMES = ['hn-a', 'hn-b', 'hn-c', 'hn-d'];

/**
 * Patterns on which RE2 and JavaScript agree (the reference uses RegExp),
 * plus patterns over the budget, which select nothing.
 */
export const AGREEING_PATTERNS = ['^gpu-', 'gpu', '-1$', '^(cpu|gpu)-[0-9]+$', '[0-9]{2}', '^x$', '.', 'node-[a-z]'];
export const OVER_BUDGET_PATTERNS = [
  'a{1000}'.repeat(3),
  `^(${'gpu-1|'.repeat(300)}x)$`,
  '[0-9]{1000}[a-z]{1000}[0-9]{1000}',
];

/** A label map as JSON.parse builds it: a plain object, `__proto__` an own key if present. */
function parsedLabels(entries: [string, string][]): Record<string, string> {
  return JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
}

const labelEntries = (keys: fc.Arbitrary<string>, values: fc.Arbitrary<string>) =>
  fc.uniqueArray(fc.tuple(keys, values), { selector: ([k]) => k, maxLength: 12 });

/** Node label sets: the selector keys, prototype names, `__proto__`, and odd strings. */
export const nodeLabels = labelEntries(
  fc.oneof(fc.constantFrom(...KEYS, '__proto__'), fc.string({ maxLength: 12 })),
  fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 8 })),
).map(parsedLabels);

/** Nodes with distinct names from a small pool, so that selectors hit. */
export const nodes: fc.Arbitrary<NodeMeta[]> = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...NODE_NAMES), fc.option(nodeLabels, { nil: undefined })), {
    selector: ([n]) => n,
    maxLength: NODE_NAMES.length,
  })
  .map((list) => list.map(([name, labels]) => ({ metadata: labels === undefined ? { name } : { name, labels } })));

const requirement: fc.Arbitrary<LabelSelectorRequirement> = fc.oneof(
  fc.record({
    key: fc.constantFrom(...KEYS),
    operator: fc.constantFrom('In', 'NotIn'),
    values: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1 }),
  }),
  fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom('Exists', 'DoesNotExist') }),
);

const wellFormedLabelMatch: fc.Arbitrary<LabelSelector> = fc.oneof(
  fc.constant({}),
  fc.record(
    { matchLabels: labelEntries(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)).map(parsedLabels) },
    { requiredKeys: [] },
  ),
  fc.record({ matchExpressions: fc.array(requirement, { maxLength: 3 }) }, { requiredKeys: [] }),
  fc.record({
    matchLabels: labelEntries(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)).map(parsedLabels),
    matchExpressions: fc.array(requirement, { maxLength: 3 }),
  }),
);

/** One selector kind each, as the CRD's rule allows; every one resolvable by the reference. */
const wellFormedSelector: fc.Arbitrary<MemberSelector> = fc.oneof(
  fc.record({ exactMatch: fc.record({ name: fc.constantFrom(...NODE_NAMES, 'absent-node', ...HYPERNODE_NAMES) }) }),
  fc.record({ regexMatch: fc.record({ pattern: fc.constantFrom(...AGREEING_PATTERNS, ...OVER_BUDGET_PATTERNS) }) }),
  fc.record({ labelMatch: wellFormedLabelMatch }),
);

const member = (selector: fc.Arbitrary<MemberSelector>): fc.Arbitrary<MemberSpec> =>
  fc.record({ type: fc.constantFrom('Node' as const, 'HyperNode' as const), selector }, { requiredKeys: ['type'] });

function hyperNode(selector: fc.Arbitrary<MemberSelector>): fc.Arbitrary<HyperNode> {
  const spec = fc.record(
    {
      tier: fc.nat({ max: 5 }),
      tierName: fc.string({ maxLength: 10 }),
      members: fc.array(member(selector), { minLength: 1, maxLength: 5 }),
    },
    { requiredKeys: ['tier'] },
  );
  const metadata = fc.record(
    {
      name: fc.constantFrom(...HYPERNODE_NAMES),
      labels: labelEntries(
        fc.constantFrom(...KEYS, 'volcano.sh/network-topology-source'),
        fc.constantFrom(...VALUES, 'label'),
      ).map(parsedLabels),
      annotations: labelEntries(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)).map(parsedLabels),
    },
    { requiredKeys: ['name'] },
  );
  return fc.record(
    {
      apiVersion: fc.constant('topology.volcano.sh/v1alpha1'),
      kind: fc.constant('HyperNode'),
      metadata,
      spec,
      status: fc.record({ nodeCount: fc.nat({ max: 20 }) }, { requiredKeys: [] }),
    },
    { requiredKeys: ['metadata'] },
  );
}

/** HyperNodes whose count `referenceNodeCount` knows: members without a selector included. */
export const wellFormedHyperNode = hyperNode(wellFormedSelector);

/** Odd regexes: random text, huge, nested repetition, invalid syntax. */
const oddPattern = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.stringMatching(/^[a-z0-9()[\]{},|*+?.^$\\-]{1,40}$/),
  fc.constantFrom(
    '(',
    '[',
    'a{1001}',
    '(a{1000}){1000}',
    '\\pL{1000}\\pN{1000}',
    'x'.repeat(5000),
    '(?i)\\Q{1000}\\E',
    '[[:alpha:]]{999}',
  ),
  fc.constantFrom(...OVER_BUDGET_PATTERNS),
);

/** Every selector the CRD schema admits, and more: several kinds at once, empty, odd operators and keys. */
const anySelector: fc.Arbitrary<MemberSelector> = fc.record(
  {
    exactMatch: fc.record({
      name: fc.oneof(fc.constantFrom(...NODE_NAMES, ...HYPERNODE_NAMES), fc.string({ maxLength: 20 })),
    }),
    regexMatch: fc.record({ pattern: oddPattern }),
    labelMatch: fc.oneof(
      wellFormedLabelMatch,
      fc.record(
        {
          matchLabels: labelEntries(
            fc.oneof(fc.constantFrom('__proto__', ...KEYS), fc.string({ maxLength: 10 })),
            fc.string({ maxLength: 10 }),
          ).map(parsedLabels),
          matchExpressions: fc.array(
            fc.record(
              {
                key: fc.oneof(fc.constantFrom('__proto__', ...KEYS), fc.string()),
                operator: fc.string({ maxLength: 12 }),
                values: fc.array(fc.string({ maxLength: 6 })),
              },
              { requiredKeys: ['key', 'operator'] },
            ),
            { maxLength: 3 },
          ),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

/** Any HyperNode the CRD admits (and selectors with several kinds, which its rule would refuse). */
export const anyHyperNode = hyperNode(fc.oneof(wellFormedSelector, anySelector));

/**
 * The same, with null where a field is optional: what a decoder could hand
 * over for `"spec": null`. The types do not admit null; the code must anyway.
 */
export const hyperNodeWithNulls: fc.Arbitrary<HyperNode> = fc
  .tuple(anyHyperNode, fc.constantFrom('spec', 'members', 'selector', 'labels', 'matchLabels', 'values', 'none'))
  .map(([hn, where]) => {
    const copy = structuredClone(hn) as unknown as Record<string, any>;
    const members: Record<string, any>[] = copy.spec?.members ?? [];
    if (where === 'spec') copy.spec = null;
    if (where === 'members' && copy.spec) copy.spec.members = null;
    if (where === 'labels') copy.metadata.labels = null;
    for (const m of members) {
      if (where === 'selector') m.selector = null;
      if (where === 'matchLabels' && m.selector?.labelMatch) m.selector.labelMatch.matchLabels = null;
      if (where === 'values') for (const e of m.selector?.labelMatch?.matchExpressions ?? []) e.values = null;
    }
    return copy as unknown as HyperNode;
  });

// --- reference computation -------------------------------------------------------

/** Labels as a Map: no prototype to inherit from. */
function labelMap(node: NodeMeta): Map<string, string> {
  return new Map(Object.entries(node.metadata.labels ?? {}));
}

function referenceLabelMatch(lm: LabelSelector, node: NodeMeta): boolean {
  const labels = labelMap(node);
  const ml = Object.entries(lm.matchLabels ?? {}).every(([k, v]) => labels.get(k) === v);
  const me = (lm.matchExpressions ?? []).every(({ key, operator, values }) => {
    switch (operator) {
      case 'In':
        return labels.has(key) && values!.includes(labels.get(key)!);
      case 'NotIn':
        return !labels.has(key) || !values!.includes(labels.get(key)!);
      case 'Exists':
        return labels.has(key);
      default:
        return !labels.has(key);
    }
  });
  return ml && me;
}

/** nodeCount of a `wellFormedHyperNode`, computed without the code under test. */
export function referenceNodeCount(hn: HyperNode, nodeList: readonly NodeMeta[]): number {
  const names = new Set<string>();
  for (const { selector } of hn.spec?.members ?? []) {
    if (selector?.exactMatch) names.add(selector.exactMatch.name);
    if (selector?.regexMatch && !OVER_BUDGET_PATTERNS.includes(selector.regexMatch.pattern)) {
      const re = new RegExp(selector.regexMatch.pattern);
      for (const n of nodeList) if (re.test(n.metadata.name)) names.add(n.metadata.name);
    }
    const lm = selector?.labelMatch;
    if (lm && (Object.keys(lm.matchLabels ?? {}).length > 0 || (lm.matchExpressions ?? []).length > 0)) {
      for (const n of nodeList) if (referenceLabelMatch(lm, n)) names.add(n.metadata.name);
    }
  }
  return names.size;
}
