// The informer's cache (client-go's cache.Store/Indexer keyed by
// MetaNamespaceKeyFunc): objects by `namespace/name` or `name`, frozen on the
// way in so no consumer can mutate what other consumers read.

import { objectKey, type KubeObject } from './types.ts';
import { deepFreeze } from '../util/deep-freeze.ts';

/** What a relist changed, so the informer can notify handlers. */
export interface ReplaceResult<T> {
  added: T[];
  /** Still present after the relist: [old, new]. */
  updated: Array<[T, T]>;
  /** Present before, absent from the new list. */
  deleted: Array<{ key: string; obj: T }>;
}

export class Store<T extends KubeObject> {
  private readonly items = new Map<string, T>();

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  /** Cached objects whose labels contain every pair of `matchLabels`. */
  list(matchLabels?: Record<string, string>): T[] {
    const all = [...this.items.values()];
    if (!matchLabels || Object.keys(matchLabels).length === 0) return all;
    const wanted = Object.entries(matchLabels);
    return all.filter((o) => wanted.every(([k, v]) => o.metadata.labels?.[k] === v));
  }

  size(): number {
    return this.items.size;
  }

  /** Stores `obj` (frozen); returns the previous version, if any. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj.metadata);
    const old = this.items.get(key);
    this.items.set(key, deepFreeze(obj));
    return old;
  }

  /** Removes the object with `obj`'s key; returns what was cached. */
  remove(obj: T): T | undefined {
    const key = objectKey(obj.metadata);
    const old = this.items.get(key);
    this.items.delete(key);
    return old;
  }

  /** Replaces the whole content with a fresh list. */
  replace(objs: T[]): ReplaceResult<T> {
    const result: ReplaceResult<T> = { added: [], updated: [], deleted: [] };
    const fresh = new Map<string, T>();
    for (const obj of objs) fresh.set(objectKey(obj.metadata), deepFreeze(obj));
    for (const [key, obj] of this.items) if (!fresh.has(key)) result.deleted.push({ key, obj });
    for (const [key, obj] of fresh) {
      const old = this.items.get(key);
      if (old) result.updated.push([old, obj]);
      else result.added.push(obj);
    }
    this.items.clear();
    for (const [key, obj] of fresh) this.items.set(key, obj);
    return result;
  }
}
