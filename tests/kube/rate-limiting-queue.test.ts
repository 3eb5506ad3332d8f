// The queue's client-go semantics: a waiting key is held once, a key is never
// handed out twice at once, shutDown() drains, addRateLimited() waits out the
// backoff; retryAfterError() tells onError before the key goes back.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimitingQueue } from '../../src/kube/rate-limiting-queue.ts';
import { within } from '../../testing/wait.ts';
import { unexpectedWorkerError } from '../support/worker-errors.ts';
import { FakeClock } from './fake-clock.ts';

const onError = unexpectedWorkerError('t');

test('a key added twice while waiting is processed once', async () => {
  const q = new RateLimitingQueue({ name: 't', onError });
  q.add('a');
  q.add('a');
  q.add('b');
  assert.is(q.len(), 2);
  assert.is(await q.get(), 'a');
  assert.is(await q.get(), 'b');
});

test('a key re-added during processing is handed out again only after done()', async () => {
  const q = new RateLimitingQueue({ name: 't', onError });
  q.add('a');
  const k = await q.get();
  q.add('a');
  assert.is(q.len(), 0, 'not handed to a second worker while processing');
  q.done(k!);
  assert.is(q.len(), 1);
  assert.is(await q.get(), 'a');
});

test('shutDown drains queued keys, then get() reports the end', async () => {
  const q = new RateLimitingQueue({ name: 't', onError });
  q.add('a');
  q.shutDown();
  q.add('b');
  assert.is(await q.get(), 'a');
  assert.is(await q.get(), undefined);
});

test('a waiting get() is released by shutDown', async () => {
  const q = new RateLimitingQueue({ name: 't', onError });
  const pending = q.get();
  q.shutDown();
  assert.is(await within(pending, 1000, 'get after shutdown'), undefined);
});

test('addRateLimited delivers the key after the backoff', async () => {
  const q = new RateLimitingQueue({ name: 't', onError });
  q.addRateLimited('x');
  assert.is(await within(q.get(), 1000, 'rate-limited add'), 'x');
  q.shutDown();
});

test('retryAfterError tells onError of the key and its error, then hands the key out again after its backoff', async () => {
  const clock = new FakeClock();
  const heard: string[] = [];
  const q = new RateLimitingQueue({
    name: 't',
    clock,
    onError: (key, err) => heard.push(`${key}: ${(err as Error).message} (queued: ${q.len()})`),
  });
  q.add('a');
  const key = (await q.get())!;
  q.retryAfterError(key, new Error('boom'));
  q.done(key);
  assert.equal(heard, ['a: boom (queued: 0)'], 'told once, before the key is back');
  assert.is(q.numRequeues('a'), 1, 'the failure counts toward the backoff');
  await clock.advance(4);
  assert.is(q.len(), 0, 'not before the 5 ms backoff');
  await clock.advance(1);
  assert.is(await within(q.get(), 1000, 'the retried key'), 'a');
});

test('retryAfterError puts the key back even when onError throws', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue({
    name: 't',
    clock,
    onError: () => {
      throw new Error('a broken handler');
    },
  });
  q.add('a');
  const key = (await q.get())!;
  assert.throws(() => q.retryAfterError(key, new Error('boom')), /a broken handler/);
  q.done(key);
  await clock.advance(5);
  assert.is(await within(q.get(), 1000, 'the retried key'), 'a');
});

test.run();
