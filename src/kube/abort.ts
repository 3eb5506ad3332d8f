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
