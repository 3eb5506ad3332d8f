// Bookkeeping for HyperNode writes that failed and wait for a retry: each
// failure is counted (by source, verb and status code class), each distinct
// error of one object is reported once — a webhook that rejects the same
// create for an hour yields one log line, not one per retry — and the
// object's recovery is logged. Shared by the topology reconciler and the
// status writer; no Go path retries or counts failed writes.

import type { Clock } from '../../kube/clock.ts';
import { ApiError } from '../../kube/errors.ts';
import { defaultControllerRateLimiter, type RateLimiter } from '../../kube/rate-limiters.ts';
import type { Logger } from '../../log.ts';
import type { HyperNodeMetrics, WriteVerb } from '../hypernode-metrics.ts';
import { errorMessage } from '../../util/error-message.ts';
import { LastReported } from '../../util/reported-once.ts';

/**
 * The per-object backoff cap: client-go's 5 ms doubling, capped at 5 minutes
 * instead of client-go's 1000 s. A rejected HyperNode is missing topology the
 * scheduler needs, and nothing else brings it back (the label source only runs
 * when a Node changes), so once the API server heals it should return within
 * minutes; the overall token bucket (10 writes/s) still keeps a cluster-wide
 * failure from turning into a write storm.
 */
export const WRITE_RETRY_MAX_DELAY_MS = 5 * 60_000;

export function writeRetryRateLimiter(clock: Clock): RateLimiter {
  return defaultControllerRateLimiter(clock, WRITE_RETRY_MAX_DELAY_MS);
}

/** `4xx` / `5xx` for an API answer, `network` when none came back. */
export function codeClass(err: unknown): string {
  return err instanceof ApiError && err.code >= 100 ? `${Math.floor(err.code / 100)}xx` : 'network';
}

export class WriteFailures {
  /** Object key → text of its last reported error. */
  private readonly lastError = new LastReported();

  constructor(private readonly deps: { metrics: HyperNodeMetrics; logger: Logger }) {}

  /**
   * Counts one failed write of `key`. True when the error differs from the
   * one last reported for this key: the caller logs (and emits) it then, and
   * only then; a repeat is logged at -v=2.
   */
  failed(key: string, source: string, verb: WriteVerb, err: unknown): boolean {
    this.deps.metrics.apiWriteFailed(source, verb, codeClass(err));
    const text = errorMessage(err);
    if (this.lastError.isNew(text, key)) return true;
    this.deps.logger.v(2).info('HyperNode write failed again, retrying', { key, verb, err: text });
    return false;
  }

  /** `key` was written, or needs no write any more: logs the recovery when it had failed. */
  resolved(key: string): void {
    if (this.lastError.forget(key)) this.deps.logger.info('HyperNode write recovered after failures', { key });
  }

  /** Keys with an unresolved failure. */
  keys(): string[] {
    return this.lastError.keys();
  }
}
