// A one-shot gate: wait() resolves once open() has been called (immediately
// if it already was); a wait whose signal fires first rejects with the
// signal's reason and is forgotten. Informers use it for "has synced".

import { abortReason } from './abort.ts';

export class Latch {
  private opened = false;
  private readonly waiters = new Set<() => void>();

  isOpen(): boolean {
    return this.opened;
  }

  /** Opens the gate and releases every waiter; later calls do nothing. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    for (const release of this.waiters) release();
    this.waiters.clear();
  }

  wait(signal?: AbortSignal): Promise<void> {
    if (this.opened) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const release = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters.delete(release);
        reject(abortReason(signal!));
      };
      this.waiters.add(release);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
