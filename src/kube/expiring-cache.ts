// A small cache of promised answers that expire: the access reviews keep the
// API server's verdict on a token for a short while, so a scraper or a page
// reload costs no review per request. A pending answer is shared by every
// caller of the same key (ten requests at once make one review); an answer
// that fails is dropped at once, so an error is never remembered. Bounded in
// entries, oldest first out, so a flood of distinct keys cannot grow memory.

import type { Clock } from './clock.ts';

interface Entry<V> {
  readonly value: Promise<V>;
  /** Set once the value resolved: the answer's age is counted from then. */
  expiresAt: number;
}

export class ExpiringCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly clock: Clock,
    /** How long a resolved answer is kept, in ms. */
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The cached answer for `key`, or the one `load` makes (and the cache keeps until it expires). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.clock.now()) return hit.value;
    if (hit) this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const value = load();
    const entry: Entry<V> = { value, expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    value.then(
      () => {
        entry.expiresAt = this.clock.now() + this.ttlMs;
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return value;
  }
}
