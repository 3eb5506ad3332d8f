import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimitingQueue } from '../../src/kube/rate-limiting-queue.ts';
import { runWorker, runWorkers } from '../../src/kube/queue-workers.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { unexpectedWorkerError } from '../support/worker-errors.ts';
import { FakeClock, settle } from './fake-clock.ts';

const onError = unexpectedWorkerError('t');

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
  const q = new RateLimitingQueue({ name: 't', onError });
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
  const q = new RateLimitingQueue({ name: 't', onError });
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

test('a sync that throws is told to onError once per throw, with its key, and retried with backoff until it is done', async () => {
  const clock = new FakeClock();
  const start = clock.now();
  const heard: { key: string; message: string; at: number }[] = [];
  const q = new RateLimitingQueue({
    name: 't',
    clock,
    onError: (key, err) => heard.push({ key, message: (err as Error).message, at: clock.now() - start }),
  });
  const syncedAt: number[] = [];
  const worker = runWorker(q, async (key) => {
    syncedAt.push(clock.now() - start);
    if (syncedAt.length <= 3) throw new Error(`attempt ${syncedAt.length} of ${key} failed`);
    return 'done';
  });
  q.add('a');
  await waitFor(() => syncedAt.length === 1, { what: 'the first sync' });
  for (const ms of [5, 10, 20]) await clock.advance(ms);
  await waitFor(() => syncedAt.length === 4, { what: 'the sync after three failures' });
  assert.equal(
    heard,
    [
      { key: 'a', message: 'attempt 1 of a failed', at: 0 },
      { key: 'a', message: 'attempt 2 of a failed', at: 5 },
      { key: 'a', message: 'attempt 3 of a failed', at: 15 },
    ],
    'each throw told once, with the key',
  );
  assert.equal(syncedAt, [0, 5, 15, 35], 'retried after 5, 10 and 20 ms: the per-key backoff');
  await settle();
  assert.is(q.numRequeues('a'), 0, "'done' forgets the failures");
  q.shutDown();
  await within(worker, 1000, 'the worker ends once the queue is shut down');
  assert.is(heard.length, 3, 'nothing more after the key is done');
});

test('a throw reaches onError even when the sync throws before any await, and the worker goes on with the next key', async () => {
  const heard: string[] = [];
  // Time stands still: the throw's retry waits for a clock that never moves.
  const q = new RateLimitingQueue({ name: 't', clock: new FakeClock(), onError: (key) => heard.push(key) });
  const synced: string[] = [];
  const worker = runWorkers(q, 2, (key) => {
    synced.push(key);
    if (key === 'bad') throw new Error('synchronous throw');
    return Promise.resolve('done');
  });
  q.add('bad');
  q.add('good');
  await waitFor(() => heard.length === 1 && synced.includes('good'), {
    what: 'the throw told and the next key synced',
  });
  assert.equal(heard, ['bad']);
  q.shutDown();
  await within(worker, 2000, 'the workers end');
});

test.run();
