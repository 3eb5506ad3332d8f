// The poll loop of the sources that read a fabric on an interval (ufm, graph,
// lldp, ibnetdiscover): discover now, then on a fixed-rate schedule; a failed
// run retries sooner with exponential backoff, never later than the next tick.
// A run that yields no snapshot publishes nothing, so the controller keeps the
// source's HyperNodes as they are (a fault never deletes them). Between polls
// the loop may be asked to rebuild the snapshot from what the last poll read
// (a Node label the tree reads changed): the requests of a short burst make
// one rebuild (kube/coalescing-trigger.ts), in the loop, so a rebuild
// never overlaps a poll, and the poll schedule stays as it was.

import type { Logger } from '../../log.ts';
import type { Clock } from '../../kube/clock.ts';
import { coalescingTrigger, type CoalescingTrigger } from '../../kube/coalescing-trigger.ts';
import { Channel } from '../../util/channel.ts';
import { runInSlices, type SlicedWork } from '../../util/sliced-work.ts';
import type { Snapshot } from '../model/contracts.ts';

/** Snapshots the manager has not taken yet (Go: a channel of 10). */
const OUTPUT_BUFFER = 10;
/** Shortest poll period honoured: `interval: 1ms` would otherwise poll back to back. */
export const MIN_INTERVAL_MS = 1_000;
/** First retry after a failed run; doubles per failure up to RETRY_MAX_MS, never past the next tick. */
export const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 5 * 60_000;
/**
 * A rebuild waits this long after the first request of a burst (a rollout relabelling a rack), so the burst costs one.
 */
export const REBUILD_COALESCE_MS = 100;

/** One run's outcome: what to publish (nothing when undefined) and whether it fully succeeded. */
export interface PollRun {
  readonly snapshot?: Snapshot;
  readonly ok: boolean;
}

/**
 * Rebuilds asked of a running loop: `request()` from anywhere (an informer
 * handler); the requests of a burst gather for REBUILD_COALESCE_MS from the
 * first, then wake the loop for one rebuild. A burst still gathering when a
 * poll starts is served by the poll.
 */
export class RebuildRequests {
  private pending = false;
  private waker = new AbortController();
  private readonly burst: CoalescingTrigger;

  constructor(clock: Clock, logger: Logger) {
    this.burst = coalescingTrigger(
      () => {
        this.pending = true;
        this.waker.abort();
      },
      {
        quietMs: REBUILD_COALESCE_MS,
        clock,
        onError: (err) => logger.error('Failed to wake the poll loop for a rebuild', { err }),
      },
    );
  }

  request(): void {
    this.burst.trigger();
  }

  /** Aborted when a burst of requests has gathered, or already when one has. */
  wakeSignal(): AbortSignal {
    if (!this.pending) this.waker = new AbortController();
    return this.waker.signal;
  }

  /** Whether a rebuild was asked for since the last take; clears it and drops a burst still gathering. */
  take(): boolean {
    this.burst.cancel();
    const pending = this.pending;
    this.pending = false;
    return pending;
  }

  /** Ignores later requests (the source stopped). */
  stop(): void {
    this.burst.stop();
  }
}

export interface PollLoopOptions {
  readonly intervalMs: number;
  readonly retryBaseMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Logged when the loop ends. */
  readonly stoppedMessage: string;
  /**
   * Rebuilds between polls: what a rebuild publishes (nothing when undefined), as sliced work the loop runs in slices,
   * and who asks for them.
   */
  readonly rebuild?: { readonly requests: RebuildRequests; run(): SlicedWork<Snapshot | undefined> };
}

/**
 * Hands `snapshot` to the manager without waiting; a full channel drops it with a warning (the next run sends again).
 */
function sendSnapshot(out: Channel<Snapshot>, snapshot: Snapshot, logger: Logger): void {
  const sent = out.trySend(snapshot);
  if (sent === 'sent') logger.v(3).info('Sent network topology data', { count: snapshot.length });
  else if (sent === 'full') logger.warn('Failed to send network topology data, channel might be full');
}

/** Starts running `once` until `signal` aborts; the channel carries each run's snapshot and is closed at the end. */
export function startPollLoop(once: () => Promise<PollRun>, opts: PollLoopOptions): Channel<Snapshot> {
  const out = new Channel<Snapshot>(OUTPUT_BUFFER);
  void runPollLoop(out, once, opts);
  return out;
}

async function runPollLoop(out: Channel<Snapshot>, once: () => Promise<PollRun>, opts: PollLoopOptions): Promise<void> {
  const { clock, signal, intervalMs: interval } = opts;
  const origin = clock.now();
  let failures = 0;
  try {
    while (!signal.aborted) {
      // The poll reads the labels as they are now: requests made before it are served by it.
      opts.rebuild?.requests.take();
      const run = await once();
      if (run.snapshot) sendSnapshot(out, run.snapshot, opts.logger);
      failures = run.ok ? 0 : failures + 1;
      const now = clock.now();
      // Ticks missed while a run was in flight are coalesced into the next one.
      const nextTick = origin + (Math.floor((now - origin) / interval) + 1) * interval;
      const retryAt = now + Math.min(opts.retryBaseMs * 2 ** (failures - 1), RETRY_MAX_MS);
      await waitServingRebuilds(run.ok ? nextTick : Math.min(nextTick, retryAt), out, opts);
    }
  } catch {
    // the sleep was aborted: stopped
  } finally {
    opts.logger.info(opts.stoppedMessage);
    out.close();
  }
}

/**
 * Waits until `until`, running a rebuild (and publishing it) for each burst of requests meanwhile. Rejects when
 * stopped.
 */
async function waitServingRebuilds(until: number, out: Channel<Snapshot>, opts: PollLoopOptions): Promise<void> {
  const { clock, signal, rebuild } = opts;
  if (!rebuild) return clock.sleep(until - clock.now(), signal);
  for (let left = until - clock.now(); left > 0; left = until - clock.now()) {
    const wake = rebuild.requests.wakeSignal();
    try {
      await clock.sleep(left, AbortSignal.any([signal, wake]));
      return;
    } catch (err) {
      if (signal.aborted) throw err;
    }
    if (!rebuild.requests.take()) continue;
    let snapshot: Snapshot | undefined;
    try {
      snapshot = await runInSlices(rebuild.run(), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      // The last published snapshot stands; the next poll tries again.
      opts.logger.error('Failed to rebuild the topology from the last poll', { err });
    }
    if (snapshot) sendSnapshot(out, snapshot, opts.logger);
  }
}
