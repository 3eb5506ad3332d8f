// A rate-limited work queue with client-go semantics (util/workqueue
// queue.go, delaying_queue.go, rate_limiting_queue.go): de-duplication of
// waiting keys, a key is never handed to two workers at once, re-adds during
// processing are deferred until done(), and shutDown() drains. Every queue is
// told where its workers' throws go (`onError`), so none is retried unseen.

import { realClock, type Clock } from './clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.ts';
import type { WorkQueue } from './types.ts';

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

/**
 * Told of each throw of a worker's sync for `key`, before the key is put back
 * after its backoff (controller-runtime's "Reconciler error"; client-go's
 * utilruntime.HandleError in processNextWorkItem).
 */
export type WorkerErrorHandler = (key: string, err: unknown) => void;

export interface QueueOptions {
  name: string;
  /** Where a throw of a worker's sync goes; required, so no queue retries a throw unseen. */
  onError: WorkerErrorHandler;
  clock?: Clock;
  rateLimiter?: RateLimiter;
  metrics?: QueueMetrics;
}

export class RateLimitingQueue implements WorkQueue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly metrics: QueueMetrics | undefined;
  private readonly onError: WorkerErrorHandler;
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
    this.onError = opts.onError;
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

  /**
   * A worker's sync of `key` threw: onError hears of it, then the key is put
   * back after its backoff, as a 'retry' would be (even should onError throw).
   */
  retryAfterError(key: string, err: unknown): void {
    try {
      this.onError(key, err);
    } finally {
      this.addRateLimited(key);
    }
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
