// An Informer over a fixed set of objects that never changes: the cache a
// one-shot, offline run hands to code written against informers (objects read
// from files instead of listed and watched). It is synced from the start, a
// new handler receives a synthetic onAdd per object as client-go promises,
// and objects handed out are frozen so no caller can change the "cache".

import type { EventHandler, HandlerRegistration, Informer, KubeObject } from './types.ts';
import { objectKey } from './types.ts';
import { deepFreeze } from '../util/deep-freeze.ts';

export class StaticInformer<T extends KubeObject> implements Informer<T> {
  private readonly store = new Map<string, T>();

  /** A later object with the same key replaces an earlier one, as a relist would. */
  constructor(objects: Iterable<T>) {
    for (const obj of objects) this.store.set(objectKey(obj.metadata), deepFreeze(obj));
  }

  list(matchLabels?: Record<string, string>): T[] {
    const all = [...this.store.values()];
    if (!matchLabels) return all;
    const wanted = Object.entries(matchLabels);
    return all.filter((o) => wanted.every(([k, v]) => o.metadata.labels?.[k] === v));
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  /** Nothing ever changes, so the registration only replays the current objects. */
  addEventHandler(handler: EventHandler<T>): HandlerRegistration {
    for (const obj of this.store.values()) handler.onAdd?.(obj);
    return { remove() {} };
  }

  hasSynced(): boolean {
    return true;
  }

  async waitForSync(): Promise<void> {}
}
