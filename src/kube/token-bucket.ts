// A token bucket that hands out reservations, as client-go's
// util/flowcontrol tokenBucketRateLimiter (golang.org/x/time/rate underneath):
// the client sets' request pacing (rest.ts), the reviews of unknown tokens
// (access-review.ts) and the overall bound of the work queues' retries
// (rate-limiters.ts) each hold one.

import { realClock, type Clock } from './clock.ts';

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
