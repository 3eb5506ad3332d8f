// A rate-limited work queue with client-go semantics (util/workqueue):
// de-duplication of waiting keys, a key is never handed to two workers at
// once, re-adds during processing are deferred until done(), and shutDown()
// drains. The default rate limiter is client-go's DefaultControllerRateLimiter:
// max(per-key exponential backoff, overall token bucket).

import { Slots, type Limit } from '../util/slots.ts';
import { realClock, type Clock } from './clock.ts';
import type { WorkQueue } from './types.ts';

export interface RateLimiter {
  /** Delay in ms before `key` may be retried; counts a failure. */
  when(key: string): number;
  forget(key: string): void;
  numRequeues(key: string): number;
}

export const DEFAULT_BASE_DELAY_MS = 5;
export const DEFAULT_MAX_DELAY_MS = 1_000_000;
export const DEFAULT_BUCKET_QPS = 10;
export const DEFAULT_BUCKET_BURST = 100;

/** Per-key exponential backoff: base × 2^failures, capped. */
export class ExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(
    private readonly baseMs = DEFAULT_BASE_DELAY_MS,
    private readonly maxMs = DEFAULT_MAX_DELAY_MS,
  ) {}
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * A token bucket that hands out reservations: each call takes one token now
 * or in the future and returns how long the caller must wait for it.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }
  /** Reserves one token; returns the wait in ms (0 when one was available). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  /** Takes a token if one is there now; never reserves one ahead (work refused rather than queued). */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }
}

class BucketRateLimiter implements RateLimiter {
  constructor(private readonly bucket: TokenBucket) {}
  when(): number {
    return this.bucket.reserve();
  }
  forget(): void {}
  numRequeues(): number {
    return 0;
  }
}

/** The worst (longest) delay of several limiters, as client-go's MaxOfRateLimiter. */
class MaxOfRateLimiter implements RateLimiter {
  constructor(private readonly limiters: RateLimiter[]) {}
  when(key: string): number {
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: string): number {
    return Math.max(...this.limiters.map((l) => l.numRequeues(key)));
  }
}

/** client-go's default; `maxDelayMs` lowers the per-key cap for keys that must not wait ~17 min. */
export function defaultControllerRateLimiter(clock: Clock = realClock, maxDelayMs = DEFAULT_MAX_DELAY_MS): RateLimiter {
  return new MaxOfRateLimiter([
    new ExponentialFailureRateLimiter(DEFAULT_BASE_DELAY_MS, maxDelayMs),
    new BucketRateLimiter(new TokenBucket(DEFAULT_BUCKET_QPS, DEFAULT_BUCKET_BURST, clock)),
  ]);
}

/** Observes queue activity; src/app/metrics.ts turns this into workqueue_* metrics. */
export interface QueueMetrics {
  added(): void;
  depth(n: number): void;
  /** Time a key waited in the queue, ms. */
  queued(ms: number): void;
  /** Time spent processing a key, ms. */
  worked(ms: number): void;
  retried(): void;
  /**
   * Hands over how to read, at any moment, how long each key being processed
   * has been at it (ms): client-go's unfinished-work and longest-running
   * gauges, read when scraped so a worker stuck in one key shows at once.
   */
  inFlight(ages: () => number[]): void;
}

export interface QueueOptions {
  name: string;
  clock?: Clock;
  rateLimiter?: RateLimiter;
  metrics?: QueueMetrics;
}

export class RateLimitingQueue implements WorkQueue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly metrics: QueueMetrics | undefined;
  private readonly queue: string[] = [];
  /** Keys waiting in `queue` or to be re-queued after processing. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private readonly delayAbort = new AbortController();
  private shuttingDown = false;

  constructor(opts: QueueOptions) {
    this.name = opts.name;
    this.clock = opts.clock ?? realClock;
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    this.metrics = opts.metrics;
    this.metrics?.inFlight(() => {
      const now = this.clock.now();
      return [...this.startedAt.values()].map((started) => now - started);
    });
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.add(key);
    this.addedAt.set(key, this.clock.now());
    if (this.processing.has(key)) return;
    this.push(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    this.clock.sleep(delayMs, this.delayAbort.signal).then(
      () => this.add(key),
      () => {},
    );
  }

  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.metrics?.retried();
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  get(): Promise<string | undefined> {
    const key = this.take();
    if (key !== undefined || this.shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined) this.metrics?.worked(this.clock.now() - started);
    if (this.dirty.has(key)) this.push(key);
  }

  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.delayAbort.abort();
    // Waiters only exist while the queue is empty: tell them it is over.
    while (this.waiters.length > 0 && this.queue.length === 0) this.waiters.shift()!(undefined);
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  len(): number {
    return this.queue.length;
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(this.start(key));
      return;
    }
    this.queue.push(key);
    this.metrics?.depth(this.queue.length);
  }

  private take(): string | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.metrics?.depth(this.queue.length);
    return this.start(key);
  }

  private start(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    const now = this.clock.now();
    if (added !== undefined) this.metrics?.queued(now - added);
    this.startedAt.set(key, now);
    return key;
  }
}

/** What a worker's sync made of one key. */
export type SyncResult = 'done' | 'retry';

/**
 * One worker draining `queue` until it shuts down (client-go's
 * processNextWorkItem loop): 'done' forgets the key's failures, 'retry'
 * re-adds it after its per-key backoff. `sync` reports its own errors; a
 * rejection counts as 'retry' so one bad key never ends the worker.
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
  let result: SyncResult = 'retry';
  try {
    result = await sync(key);
  } catch {
    // counted as a retry below
  } finally {
    if (result === 'done') queue.forget(key);
    else queue.addRateLimited(key);
    queue.done(key);
  }
}

export interface CoalescingOptions {
  /** Fire once no trigger has come for this long (a debounce)... */
  readonly quietMs: number;
  /**
   * ...but at the latest this long after the first trigger of the burst, so
   * a stream of triggers that never goes quiet still fires. Defaults to
   * quietMs: a fixed window from the first trigger.
   */
  readonly maxMs?: number;
  readonly clock: Clock;
  /** Where a throw of the callback goes: it runs from a timer nobody awaits. */
  readonly onError: (err: unknown) => void;
}

export interface CoalescingTrigger {
  /** Starts a burst, or joins the one waiting. */
  trigger(): void;
  /** Drops the burst waiting, if any (whoever asked has been served another way); later triggers start a new one. */
  cancel(): void;
  /** Drops the burst waiting and ignores later triggers (at shutdown). */
  stop(): void;
}

/**
 * Gathers a burst of triggers into one call of `fire` (deno std's debounce,
 * with a cap): a rollout relabelling hundreds of Nodes costs one pass, a
 * rack losing power one judgement of each object that depends on it. A trigger
 * during `fire` starts the next burst. Pass `() => queue.add(key)` to put a
 * key on a work queue.
 */
export function coalescingTrigger(fire: () => void, opts: CoalescingOptions): CoalescingTrigger {
  const { quietMs, clock, onError } = opts;
  const maxMs = Math.max(quietMs, opts.maxMs ?? quietMs);
  let stopped = false;
  /** The burst waiting: when it began and what ends its wait; undefined while none waits. */
  let burst: { readonly start: number; readonly wait: AbortController } | undefined;
  let lastTrigger = 0;
  const waitThenCheck = (waiting: NonNullable<typeof burst>, ms: number): void => {
    const from = clock.now();
    // Time slept counts as passed: the previews' clock skips every wait without moving now().
    clock.sleep(ms, waiting.wait.signal).then(
      () => check(waiting, Math.max(clock.now(), from + ms)),
      () => {},
    );
  };
  const check = (waiting: NonNullable<typeof burst>, now: number): void => {
    if (burst !== waiting) return; // cancelled while its wait was ending
    const quietFor = now - lastTrigger;
    const age = now - waiting.start;
    if (quietFor < quietMs && age < maxMs) {
      waitThenCheck(waiting, Math.min(quietMs - quietFor, maxMs - age));
      return;
    }
    burst = undefined;
    try {
      fire();
    } catch (err) {
      onError(err);
    }
  };
  const cancel = (): void => {
    burst?.wait.abort();
    burst = undefined;
  };
  return {
    trigger() {
      if (stopped) return;
      lastTrigger = clock.now();
      if (burst !== undefined) return;
      burst = { start: lastTrigger, wait: new AbortController() };
      waitThenCheck(burst, quietMs);
    },
    cancel,
    stop() {
      stopped = true;
      cancel();
    },
  };
}
