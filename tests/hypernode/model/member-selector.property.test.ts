import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RE2JS } from 're2js';
import type { LabelSelector, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { dependsOnNodes, membersOf, nodeCount, resolveMembers } from '../../../src/hypernode/model/member-selector.ts';
import { estimateProgramSize } from '../../../src/hypernode/model/node-name-pattern.ts';
import {
  anyHyperNode,
  hyperNodeWithNulls,
  nodeLabels,
  nodes,
  PROTOTYPE_KEYS,
  referenceNodeCount,
  wellFormedHyperNode,
} from '../../support/hypernode-arbitraries.ts';
import { propertyParameters } from '../../support/property.ts';

test('nodeCount, dependsOnNodes and resolveMembers never throw on a HyperNode the CRD admits', () => {
  fc.assert(
    fc.property(fc.oneof(anyHyperNode, hyperNodeWithNulls), nodes, (hn, nodeList) => {
      const count = nodeCount(hn, nodeList);
      dependsOnNodes(hn);
      for (const m of membersOf(hn)) resolveMembers(m.selector, nodeList);
      assert.ok(Number.isInteger(count) && count >= 0);
    }),
    propertyParameters(),
  );
});

test('nodeCount of a well-formed HyperNode equals the reference computation', () => {
  fc.assert(
    fc.property(wellFormedHyperNode, nodes, (hn, nodeList) => {
      assert.is(nodeCount(hn, nodeList), referenceNodeCount(hn, nodeList));
    }),
    propertyParameters(),
  );
});

test('labelMatch never selects a Node through an inherited property name', () => {
  const inheritedOnly = fc
    .tuple(fc.constantFrom(...PROTOTYPE_KEYS), nodeLabels)
    .filter(([key, labels]) => !Object.hasOwn(labels, key));
  fc.assert(
    fc.property(inheritedOnly, fc.constantFrom('Exists', 'In', 'NotIn', 'DoesNotExist'), ([key, labels], operator) => {
      const node: NodeMeta = { metadata: { name: 'n1', labels } };
      const values = operator === 'In' || operator === 'NotIn' ? ['a', ''] : undefined;
      const selector: LabelSelector = { matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] };
      const selected = resolveMembers({ labelMatch: selector }, [node]).size === 1;
      // The key is not a label of this Node: only the "absent" operators may select it.
      assert.is(selected, operator === 'NotIn' || operator === 'DoesNotExist', `${key} ${operator}`);
      assert.is(resolveMembers({ labelMatch: { matchLabels: { [key]: 'a' } } }, [node]).size, 0);
    }),
    propertyParameters(),
  );
});

/** RE2 program size, read from re2js internals: the bound the estimate must stay above. */
function compiledInstructions(pattern: string): number | undefined {
  try {
    return (RE2JS.compile(pattern) as unknown as { re2Input: { prog: { numInst(): number } } }).re2Input.prog.numInst();
  } catch {
    return undefined;
  }
}

test('the program size estimate is an upper bound of what RE2 compiles', () => {
  const atom = fc.constantFrom(
    'a',
    'b',
    '.',
    '[a-z]',
    '[^-]',
    '\\d',
    '\\pL',
    '\\x{41}',
    '(?i)k',
    '\\Q{2}\\E',
    '[]a]',
    '[[:alpha:]]',
  );
  const repeat = fc.constantFrom('', '*', '+', '?', '{2}', '{3,}', '{0,7}', '{5,9}?', '{12}');
  const piece = fc.tuple(atom, repeat).map(([a, r]) => a + r);
  const pattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join('')),
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `${a}|${b}`),
      fc.tuple(tie('expr'), repeat).map(([e, r]) => `(${e})${r}`),
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `(?:${a})${b}`),
    ),
  })).expr as fc.Arbitrary<string>;
  fc.assert(
    fc.property(pattern, (p) => {
      const actual = compiledInstructions(p);
      if (actual === undefined) return;
      assert.ok(estimateProgramSize(p) >= actual, `estimate ${estimateProgramSize(p)} < compiled ${actual} for ${p}`);
    }),
    propertyParameters(),
  );
});

test.run();
