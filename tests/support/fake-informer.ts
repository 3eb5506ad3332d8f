// An in-memory Informer<T> for tests of HyperNode logic. It follows the
// contract of src/kube/types.ts (client-go's shared informer semantics):
// handlers registered after sync first receive a synthetic onAdd per cached
// object; deletes can be delivered as "final state unknown" tombstones;
// objects handed out are frozen copies, so code that mutates the cache fails
// loudly. Mirrors the role of client-go's fake informer factories in Volcano's
// unit tests.

import type { EventHandler, HandlerRegistration, Informer, KubeObject, Tombstone } from '../../src/kube/types.ts';
import { objectKey } from '../../src/kube/types.ts';
import { deepFreeze } from '../../src/util/deep-freeze.ts';
import { Latch } from '../../src/util/latch.ts';

function matches(labels: Record<string, string> | undefined, selector: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

export interface FakeInformerOptions<T> {
  /** Objects present at the first list. */
  initial?: T[];
  /** Start unsynced (default: synced with `initial`). */
  synced?: boolean;
}

export class FakeInformer<T extends KubeObject> implements Informer<T> {
  private readonly store = new Map<string, T>();
  private readonly handlers = new Set<EventHandler<T>>();
  private readonly synced = new Latch();
  private listError: Error | undefined;
  private rvCounter = 0;

  constructor(opts: FakeInformerOptions<T> = {}) {
    for (const obj of opts.initial ?? []) this.store.set(objectKey(obj.metadata), this.stamp(obj));
    if (opts.synced ?? true) this.synced.open();
  }

  // --- Informer / Lister ---------------------------------------------------

  list(matchLabels?: Record<string, string>): T[] {
    if (this.listError) throw this.listError;
    const all = [...this.store.values()];
    return matchLabels ? all.filter((o) => matches(o.metadata.labels, matchLabels)) : all;
  }

  get(key: string): T | undefined {
    if (this.listError) throw this.listError;
    return this.store.get(key);
  }

  addEventHandler(handler: EventHandler<T>): HandlerRegistration {
    this.handlers.add(handler);
    if (this.synced.isOpen()) for (const obj of this.store.values()) handler.onAdd?.(obj);
    return { remove: () => void this.handlers.delete(handler) };
  }

  hasSynced(): boolean {
    return this.synced.isOpen();
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.synced.wait(signal);
  }

  // --- test controls -------------------------------------------------------

  /** Number of registered handlers (to check that stop() unregisters). */
  handlerCount(): number {
    return this.handlers.size;
  }

  /** Completes the first list: existing handlers get an onAdd per object, waiters resolve. */
  markSynced(): void {
    if (this.synced.isOpen()) return;
    for (const obj of this.store.values()) for (const h of [...this.handlers]) h.onAdd?.(obj);
    this.synced.open();
  }

  /** Makes list()/get() throw `err` (undefined restores them), to simulate a broken cache. */
  failReads(err: Error | undefined): void {
    this.listError = err;
  }

  /** Adds or replaces an object and delivers onAdd / onUpdate. Returns the stored copy. */
  apply(obj: T): T {
    const key = objectKey(obj.metadata);
    const old = this.store.get(key);
    const stored = this.stamp(obj);
    this.store.set(key, stored);
    if (!this.synced.isOpen()) return stored;
    for (const h of [...this.handlers]) {
      if (old) h.onUpdate?.(old, stored);
      else h.onAdd?.(stored);
    }
    return stored;
  }

  /** Removes the object with `key`; delivers onDelete with the last state, or a tombstone. */
  remove(key: string, opts: { tombstone?: boolean } = {}): void {
    const old = this.store.get(key);
    if (!old) throw new Error(`fake informer: no object ${key}`);
    this.store.delete(key);
    if (!this.synced.isOpen()) return;
    const payload: T | Tombstone<T> = opts.tombstone ? deepFreeze({ tombstone: true as const, key, obj: old }) : old;
    for (const h of [...this.handlers]) h.onDelete?.(payload);
  }

  private stamp(obj: T): T {
    const copy = structuredClone(obj);
    this.rvCounter += 1;
    // Every write gets a fresh resourceVersion, as the API server would assign.
    copy.metadata.resourceVersion = String(this.rvCounter);
    return deepFreeze(copy);
  }
}
