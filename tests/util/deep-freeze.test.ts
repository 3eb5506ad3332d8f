import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deepFreeze } from '../../src/util/deep-freeze.ts';

test('deepFreeze freezes every nested object and array and returns the same value', () => {
  const value = { metadata: { labels: { a: '1' } }, items: [{ name: 'x' }] };
  assert.is(deepFreeze(value), value);
  assert.ok(Object.isFrozen(value.metadata.labels));
  assert.ok(Object.isFrozen(value.items) && Object.isFrozen(value.items[0]));
  assert.throws(() => {
    (value.metadata.labels as Record<string, string>).b = '2';
  });
});

test('deepFreeze leaves primitives alone and survives cycles', () => {
  assert.is(deepFreeze(5), 5);
  assert.is(deepFreeze(null), null);
  const cyclic: { self?: unknown; child: { n: number } } = { child: { n: 1 } };
  cyclic.self = cyclic;
  deepFreeze(cyclic);
  assert.ok(Object.isFrozen(cyclic.child));
});

test.run();
