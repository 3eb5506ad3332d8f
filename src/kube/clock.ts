// Injected time. Everything that waits (leader election, backoff, work-queue
// delays, debounce, periodic discovery) takes a Clock so tests can drive time
// deterministically instead of sleeping.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds. Rejects with `signal.reason` (an AbortError
   * when none was given) if the signal fires first.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.max(0, ms));
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** True when `err` is what an aborted wait rejects with. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && err === signal.reason) return true;
  return err instanceof Error && err.name === 'AbortError';
}
