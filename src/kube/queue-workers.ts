// Workers draining a rate-limited queue, as client-go's processNextWorkItem
// loop in sample-controller and controller-runtime's controller workers: a
// key's sync is 'done' (its failures forgotten) or 'retry' (re-added after
// its backoff); a throw is handed to the queue's onError and retried the same
// way, so one bad key never ends a worker and never fails unseen.

import { Slots, type Limit } from '../util/slots.ts';
import type { RateLimitingQueue } from './rate-limiting-queue.ts';

/** What a worker's sync made of one key. */
export type SyncResult = 'done' | 'retry';

/**
 * One worker draining `queue` until it shuts down (client-go's
 * processNextWorkItem loop): 'done' forgets the key's failures, 'retry'
 * re-adds it after its per-key backoff. `sync` reports the errors it
 * expects; any other throw goes to the queue's onError and counts as 'retry',
 * so one bad key never ends the worker.
 */
export function runWorker(queue: RateLimitingQueue, sync: (key: string) => Promise<SyncResult>): Promise<void> {
  return runWorkers(queue, 1, sync);
}

/**
 * Workers draining `queue` until it shuts down and every key taken is done,
 * at most `workers` keys in sync at once (client-go starts that many
 * goroutines; here the number may follow a figure measured meanwhile, read
 * again before each key is taken). The queue never hands one key to two
 * workers, so one key's syncs stay in sequence.
 */
export async function runWorkers(
  queue: RateLimitingQueue,
  workers: Limit,
  sync: (key: string) => Promise<SyncResult>,
): Promise<void> {
  const slots = new Slots(workers);
  const running = new Set<Promise<void>>();
  for (;;) {
    if (!slots.tryAcquire()) await slots.acquire();
    const key = await queue.get();
    if (key === undefined) {
      slots.release();
      break;
    }
    const processed = processKey(queue, key, sync).finally(() => {
      running.delete(processed);
      slots.release();
    });
    running.add(processed);
  }
  await Promise.all(running);
}

async function processKey(
  queue: RateLimitingQueue,
  key: string,
  sync: (key: string) => Promise<SyncResult>,
): Promise<void> {
  try {
    if ((await sync(key)) === 'done') queue.forget(key);
    else queue.addRateLimited(key);
  } catch (err) {
    queue.retryAfterError(key, err);
  } finally {
    queue.done(key);
  }
}
