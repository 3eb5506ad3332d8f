// Async work with a bound on how much runs at once: `Slots` hands out up to
// a limit of slots, the limit read again at every acquire so that it may
// follow what is measured meanwhile (the API server's latency), and
// `mapBounded` runs a function over many items through them, keeping the
// results in input order. Polling a thousand switches at once would flood
// the management network; writing a thousand objects one at a time waits a
// thousand round trips.

/** A limit that is fixed, or read again whenever a slot is asked for. */
export type Limit = number | (() => number);

export class Slots {
  private taken = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly limit: () => number;

  constructor(limit: Limit) {
    this.limit = typeof limit === 'number' ? () => limit : limit;
  }

  /**
   * Takes a free slot now, if there is one. For a single caller (a loop that
   * hands out work): callers that wait in acquire() could be passed by it.
   */
  tryAcquire(): boolean {
    if (this.taken >= Math.max(1, this.limit())) return false;
    this.taken++;
    return true;
  }

  /** Resolves once a slot is free (at least one slot always exists); give it back with release(). */
  async acquire(): Promise<void> {
    while (this.taken >= Math.max(1, this.limit())) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.taken++;
  }

  release(): void {
    this.taken--;
    this.waiting.shift()?.();
  }

  /** Runs `fn` in a slot. */
  async run<R>(fn: () => Promise<R>): Promise<R> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Slots taken now. */
  inUse(): number {
    return this.taken;
  }
}

/**
 * `fn` over `items` with at most `limit` calls in flight, started in input
 * order. After a call throws no new one starts; the first error is thrown
 * once every started call has ended.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: Limit,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const slots = new Slots(limit);
  const started: Promise<void>[] = [];
  let failure: { err: unknown } | undefined;
  // Called at once, up to its first await; a synchronous throw counts as a failed call.
  const run = async (index: number) => {
    try {
      results[index] = await fn(items[index]!, index);
    } catch (err) {
      failure ??= { err };
    } finally {
      slots.release();
    }
  };
  for (let i = 0; i < items.length && !failure; i++) {
    // A free slot is taken without a turn of the event loop: most items of a large round write nothing.
    if (!slots.tryAcquire()) await slots.acquire();
    if (failure) {
      slots.release();
      break;
    }
    started.push(run(i));
  }
  await Promise.all(started);
  if (failure) throw failure.err;
  return results;
}
