import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TokenBucket } from '../../src/kube/token-bucket.ts';

test('token bucket allows the burst, then spaces by 1/qps', () => {
  let now = 0;
  const b = new TokenBucket(10, 3, { now: () => now, sleep: async () => {} });
  assert.equal([b.reserve(), b.reserve(), b.reserve()], [0, 0, 0]);
  assert.is(Math.round(b.reserve()), 100);
  now += 1000;
  assert.is(b.reserve(), 0);
});

test('tryTake takes the burst, then refuses until a token has refilled, never reserving ahead', () => {
  let now = 0;
  const b = new TokenBucket(10, 3, { now: () => now, sleep: async () => {} });
  assert.equal([b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake()], [true, true, true, false, false]);
  now += 99;
  assert.not.ok(b.tryTake(), 'not a whole token yet');
  now += 1;
  assert.ok(b.tryTake(), 'refused calls reserved nothing: one token after 100 ms');
  assert.not.ok(b.tryTake());
});

test.run();
