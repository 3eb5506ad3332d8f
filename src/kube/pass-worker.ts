// A worker of whole passes: every change it hears of only asks for a pass,
// a burst of asks is gathered into one (coalescing-trigger.ts) unless it is
// asked for at once, the pass runs on a queue of one key so two never
// overlap, and a pass that could not finish is retried with the queue's
// backoff. The followers that write Nodes (our labels, the fabric taint) and
// the Topology objects are each one of these around their pass.

import type { Clock } from './clock.ts';
import { coalescingTrigger, type CoalescingTrigger } from './coalescing-trigger.ts';
import { runWorker, type SyncResult } from './queue-workers.ts';
import type { RateLimiter } from './rate-limiters.ts';
import { RateLimitingQueue, type QueueMetrics, type WorkerErrorHandler } from './rate-limiting-queue.ts';

export interface PassWorkerOptions {
  /** The queue's name, in the workqueue_* metrics and in a worker error's log line. */
  readonly name: string;
  readonly clock: Clock;
  /** How long asks are gathered into one pass. */
  readonly quietMs: number;
  /** The backoff of a pass that returned 'retry' or threw. */
  readonly rateLimiter: RateLimiter;
  readonly metrics?: QueueMetrics;
  /** Where a throw of the pass goes (the process logs and counts it); the pass is retried. */
  readonly onError: WorkerErrorHandler;
  /** Where a throw of queueing a pass goes: it happens on a timer nobody awaits. */
  readonly onScheduleError: (err: unknown) => void;
}

/** The one key every pass runs under: what a pass looks at is everything, not a key's object. */
const PASS_KEY = 'pass';

export class PassWorker {
  readonly queue: RateLimitingQueue;
  private readonly asks: CoalescingTrigger;

  constructor(
    opts: PassWorkerOptions,
    private readonly pass: () => Promise<SyncResult>,
  ) {
    this.queue = new RateLimitingQueue({
      name: opts.name,
      clock: opts.clock,
      rateLimiter: opts.rateLimiter,
      metrics: opts.metrics,
      onError: opts.onError,
    });
    this.asks = coalescingTrigger(() => this.queue.add(PASS_KEY), {
      quietMs: opts.quietMs,
      clock: opts.clock,
      onError: opts.onScheduleError,
    });
  }

  /** Asks for a pass: it runs once the asks have been quiet for quietMs. */
  schedule(): void {
    this.asks.trigger();
  }

  /** Asks for a pass at once, for a change worth no wait; it still never overlaps a running pass. */
  now(): void {
    this.queue.add(PASS_KEY);
  }

  run(): Promise<void> {
    return runWorker(this.queue, () => this.pass());
  }

  shutDown(): void {
    this.asks.stop();
    this.queue.shutDown();
  }
}
