// Waiting on conditions with deadlines: the only way tests (and the demo) wait for something.

export interface WaitOptions {
  /** Give up after this many ms (default 10 s). */
  timeoutMs?: number;
  /** Poll interval in ms (default 20 ms). */
  intervalMs?: number;
  /** Describes what was awaited, for the failure message. */
  what?: string;
}

/**
 * Polls `probe` until it returns a value other than undefined/false, and returns
 * that value. Throws with `what` and the last probe error after the deadline.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  opts: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${opts.timeoutMs ?? 10_000} ms waiting for ${opts.what ?? 'condition'}${why}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 20));
  }
}

/** Rejects if `promise` does not settle within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
