// YAML measured from its lexer's tokens before it is composed
// (src/util/bounded-yaml.ts): block indentation and flow brackets count as
// levels, scalars, flow collections and sequence items as values, and a
// document past its bounds is refused naming what was found.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkYamlBounds } from '../../src/util/bounded-yaml.ts';

const refusal = (text: string, maxDepth: number, maxValues: number) => {
  try {
    checkYamlBounds(text, { maxDepth, maxValues }, 'the document');
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
};

test('a configuration nests a few levels; block and flow nesting both count', () => {
  const config =
    'networkTopologyDiscovery:\n  - source: label\n    config:\n      networkTopologyTypes:\n        t:\n          - nodeLabel: a\n';
  assert.is(refusal(config, 8, 100), undefined);
  assert.is(refusal(config, 7, 100), 'the document is nested 8 levels deep; the limit is 7, so it was not parsed');
  assert.is(
    refusal('a: [[[[x]]]]\n', 5, 100),
    'the document is nested 6 levels deep; the limit is 5, so it was not parsed',
  );
  assert.is(
    refusal('- - - - x\n', 4, 100),
    'the document is nested 5 levels deep; the limit is 4, so it was not parsed',
  );
});

test('values are counted over every document, a multi-line scalar as one', () => {
  assert.is(refusal('a: |\n  one\n  two\nb: 2\n---\nc: [1, 2]\n', 10, 8), undefined);
  assert.is(
    refusal('a: |\n  one\n  two\nb: 2\n---\nc: [1, 2]\n', 10, 7),
    'the document holds about 8 values; the limit is 7, so it was not parsed',
  );
});

test.run();
