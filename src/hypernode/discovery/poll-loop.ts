// The schedule of a polling discoverer (ufm, lldp): a run now, then one per
// interval at a fixed rate (ticks missed while a run was in flight are
// coalesced into the next one); a failed run is retried sooner, with backoff
// doubling from `retryBaseMs` up to `retryMaxMs`, never past the next tick.
// Snapshots go out on a channel that closes when `signal` aborts.

import type { Clock } from '../../kube/clock.ts';
import { Channel } from '../../util/channel.ts';
import type { Snapshot } from '../api/interface.ts';

/** Snapshots the manager has not taken yet (Go: a channel of 10). */
export const OUTPUT_BUFFER = 10;

export interface PollSchedule {
  readonly clock: Clock;
  readonly intervalMs: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly signal: AbortSignal;
}

/**
 * Starts `run` (true: it succeeded; it sends its snapshots on `out`) on the
 * schedule; when `signal` aborts, `stopped` is called and the channel closed.
 */
export function startPolling(schedule: PollSchedule, run: (out: Channel<Snapshot>) => Promise<boolean>, stopped: () => void): Channel<Snapshot> {
  const out = new Channel<Snapshot>(OUTPUT_BUFFER);
  void pollLoop(schedule, () => run(out)).finally(() => {
    stopped();
    out.close();
  });
  return out;
}

async function pollLoop(schedule: PollSchedule, run: () => Promise<boolean>): Promise<void> {
  const { clock, intervalMs, signal } = schedule;
  const origin = clock.now();
  let failures = 0;
  try {
    while (!signal.aborted) {
      const ok = await run();
      failures = ok ? 0 : failures + 1;
      const now = clock.now();
      const nextTick = origin + (Math.floor((now - origin) / intervalMs) + 1) * intervalMs;
      const retryAt = now + Math.min(schedule.retryBaseMs * 2 ** (failures - 1), schedule.retryMaxMs);
      await clock.sleep((ok ? nextTick : Math.min(nextTick, retryAt)) - now, signal);
    }
  } catch {
    // the sleep was aborted: stopped
  }
}
