// Long-running parts of a process started in one declared order and stopped
// in another, under one deadline: controller-runtime's runnable groups
// (pkg/manager/runnable_group.go), reduced to what a process of ours needs.
// Wiring then reads as two lists instead of a function that starts and stops
// each part by hand.

import type { Clock } from './clock.ts';

/** What a runnable is handed when it starts. */
export interface RunContext {
  /**
   * Aborts the moment the group begins to stop, before any runnable's
   * stop() runs: work that only waits is dropped there, at once, while what
   * must end in order ends in its stop().
   */
  readonly stopping: AbortSignal;
  /** Ends the group's run with `err`, for work that fails after it started. */
  failed(err: unknown): void;
}

export interface Runnable {
  /** Named when its stop overruns the deadline. */
  readonly name: string;
  /** Starts the work; the next runnable starts once this resolves. */
  start?(ctx: RunContext): void | Promise<void>;
  /** Ends what start() began and resolves once it has ended. */
  stop?(): void | Promise<void>;
}

export interface RunnableOrder {
  /** Started in this order, each start awaited before the next. */
  readonly start: readonly Runnable[];
  /**
   * Stopped in this order, each stop awaited before the next; every runnable
   * that has a stop() appears once. The reverse of `start` when left out.
   */
  readonly stop?: readonly Runnable[];
}

export interface RunGroupOptions {
  /** Called once every runnable has started. */
  readonly onStarted?: () => void;
  /**
   * Once the stop begins, everything must have stopped within this long;
   * past it the run stops waiting (the stops still due are called, not
   * awaited) and fails naming the runnable it was waiting for.
   */
  readonly stopDeadline?: { readonly ms: number; readonly clock: Clock };
}

/**
 * Starts the runnables in order, runs until `signal` aborts or one reports
 * a failure, then stops the started ones in the stop order. A start that
 * throws stops the ones started before it and fails the run with its error;
 * a start cut short because the group is already stopping is not an error.
 * Rejects with the failure, else the deadline, else the first stop error.
 */
export async function runGroup(signal: AbortSignal, order: RunnableOrder, opts: RunGroupOptions = {}): Promise<void> {
  const stopOrder = checkedStopOrder(order);
  const stopping = new AbortController();
  let failure: Kept;
  const failed = (err: unknown): void => {
    failure ??= { err };
    stopping.abort();
  };
  const onAbort = () => stopping.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) stopping.abort();
  const started = new Set<Runnable>();
  try {
    for (const r of order.start) {
      if (stopping.signal.aborted) break;
      try {
        await r.start?.({ stopping: stopping.signal, failed });
      } catch (err) {
        if (!stopping.signal.aborted) failed(err);
        break;
      }
      started.add(r);
    }
    if (!stopping.signal.aborted) {
      opts.onStarted?.();
      await new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  stopping.abort();
  const stopError = await stopInOrder(
    stopOrder.filter((r) => started.has(r)),
    opts.stopDeadline,
  );
  if (failure) throw failure.err;
  if (stopError) throw stopError.err;
}

/** The stop order, checked: a runnable with a stop() left out, or named twice, is a wiring bug. */
function checkedStopOrder(order: RunnableOrder): readonly Runnable[] {
  const stop = order.stop ?? [...order.start].reverse();
  const missing = order.start.filter((r) => r.stop && !stop.includes(r)).map((r) => r.name);
  const unknown = stop.filter((r, i) => !order.start.includes(r) || stop.indexOf(r) !== i).map((r) => r.name);
  if (missing.length > 0 || unknown.length > 0) {
    const lacks = `stop order lacks [${missing.join(', ')}]`;
    throw new Error(`runnable group: ${lacks}, names unstarted or twice [${unknown.join(', ')}]`);
  }
  return stop;
}

/** An error kept for the end of the run; undefined when there was none. */
type Kept = { readonly err: unknown } | undefined;

/**
 * Awaits each stop in turn; an error is kept and the rest still stop. Past
 * the deadline the rest are called, not awaited.
 */
async function stopInOrder(runnables: readonly Runnable[], deadline: RunGroupOptions['stopDeadline']): Promise<Kept> {
  const timer = new AbortController();
  const expired = new Promise<typeof EXPIRED>((resolve) => {
    deadline?.clock.sleep(deadline.ms, timer.signal).then(
      () => resolve(EXPIRED),
      () => {},
    );
  });
  let first: Kept;
  let overran = false;
  try {
    for (const r of runnables) {
      const stopped = stopOne(r);
      if (overran) continue;
      const outcome = await Promise.race([stopped, expired]);
      if (outcome === EXPIRED) {
        overran = true;
        const within = `within ${deadline!.ms / 1000} s`;
        first ??= { err: new Error(`shutdown did not finish ${within} (still stopping: ${r.name})`) };
      } else if (outcome) first ??= outcome;
    }
  } finally {
    timer.abort();
  }
  return first;
}

const EXPIRED = Symbol('stop deadline expired');

/** Calls `r.stop()` at once; resolves when it has ended, with its error if it threw. */
async function stopOne(r: Runnable): Promise<Kept> {
  try {
    await r.stop?.();
    return undefined;
  } catch (err) {
    return { err };
  }
}

/** A loop that runs until shut down: `run()` resolves once the loop has ended. */
export interface WorkLoop {
  run(): Promise<void>;
  /** Ends the loop after the work in hand; without it the loop ends on its own once its input closes. */
  shutDown?(): void;
}

export interface WorkerOptions {
  /** Call shutDown() the moment the group begins to stop, not in the worker's turn. */
  readonly shutDownAtOnce?: boolean;
}

/**
 * A worker as a runnable: started by run(), stopped by shutDown() and waiting
 * for the loop to end. With `shutDownAtOnce`, shutDown() is called the moment
 * the group begins to stop (what waits in its queue is dropped), and the loop
 * is still awaited in its turn.
 */
export function workerRunnable(name: string, worker: WorkLoop, opts: WorkerOptions = {}): Runnable {
  let loop: Promise<void> = Promise.resolve();
  return {
    name,
    start({ stopping }) {
      if (opts.shutDownAtOnce) stopping.addEventListener('abort', () => worker.shutDown?.(), { once: true });
      loop = worker.run();
    },
    stop() {
      worker.shutDown?.();
      return loop;
    },
  };
}
