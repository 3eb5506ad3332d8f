import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  coalescingTrigger,
  RateLimitingQueue,
  ExponentialFailureRateLimiter,
  runWorkers,
  TokenBucket,
} from '../../src/kube/workqueue.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { FakeClock, settle } from './fake-clock.ts';

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

test('addRateLimited delivers the key after the backoff', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  q.addRateLimited('x');
  assert.is(await within(q.get(), 1000, 'rate-limited add'), 'x');
  q.shutDown();
});

/** A sync whose calls stay open until the test ends them, by key. */
function heldSync() {
  const open = new Map<string, () => void>();
  const started: string[] = [];
  const sync = (key: string) =>
    new Promise<'done'>((resolve) => {
      started.push(key);
      open.set(key, () => {
        open.delete(key);
        resolve('done');
      });
    });
  return { open, started, sync, finish: (key: string) => open.get(key)!() };
}

test('runWorkers syncs up to its limit of keys at once, reading the limit again before each key', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  const held = heldSync();
  let limit = 2;
  const workers = runWorkers(q, () => limit, held.sync);
  for (const k of ['a', 'b', 'c', 'd', 'e']) q.add(k);
  await waitFor(() => held.open.size === 2, { what: 'two keys in sync' });
  await settle();
  assert.equal(held.started, ['a', 'b'], 'no third key while two are in sync');
  limit = 3;
  held.finish('a');
  await waitFor(() => held.open.size === 3, { what: 'three keys in sync under the raised limit' });
  assert.equal(held.started, ['a', 'b', 'c', 'd']);
  q.shutDown();
  for (const k of ['b', 'c', 'd']) held.finish(k);
  await waitFor(() => held.open.size === 1, { what: 'the last queued key' });
  held.finish('e');
  await within(workers, 1000, 'the workers end once the queue is drained');
  assert.equal(held.started, ['a', 'b', 'c', 'd', 'e']);
});

test('runWorkers never syncs one key twice at once: a re-add waits for the sync in flight', async () => {
  const q = new RateLimitingQueue({ name: 't' });
  const held = heldSync();
  const workers = runWorkers(q, 4, held.sync);
  q.add('a');
  await waitFor(() => held.open.size === 1, { what: 'a in sync' });
  q.add('a');
  q.add('b');
  await waitFor(() => held.open.has('b'), { what: 'b in sync' });
  assert.equal(held.started, ['a', 'b'], 'a is not started again while in sync');
  held.finish('a');
  await waitFor(() => held.started.length === 3, { what: 'a again' });
  assert.equal(held.started, ['a', 'b', 'a']);
  q.shutDown();
  held.finish('a');
  held.finish('b');
  await within(workers, 1000, 'workers exit');
});

test('coalescingTrigger fires once a burst has been quiet for quietMs', async () => {
  const clock = new FakeClock();
  let fired = 0;
  const c = coalescingTrigger(() => fired++, { quietMs: 100, maxMs: 1000, clock, onError: () => {} });
  c.trigger();
  for (let i = 0; i < 5; i++) {
    await clock.advance(60);
    c.trigger();
  }
  assert.is(fired, 0, 'triggers 60 ms apart keep the burst open');
  await clock.advance(99);
  assert.is(fired, 0);
  await clock.advance(1);
  assert.is(fired, 1);
  await clock.advance(1000);
  assert.is(fired, 1, 'nothing more without a trigger');
});

test('coalescingTrigger fires maxMs after the first trigger of a burst that never goes quiet', async () => {
  const clock = new FakeClock();
  const firedAt: number[] = [];
  const start = clock.now();
  const c = coalescingTrigger(() => firedAt.push(clock.now() - start), {
    quietMs: 100,
    maxMs: 1000,
    clock,
    onError: () => {},
  });
  for (let t = 0; t < 2500; t += 50) {
    c.trigger();
    await clock.advance(50);
  }
  assert.equal(firedAt, [1000, 2000], 'every 1000 ms from the first trigger of each burst');
});

test('coalescingTrigger without maxMs fires quietMs after the first trigger, later triggers riding along', async () => {
  const clock = new FakeClock();
  let fired = 0;
  const c = coalescingTrigger(() => fired++, { quietMs: 100, clock, onError: () => {} });
  c.trigger();
  await clock.advance(90);
  c.trigger();
  await clock.advance(10);
  assert.is(fired, 1);
  c.trigger();
  c.stop();
  await clock.advance(200);
  assert.is(fired, 1, 'stop() drops the waiting burst');
  c.trigger();
  await clock.advance(200);
  assert.is(fired, 1, 'and ignores later triggers');
  assert.is(clock.pending(), 0);
});

test('coalescingTrigger hands a throw of its callback to onError, and a trigger during the callback starts the next burst', async () => {
  const clock = new FakeClock();
  const errors: unknown[] = [];
  let calls = 0;
  const c = coalescingTrigger(
    () => {
      calls++;
      if (calls === 1) {
        c.trigger();
        throw new Error('boom');
      }
    },
    { quietMs: 100, clock, onError: (err) => errors.push(err) },
  );
  c.trigger();
  await clock.advance(100);
  assert.is((errors[0] as Error).message, 'boom');
  await clock.advance(100);
  assert.is(calls, 2);
});

test('coalescingTrigger cancel() drops the waiting burst; the next trigger starts a new one', async () => {
  const clock = new FakeClock();
  const firedAt: number[] = [];
  const start = clock.now();
  const c = coalescingTrigger(() => firedAt.push(clock.now() - start), { quietMs: 100, clock, onError: () => {} });
  c.trigger();
  await clock.advance(50);
  c.cancel();
  assert.is(clock.pending(), 0, 'no timer is left waiting');
  await clock.advance(200);
  assert.equal(firedAt, [], 'the cancelled burst never fires');
  c.trigger();
  await clock.advance(100);
  assert.equal(firedAt, [350]);
});

test('coalescingTrigger counts time slept as passed, for a clock whose sleep returns at once', async () => {
  const t = Date.now();
  // A clock like the previews': every wait skipped, now() standing still.
  const skipping = { now: () => t, sleep: () => new Promise<void>((r) => setImmediate(r)) };
  let fired = 0;
  const c = coalescingTrigger(() => fired++, { quietMs: 100, maxMs: 1000, clock: skipping, onError: () => {} });
  c.trigger();
  c.trigger();
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.is(fired, 1, 'fired after one skipped wait, not spinning until now() moves');
});

test.run();
