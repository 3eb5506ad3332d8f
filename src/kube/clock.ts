// Injected time. Everything that waits (leader election, backoff, work-queue
// delays, debounce, periodic discovery) takes a Clock so tests can drive time
// deterministically instead of sleeping.

import { abortReason } from '../util/abort.ts';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds. Rejects with `signal.reason` (an AbortError
   * when none was given) if the signal fires first.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * A Clock that also reads monotonic time, for deadlines that must hold even
 * when the wall clock is stepped. Like Go's monotonic reading (CLOCK_MONOTONIC),
 * it keeps advancing while the process is stopped (SIGSTOP, a stall), so a
 * process that resumes sees how long it was frozen.
 */
export interface MonotonicClock extends Clock {
  /** Milliseconds from an arbitrary origin; never goes backwards. */
  monotonic(): number;
}

export const realClock: MonotonicClock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
