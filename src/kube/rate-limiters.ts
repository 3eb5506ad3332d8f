// How long a work queue's key waits before it is retried, as client-go's
// util/workqueue default_rate_limiters.go: per-key exponential backoff, an
// overall token bucket, and the worst of several. The default is client-go's
// DefaultControllerRateLimiter: max(per-key backoff, overall bucket).

import { realClock, type Clock } from './clock.ts';
import { TokenBucket } from './token-bucket.ts';

export interface RateLimiter {
  /** Delay in ms before `key` may be retried; counts a failure. */
  when(key: string): number;
  forget(key: string): void;
  numRequeues(key: string): number;
}

const DEFAULT_BASE_DELAY_MS = 5;
const DEFAULT_MAX_DELAY_MS = 1_000_000;
const DEFAULT_BUCKET_QPS = 10;
const DEFAULT_BUCKET_BURST = 100;

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
