import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coalescingTrigger } from '../../src/kube/coalescing-trigger.ts';
import { FakeClock } from './fake-clock.ts';

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
