import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExponentialFailureRateLimiter } from '../../src/kube/rate-limiters.ts';

test('per-key backoff doubles from 5 ms and forget() resets it', () => {
  const rl = new ExponentialFailureRateLimiter();
  assert.equal([rl.when('k'), rl.when('k'), rl.when('k')], [5, 10, 20]);
  assert.is(rl.numRequeues('k'), 3);
  rl.forget('k');
  assert.is(rl.when('k'), 5);
});

test('per-key backoff is capped at 1000 s', () => {
  const rl = new ExponentialFailureRateLimiter();
  let last = 0;
  for (let i = 0; i < 40; i++) last = rl.when('k');
  assert.is(last, 1_000_000);
});

test.run();
