// PassWorker: the asks of a window gathered into one pass, an ask at once not waiting, passes never overlapping, a pass
// that could not finish (or threw) retried with the queue's backoff.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassWorker } from '../../src/kube/pass-worker.ts';
import type { SyncResult } from '../../src/kube/queue-workers.ts';
import { ExponentialFailureRateLimiter } from '../../src/kube/rate-limiters.ts';
import { FakeClock, settle } from './fake-clock.ts';

function rig(pass: () => Promise<SyncResult>) {
  const clock = new FakeClock();
  const errors: [string, unknown][] = [];
  const worker = new PassWorker(
    {
      name: 'test-passes',
      clock,
      quietMs: 100,
      rateLimiter: new ExponentialFailureRateLimiter(10, 1000),
      onError: (key, err) => errors.push([key, err]),
      onScheduleError: (err) => errors.push(['schedule', err]),
    },
    pass,
  );
  const running = worker.run();
  return { clock, errors, worker, running };
}

test('the asks of one quietMs window are one pass', async () => {
  let passes = 0;
  const r = rig(async () => {
    passes++;
    return 'done';
  });
  for (let i = 0; i < 5; i++) {
    r.worker.schedule();
    await r.clock.advance(19);
  }
  assert.is(passes, 0, 'the asks are gathered for quietMs from the first');
  await r.clock.advance(5);
  await settle();
  assert.is(passes, 1, 'five asks, one pass');
  r.worker.schedule();
  await r.clock.advance(100);
  await settle();
  assert.is(passes, 2, 'a later ask is a pass of its own');
  r.worker.shutDown();
  await r.running;
});

test('a pass asked for at once runs without the quiet window; asks at once during a pass are one pass after it', async () => {
  let passes = 0;
  let release: () => void = () => {};
  const r = rig(async () => {
    passes++;
    if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
    return 'done';
  });
  r.worker.now();
  await settle();
  assert.is(passes, 1, 'no quietMs wait');
  for (let i = 0; i < 3; i++) r.worker.now();
  release();
  await settle();
  assert.is(passes, 2, 'three asks during the pass, one pass after it');
  r.worker.schedule();
  await r.clock.advance(99);
  await settle();
  assert.is(passes, 2, 'a gathered ask still waits for its window');
  await r.clock.advance(1);
  await settle();
  assert.is(passes, 3);
  r.worker.shutDown();
  await r.running;
});

test('a pass asked for while one runs waits for it, and passes never overlap', async () => {
  let running = 0;
  let most = 0;
  let passes = 0;
  let release: () => void = () => {};
  const r = rig(async () => {
    running++;
    most = Math.max(most, running);
    passes++;
    if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
    running--;
    return 'done';
  });
  r.worker.schedule();
  await r.clock.advance(100);
  await settle();
  assert.is(passes, 1);
  r.worker.schedule();
  await r.clock.advance(100);
  await settle();
  assert.is(passes, 1, 'the second pass waits for the first');
  release();
  await settle();
  assert.is(passes, 2);
  assert.is(most, 1);
  r.worker.shutDown();
  await r.running;
});

test('a pass that could not finish, or threw, is retried with backoff; a throw reaches onError', async () => {
  const outcomes: (SyncResult | Error)[] = ['retry', new Error('API server away'), 'done'];
  const at: number[] = [];
  const r = rig(async () => {
    at.push(r.clock.now());
    const next = outcomes.shift() ?? 'done';
    if (next instanceof Error) throw next;
    return next;
  });
  const start = r.clock.now();
  r.worker.schedule();
  for (let i = 0; i < 20; i++) {
    await r.clock.advance(10);
    await settle();
  }
  assert.equal(
    at.map((t) => t - start),
    [100, 110, 130],
    'asked at 100 ms, then retried after 10 and 20 ms',
  );
  assert.equal(
    r.errors.map(([key, err]) => [key, (err as Error).message]),
    [['pass', 'API server away']],
  );
  r.worker.shutDown();
  await r.running;
});

test('after shutDown an ask runs no pass', async () => {
  let passes = 0;
  const r = rig(async () => {
    passes++;
    return 'done';
  });
  r.worker.shutDown();
  await r.running;
  r.worker.schedule();
  await r.clock.advance(1000);
  await settle();
  assert.is(passes, 0);
});

test.run();
