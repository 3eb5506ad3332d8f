// A Go-style channel: the discovery pipeline (discoverers → manager →
// controller) is specified in terms of buffered and unbuffered channels with
// hand-over semantics, and this keeps that shape instead of emulating it with
// ad-hoc promises. A send on an unbuffered channel completes only when a
// receiver has taken the value.

import { abortReason } from './abort.ts';

type Receiver<T> = (r: IteratorResult<T, undefined>) => void;
interface PendingSend<T> {
  value: T;
  delivered: (ok: boolean) => void;
}

export class Channel<T> {
  private readonly buffer: T[] = [];
  private readonly receivers: Receiver<T>[] = [];
  private readonly senders: PendingSend<T>[] = [];
  private closed = false;

  /** `capacity` 0 = unbuffered. */
  constructor(readonly capacity = 0) {}

  /**
   * Sends `value`, waiting for buffer space or (unbuffered) for a receiver.
   * Resolves true when handed over / buffered, false if the channel was closed
   * or `signal` fired before that.
   */
  send(value: T, signal?: AbortSignal): Promise<boolean> {
    if (this.closed || signal?.aborted) return Promise.resolve(false);
    if (this.trySend(value) === 'sent') return Promise.resolve(true);
    return new Promise((resolve) => {
      const pending: PendingSend<T> = {
        value,
        delivered: (ok) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(ok);
        },
      };
      const onAbort = () => {
        const i = this.senders.indexOf(pending);
        if (i >= 0) this.senders.splice(i, 1);
        resolve(false);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.senders.push(pending);
    });
  }

  /** Non-blocking send: 'sent', 'full' (no receiver / no space) or 'closed'. */
  trySend(value: T): 'sent' | 'full' | 'closed' {
    if (this.closed) return 'closed';
    const receiver = this.receivers.shift();
    if (receiver) {
      receiver({ value, done: false });
      return 'sent';
    }
    if (this.buffer.length < this.capacity) {
      this.buffer.push(value);
      return 'sent';
    }
    return 'full';
  }

  /** Next value, or `{done: true}` once closed and drained. Rejects if `signal` fires. */
  recv(signal?: AbortSignal): Promise<IteratorResult<T, undefined>> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const buffered = this.buffer.shift();
    if (buffered !== undefined || this.buffer.length > 0) {
      this.refillFromSenders();
      return Promise.resolve({ value: buffered as T, done: false });
    }
    const sender = this.senders.shift();
    if (sender) {
      sender.delivered(true);
      return Promise.resolve({ value: sender.value, done: false });
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      const receiver: Receiver<T> = (r) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const onAbort = () => {
        const i = this.receivers.indexOf(receiver);
        if (i >= 0) this.receivers.splice(i, 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.receivers.push(receiver);
    });
  }

  /** Closes the channel: pending and future sends fail, receivers drain the buffer then see done. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.senders.splice(0)) s.delivered(false);
    for (const r of this.receivers.splice(0)) r({ value: undefined, done: true });
  }

  isClosed(): boolean {
    return this.closed;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const r = await this.recv();
      if (r.done) return;
      yield r.value;
    }
  }

  private refillFromSenders(): void {
    while (this.buffer.length < this.capacity && this.senders.length > 0) {
      const s = this.senders.shift()!;
      this.buffer.push(s.value);
      s.delivered(true);
    }
  }
}
