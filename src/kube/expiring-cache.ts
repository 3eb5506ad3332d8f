// A small cache of promised answers that expire: the access reviews keep the
// API server's verdict on a token for a short while, so a scraper or a page
// reload costs no review per request. A pending answer is shared by every
// caller of the same key (ten requests at once make one review); an answer
// that fails is dropped at once, so an error is never remembered, and so is
// one the owner says not to keep (a refusal kept elsewhere, for less long).
// Bounded in entries, oldest first out, so a flood of distinct keys cannot
// grow memory.

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
    /** Whether a resolved answer is kept at all (default: every one). */
    private readonly keep: (value: V) => boolean = () => true,
  ) {}

  /** The answer kept or pending for `key`, if any, without making one. */
  peek(key: string): Promise<V> | undefined {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.clock.now()) return hit.value;
    if (hit) this.entries.delete(key);
    return undefined;
  }

  /** The cached answer for `key`, or the one `load` makes (and the cache keeps until it expires). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    return this.peek(key) ?? this.store(key, load());
  }

  /** Keeps `value` as the answer for `key` from now on. */
  set(key: string, value: V): void {
    void this.store(key, Promise.resolve(value));
  }

  private store(key: string, value: Promise<V>): Promise<V> {
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const entry: Entry<V> = { value, expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(key, entry);
    const drop = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    value.then((resolved) => {
      if (this.keep(resolved)) entry.expiresAt = this.clock.now() + this.ttlMs;
      else drop();
    }, drop);
    return value;
  }
}
