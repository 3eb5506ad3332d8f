// Long synchronous work written once, run two ways. Decoding a large answer
// (tens of thousands of elements) takes seconds of CPU, and the thread that
// does it is the one that answers /healthz and renews the Lease. So a decoder
// is a generator that yields between steps (after each element): a preview
// runs it whole (`runWhole`), the controller in slices of SLICE_MS with a turn
// of the event loop between them (`runInSlices`), so a probe waits at most a
// slice plus one step, and each step is bounded by the parse bounds
// (bounded-json.ts).

import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work that yields between steps and returns its result. */
export type SlicedWork<T> = Generator<void, T, void>;

/**
 * How long a slice runs before the event loop gets a turn: well under the probes' one-second timeout and the Lease's
 * renew period, long enough that the turns cost little (a turn is microseconds when nothing is waiting).
 */
export const SLICE_MS = 20;

/** Runs `work` to its end in one go. */
export function runWhole<T>(work: SlicedWork<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** A synchronous step as sliced work, for work that takes sliced steps and is handed one that is not. */
export function* oneStep<T>(step: () => T): SlicedWork<T> {
  yield;
  return step();
}

/** A turn of the event loop between two long synchronous steps that are not sliced themselves. */
export const betweenSteps = (): Promise<void> => nextTurn();

/** Runs `work` in slices of `sliceMs`, the event loop taking a turn between them; stops early when `signal` aborts. */
export async function runInSlices<T>(work: SlicedWork<T>, signal?: AbortSignal, sliceMs = SLICE_MS): Promise<T> {
  let sliceEnd = performance.now() + sliceMs;
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() < sliceEnd) continue;
    await nextTurn();
    signal?.throwIfAborted();
    sliceEnd = performance.now() + sliceMs;
  }
}
