// The stand-in's etcd plus watch cache: objects per resource keyed like etcd
// (`namespace/name` or `name`), one global revision counter, a bounded event
// history for watch resumption and consistent paged lists, and fan-out to
// live watchers. Mirrors the observable behaviour of
// apiserver/pkg/storage/etcd3 + cacher: resourceVersions are revisions, a
// compacted revision is gone for good.

/** An object as the server decodes, stores and serves it: JSON, any kind. */
export type Obj = Record<string, any>;

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One stored version of an object. Never mutated once stored; serialisations are cached on it. */
export class Stored {
  private cache = new Map<string, string>();
  constructor(
    readonly resource: string,
    readonly key: string,
    readonly rv: number,
    readonly obj: Readonly<Obj>,
  ) {}

  /**
   * Builds a serialisation once (per form: full, list item, metadata-only, watch line) and reuses it for every reader.
   */
  memo(form: string, make: () => string): string {
    let s = this.cache.get(form);
    if (s === undefined) {
      s = make();
      this.cache.set(form, s);
    }
    return s;
  }
}

export interface StoreEvent {
  type: EventType;
  rv: number;
  resource: string;
  /** The new state (for DELETED: the last state, stamped with the deletion's revision). */
  object: Stored;
  /** The state before this event (absent for ADDED). */
  previous?: Stored;
}

const byKey = (a: Stored, b: Stored): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export type Listener = (ev: StoreEvent) => void;

/** The watch cache grows to at most 100 * 1024 events per resource; one shared log of that size stands in. */
export const DEFAULT_HISTORY_EVENTS = 100 * 1024;

export class ObjectStore {
  /** Last revision handed out. */
  rv = 0;
  /** etcd's compaction point: continue tokens and Exact lists need a revision at or after it. */
  compactedRv = 0;
  /** The watch cache's start: watches may resume from this revision or later (>= compactedRv). */
  watchFloorRv = 0;
  private objects = new Map<string, Map<string, Stored>>();
  private history: StoreEvent[] = [];
  private listeners = new Map<string, Set<Listener>>();
  private snapshots = new Map<string, Stored[]>();
  /** Revision of the last write per resource: the watch cache of that resource is at it. */
  private lastWrite = new Map<string, number>();
  /** Key-ordered current objects per resource, rebuilt after a write to that resource. */
  private sorted = new Map<string, Stored[]>();

  constructor(private readonly historyLimit = DEFAULT_HISTORY_EVENTS) {}

  private bucket(resource: string): Map<string, Stored> {
    let m = this.objects.get(resource);
    if (!m) this.objects.set(resource, (m = new Map()));
    return m;
  }

  get(resource: string, key: string): Stored | undefined {
    return this.objects.get(resource)?.get(key);
  }

  /** Current objects in key order, as etcd returns a range. The array is shared: do not mutate it. */
  list(resource: string): readonly Stored[] {
    let out = this.sorted.get(resource);
    if (!out) {
      out = [...this.bucket(resource).values()].sort(byKey);
      this.sorted.set(resource, out);
    }
    return out;
  }

  /**
   * The objects as they were at revision `rv` (needs rv >= compactedRv), rebuilt by
   * undoing later events; cached because a paged list asks for the same one per page.
   */
  listAt(resource: string, rv: number): readonly Stored[] {
    if (rv >= this.rv) return this.list(resource);
    const id = `${resource}@${rv}`;
    const cached = this.snapshots.get(id);
    if (cached) return cached;
    const state = new Map(this.bucket(resource));
    for (let i = this.history.length - 1; i >= 0 && this.history[i].rv > rv; i--) {
      const ev = this.history[i];
      if (ev.resource !== resource) continue;
      if (ev.previous) state.set(ev.object.key, ev.previous);
      else state.delete(ev.object.key);
    }
    const out = [...state.values()].sort(byKey);
    if (this.snapshots.size > 16) this.snapshots.clear();
    this.snapshots.set(id, out);
    return out;
  }

  /** Writes a new version; `build` receives the revision to stamp into metadata.resourceVersion. */
  put(resource: string, key: string, build: (rv: number) => Obj): Stored {
    const rv = ++this.rv;
    const previous = this.get(resource, key);
    const stored = new Stored(resource, key, rv, build(rv));
    this.bucket(resource).set(key, stored);
    this.emit({ type: previous ? 'MODIFIED' : 'ADDED', rv, resource, object: stored, previous });
    return stored;
  }

  remove(resource: string, key: string): Stored | undefined {
    const previous = this.get(resource, key);
    if (!previous) return undefined;
    const rv = ++this.rv;
    const obj = { ...previous.obj, metadata: { ...previous.obj.metadata, resourceVersion: String(rv) } };
    const stored = new Stored(resource, key, rv, obj);
    this.bucket(resource).delete(key);
    this.emit({ type: 'DELETED', rv, resource, object: stored, previous });
    return stored;
  }

  /**
   * The resourceVersion a list served from the watch cache reports: the
   * resource's last write, which can be older than the store's revision (a
   * real server's cache of Nodes does not move on when a ConfigMap is
   * written). Never before the cache's start, so a watch from it is served.
   */
  cacheRv(resource: string): number {
    return Math.max(this.lastWrite.get(resource) ?? 0, this.watchFloorRv, 1);
  }

  private emit(ev: StoreEvent): void {
    this.lastWrite.set(ev.resource, ev.rv);
    this.sorted.delete(ev.resource);
    this.history.push(ev);
    // Trimmed in batches: shifting a 100k-entry array on every write would make bulk seeding quadratic.
    if (this.history.length > this.historyLimit + Math.ceil(this.historyLimit / 8)) {
      const drop = this.history.length - this.historyLimit;
      this.compactedRv = this.history[drop - 1].rv;
      this.watchFloorRv = Math.max(this.watchFloorRv, this.compactedRv);
      this.history.splice(0, drop);
      this.snapshots.clear();
    }
    for (const l of this.listeners.get(ev.resource) ?? []) l(ev);
  }

  /** Events of `resource` after revision `rv`, oldest first (caller checks rv >= watchFloorRv). */
  eventsSince(resource: string, rv: number): StoreEvent[] {
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.history[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo).filter((e) => e.resource === resource);
  }

  subscribe(resource: string, l: Listener): () => void {
    let set = this.listeners.get(resource);
    if (!set) this.listeners.set(resource, (set = new Set()));
    set.add(l);
    return () => set.delete(l);
  }

  /**
   * etcd compacts at the current revision: continue tokens and exact reads
   * from before now answer 410. With `watchCache` the watch history goes too
   * (resuming a watch from before now is 410 as well); without it the watch
   * cache keeps serving, as a real server's does after an etcd compaction.
   */
  compact(watchCache = true): void {
    this.snapshots.clear();
    this.compactedRv = this.rv;
    if (!watchCache) return;
    this.history = [];
    this.watchFloorRv = this.rv;
  }

  /** A fresh watch cache (API server restart): watches from before now get 410, etcd history stays. */
  resetWatchCache(): void {
    this.watchFloorRv = this.rv;
  }

  /** Empties the store; the revision jumps ahead by `jump`, as after an etcd restore. */
  wipe(jump: number): void {
    this.objects.clear();
    this.sorted.clear();
    this.rv += jump;
    this.compact();
  }
}
