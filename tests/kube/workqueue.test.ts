import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimitingQueue, ExponentialFailureRateLimiter, TokenBucket } from '../../src/kube/workqueue.ts';
import { within } from '../../testing/wait.ts';

test('a key added twice while waiting is processed once', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  q.add('a');
  q.add('a');
  q.add('b');
  assert.is(q.len(), 2);
  assert.is(await q.get(), 'a');
  assert.is(await q.get(), 'b');
});

test('a key re-added during processing is handed out again only after done()', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  q.add('a');
  const k = await q.get();
  q.add('a');
  assert.is(q.len(), 0, 'not handed to a second worker while processing');
  q.done(k!);
  assert.is(q.len(), 1);
  assert.is(await q.get(), 'a');
});

test('shutDown drains queued keys, then get() reports the end', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  q.add('a');
  q.shutDown();
  q.add('b');
  assert.is(await q.get(), 'a');
  assert.is(await q.get(), undefined);
});

test('a waiting get() is released by shutDown', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  const pending = q.get();
  q.shutDown();
  assert.is(await within(pending, 1000, 'get after shutdown'), undefined);
});

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

test('token bucket allows the burst, then spaces by 1/qps', () => {
  let now = 0;
  const b = new TokenBucket(10, 3, { now: () => now, sleep: async () => {} });
  assert.equal([b.reserve(), b.reserve(), b.reserve()], [0, 0, 0]);
  assert.is(Math.round(b.reserve()), 100);
  now += 1000;
  assert.is(b.reserve(), 0);
});

test('addRateLimited delivers the key after the backoff', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  q.addRateLimited('x');
  assert.is(await within(q.get(), 1000, 'rate-limited add'), 'x');
  q.shutDown();
});

test.run();
