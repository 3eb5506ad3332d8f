// JSON read within bounds (src/util/bounded-json.ts): the shape is measured
// before anything is built, a refusal names the figure and the limit and no
// content, a long array is read element by element with pauses between them,
// and an envelope's other members are skipped unparsed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  jsonArrayElements,
  jsonArrayStart,
  jsonObjectMembers,
  parseBoundedJson,
  ParseBoundsError,
} from '../../src/util/bounded-json.ts';
import { runWhole } from '../../src/util/sliced-work.ts';

const BOUNDS = { maxDepth: 3, maxValues: 10, maxElements: 4 };
const parse = (text: string) => runWhole(parseBoundedJson(text, BOUNDS, 'the answer'));
const elements = (text: string) => {
  const out: unknown[] = [];
  let steps = 0;
  const work = jsonArrayElements(text, text.indexOf('['), BOUNDS, 'the answer', (e) => out.push(e));
  for (let step = work.next(); !step.done; step = work.next()) steps++;
  return { out, steps };
};
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ParseBoundsError);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

test('a value within the bounds parses as JSON.parse would; only the first value counts', () => {
  assert.equal(parse(' {"a": [1, {"b": "x]}"}]} trailing'), { a: [1, { b: 'x]}' }] });
  assert.equal(parse('"s\\"]"'), 's"]');
  assert.is(parse('null'), null);
});

test('past the depth or the values, the refusal names what was found and the limit, and no content', () => {
  assert.is(
    refusal(() => parse('[[[["secret"]]]]')),
    'the answer is nested 4 levels deep; the limit is 3, so it was not parsed',
  );
  assert.is(
    refusal(() => parse('["secret",2,3,4,5,6,7,8,9,10,11]')),
    'the answer holds about 12 values; the limit is 10, so it was not parsed',
  );
});

test('a syntax error names its position and reason, never the text around it', () => {
  const message = (() => {
    try {
      parse('{"token": "hunter2" x}');
    } catch (err) {
      return (err as Error).message;
    }
  })();
  assert.match(message!, /^the answer is not valid JSON: line 1, column \d+: /);
  assert.not.match(message!, /hunter2/);
});

test('an array is read element by element, each within the bounds, with a pause after each', () => {
  const { out, steps } = elements('[{"a":1}, [2], "three"]');
  assert.equal(out, [{ a: 1 }, [2], 'three']);
  assert.is(steps, 3);
  assert.is(
    refusal(() => elements('[1, [[[["deep"]]]]]')),
    'the answer element [1] is nested 4 levels deep; the limit is 3, so it was not parsed',
  );
  assert.is(
    refusal(() => elements('[1,2,3,4,5,6]')),
    'the answer has 6 elements; the limit is 4, so it was not parsed',
  );
});

test("an envelope's data array is found without parsing the other members, case-insensitively, the last winning", () => {
  const text = '{"meta": [[[[[[[[1]]]]]]]], "Data": [1], "data": [2, 3]}';
  const start = runWhole(jsonArrayStart(text, 'data', 'the answer'));
  assert.is(start, text.lastIndexOf('[2'));
  assert.is(runWhole(jsonArrayStart('[1]', 'data', 'x')), 0);
  assert.is(runWhole(jsonArrayStart('{"data": {}}', 'data', 'x')), undefined);
  assert.is(runWhole(jsonArrayStart('{"data": [1]} trailing', 'data', 'x')), undefined);
  const members = runWhole(jsonObjectMembers('{"a": 1, "b": [2]}', 'x'))!;
  assert.equal(
    members.map((m) => m.name),
    ['a', 'b'],
  );
  assert.is(
    refusal(() =>
      runWhole(jsonObjectMembers(`{${Array.from({ length: 1100 }, (_, i) => `"k${i}":0`).join(',')}}`, 'x')),
    ),
    'x has more than 1024 top-level members, so it was not parsed',
  );
});

test.run();
