// The one coalescing primitive: a burst of triggers gathered into one call
// once quiet or at a cap (deno std's debounce, with a cap). Every debounce in
// the tree is one of these: the label source's run, the followers' passes,
// the status writer's judgements, a polling source's early runs.

import type { Clock } from './clock.ts';

export interface CoalescingOptions {
  /** Fire once no trigger has come for this long (a debounce)... */
  readonly quietMs: number;
  /**
   * ...but at the latest this long after the first trigger of the burst, so
   * a stream of triggers that never goes quiet still fires. Defaults to
   * quietMs: a fixed window from the first trigger.
   */
  readonly maxMs?: number;
  readonly clock: Clock;
  /** Where a throw of the callback goes: it runs from a timer nobody awaits. */
  readonly onError: (err: unknown) => void;
}

export interface CoalescingTrigger {
  /** Starts a burst, or joins the one waiting. */
  trigger(): void;
  /** Drops the burst waiting, if any (whoever asked has been served another way); later triggers start a new one. */
  cancel(): void;
  /** Drops the burst waiting and ignores later triggers (at shutdown). */
  stop(): void;
}

/**
 * Gathers a burst of triggers into one call of `fire` (deno std's debounce,
 * with a cap): a rollout relabelling hundreds of Nodes costs one pass, a
 * rack losing power one judgement of each object that depends on it. A trigger
 * during `fire` starts the next burst. Pass `() => queue.add(key)` to put a
 * key on a work queue.
 */
export function coalescingTrigger(fire: () => void, opts: CoalescingOptions): CoalescingTrigger {
  const { quietMs, clock, onError } = opts;
  const maxMs = Math.max(quietMs, opts.maxMs ?? quietMs);
  let stopped = false;
  /** The burst waiting: when it began and what ends its wait; undefined while none waits. */
  let burst: { readonly start: number; readonly wait: AbortController } | undefined;
  let lastTrigger = 0;
  const waitThenCheck = (waiting: NonNullable<typeof burst>, ms: number): void => {
    const from = clock.now();
    // Time slept counts as passed: the previews' clock skips every wait without moving now().
    clock.sleep(ms, waiting.wait.signal).then(
      () => check(waiting, Math.max(clock.now(), from + ms)),
      () => {},
    );
  };
  const check = (waiting: NonNullable<typeof burst>, now: number): void => {
    if (burst !== waiting) return; // cancelled while its wait was ending
    const quietFor = now - lastTrigger;
    const age = now - waiting.start;
    if (quietFor < quietMs && age < maxMs) {
      waitThenCheck(waiting, Math.min(quietMs - quietFor, maxMs - age));
      return;
    }
    burst = undefined;
    try {
      fire();
    } catch (err) {
      onError(err);
    }
  };
  const cancel = (): void => {
    burst?.wait.abort();
    burst = undefined;
  };
  return {
    trigger() {
      if (stopped) return;
      lastTrigger = clock.now();
      if (burst !== undefined) return;
      burst = { start: lastTrigger, wait: new AbortController() };
      waitThenCheck(burst, quietMs);
    },
    cancel,
    stop() {
      stopped = true;
      cancel();
    },
  };
}
