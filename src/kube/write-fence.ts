// Write fencing for a leader-elected process. A leader frozen past its lease
// (SIGSTOP, a VM pause, a long stall) may resume after another replica took
// over. On resuming, the I/O that queued up meanwhile (watch events, HTTP
// answers) runs before the overdue timers, so the renew loop cannot be relied
// on to notice the lost lease before the controller acts on that input. The
// fence is therefore checked synchronously at the moment a write is about to
// be sent: once leading, a write goes out only while the last successful
// Lease renewal is younger than the renew deadline, measured on the monotonic
// clock. client-go has no such check; its leader keeps writing until its renew
// loop gives up.

import type { MonotonicClock } from './clock.ts';
import { errorMessage } from '../util/error-message.ts';

/** A write refused because this process may no longer be the leader. Nothing was sent. */
export class FencedError extends Error {
  override readonly name = 'FencedError';
}

/** Consulted by the REST client before every write; throws FencedError to refuse it. */
export interface WriteFence {
  check(): void;
}

/**
 * The fence a LeaderElector keeps: open while campaigning (the elector's own
 * acquire attempts must get through), then, once leading, open only until the
 * renew deadline counted from the send time of the last successful renewal.
 * Once it has refused a write or leadership ended, it stays shut.
 */
export class LeadershipFence implements WriteFence {
  private leading = false;
  private renewedAt = 0;
  private validForMs = 0;
  private readonly shut = new AbortController();

  constructor(private readonly clock: MonotonicClock) {}

  /** Aborts, with a FencedError as reason, when the fence shuts: leadership is over. */
  get ended(): AbortSignal {
    return this.shut.signal;
  }

  /**
   * A Lease write sent at monotonic time `sentAt` succeeded. The send time,
   * not the answer's arrival, counts: a process frozen while the answer was in
   * flight must not extend its term by the length of the freeze.
   */
  renewed(sentAt: number, validForMs: number): void {
    if (this.shut.signal.aborted) return;
    this.leading = true;
    this.renewedAt = Math.max(this.renewedAt, sentAt);
    this.validForMs = validForMs;
  }

  /** Milliseconds until a leader's writes are refused (Infinity while campaigning, 0 once shut). */
  remainingMs(): number {
    if (this.shut.signal.aborted) return 0;
    if (!this.leading) return Infinity;
    return Math.max(0, this.renewedAt + this.validForMs - this.clock.monotonic());
  }

  /** Shuts the fence for good; `reason` says why in every later refusal. */
  end(reason: string): void {
    if (!this.shut.signal.aborted) this.shut.abort(new FencedError(reason));
  }

  check(): void {
    if (!this.shut.signal.aborted) {
      if (!this.leading) return;
      const age = this.clock.monotonic() - this.renewedAt;
      if (age < this.validForMs) return;
      this.end(
        `the last successful lease renewal is ${Math.round(age)} ms old, past the renew deadline of ${this.validForMs} ms`,
      );
    }
    throw new FencedError(`write refused, this process no longer leads: ${errorMessage(this.shut.signal.reason)}`);
  }
}
