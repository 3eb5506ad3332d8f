// AbortSignal helpers shared by everything that waits: what an aborted wait
// rejects with, how to recognise it, a child signal that unhooks itself, and
// a wait that gives up quietly when a signal fires.

/** What a wait cut short by `signal` rejects with: its reason, or an AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** True when `err` is what an aborted wait rejects with. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && err === signal.reason) return true;
  return err instanceof Error && err.name === 'AbortError';
}

/** Waits for `promise` or `signal`, whichever comes first, leaving no listener behind; never rejects on abort. */
export function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

// A cancellable child of another AbortSignal that unhooks itself when done.
// Used instead of AbortSignal.any() on hot paths (every request, every lease
// renewal): listeners on a long-lived parent signal are removed explicitly, so
// nothing accumulates on the process-lifetime signal between requests.

export interface ChildSignal {
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
  /** Detaches from the parent; call when the operation is over. */
  dispose(): void;
}

export function childSignal(parent?: AbortSignal): ChildSignal {
  const ctl = new AbortController();
  const onParentAbort = () => ctl.abort(parent!.reason);
  if (parent?.aborted) ctl.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: ctl.signal,
    abort: (reason) => ctl.abort(reason),
    dispose: () => parent?.removeEventListener('abort', onParentAbort),
  };
}
