// A Clock whose time only moves when a test says so. advance() fires due
// sleepers in time order and lets the promise chains they wake run before
// moving on, so timing-dependent code is tested without sleeping.

import type { MonotonicClock } from '../../src/kube/clock.ts';
import { abortReason } from '../../src/util/abort.ts';

interface Sleeper {
  due: number;
  seq: number;
  wake: () => void;
}

/** Lets pending promise chains (and setImmediate callbacks) run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

export class FakeClock implements MonotonicClock {
  private t: number;
  private seq = 0;
  private sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 0, 2, 3, 4, 5, 678)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  /** Moves with now(): the fake wall clock is never stepped. */
  monotonic(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const s: Sleeper = {
        due: this.t + Math.max(0, ms),
        seq: this.seq++,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((x) => x !== s);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(s);
    });
  }

  /** Number of pending sleeps (to wait until code under test is parked). */
  pending(): number {
    return this.sleepers.length;
  }

  /**
   * Moves time forward by `ms` without waking anyone, as when the process was
   * frozen: the sleepers that came due are overdue and wake at the next advance().
   */
  jump(ms: number): void {
    this.t += ms;
  }

  /** Moves time forward by `ms`, waking sleepers in order as their time comes. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      this.sleepers.sort((a, b) => a.due - b.due || a.seq - b.seq);
      const next = this.sleepers[0];
      if (!next || next.due > end) break;
      this.sleepers.shift();
      this.t = Math.max(this.t, next.due);
      next.wake();
      await settle();
    }
    this.t = end;
    await settle();
  }
}
