// An in-memory resource with resourceVersions, history and compaction that
// speaks the reflector's ListerWatcher contract, with scripted faults: failed
// lists, rejected watch starts, cut or broken streams. Records every call.

import { ApiError } from '../../src/kube/errors.ts';
import type { ListerWatcher } from '../../src/kube/reflector.ts';
import type { ObjectList } from '../../src/kube/resource.ts';
import type { KubeObject, WatchEvent } from '../../src/kube/types.ts';

interface Stream {
  push(ev: WatchEvent<KubeObject>): void;
  end(err?: Error): void;
}

export const gone = () => new ApiError('too old resource version', 410, 'Expired');

export class FakeResource implements ListerWatcher<KubeObject> {
  private rv = 0;
  private compactedAt = 0;
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: Array<{ rv: number; ev: WatchEvent<KubeObject> }> = [];
  private readonly streams = new Set<Stream>();
  readonly listCalls: Array<{ limit?: number; continue?: string; resourceVersion?: string }> = [];
  /**
   * Like an API server's watch cache: a resourceVersion=0 list is answered whole, limit ignored. Off = paged like etcd.
   */
  watchCache = true;
  readonly watchCalls: Array<{ resourceVersion: string; timeoutSeconds: number; allowWatchBookmarks: boolean }> = [];
  /** Errors thrown by the next list / watch-start calls, in order (`undefined`: that list succeeds). */
  readonly listFailures: Array<Error | undefined> = [];
  readonly watchFailures: Error[] = [];

  set(name: string, labels: Record<string, string> = {}, extra: Record<string, unknown> = {}): void {
    const type = this.objects.has(name) ? 'MODIFIED' : 'ADDED';
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: {
        name,
        labels,
        uid: `uid-${name}`,
        resourceVersion: String(++this.rv),
        annotations: { big: 'x'.repeat(100) },
      },
      ...extra,
    };
    this.objects.set(name, obj);
    this.emit({ type, object: structuredClone(obj) });
  }

  delete(name: string): void {
    const obj = this.objects.get(name);
    if (!obj) return;
    this.objects.delete(name);
    this.emit({
      type: 'DELETED',
      object: { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } },
    });
  }

  /** Changes made while nobody watches and history is forgotten: the next watch from an old RV gets 410. */
  compact(): void {
    this.compactedAt = this.rv;
  }

  /** Ends every open watch, cleanly or with `err`. */
  cut(err?: Error): void {
    for (const s of [...this.streams]) s.end(err);
  }

  /** Sends a BOOKMARK at the current resourceVersion to every open watch. */
  bookmark(): void {
    for (const s of this.streams)
      s.push({ type: 'BOOKMARK', object: { kind: 'Thing', metadata: { name: '', resourceVersion: String(this.rv) } } });
  }

  openWatches(): number {
    return this.streams.size;
  }

  names(): string[] {
    return [...this.objects.keys()].sort();
  }

  private emit(ev: WatchEvent<KubeObject>): void {
    this.history.push({ rv: this.rv, ev });
    for (const s of this.streams) s.push(ev);
  }

  /** As the API client does: every item through `eachItem`, once. */
  async list(opts: {
    limit?: number;
    continue?: string;
    resourceVersion?: string;
    signal: AbortSignal;
    eachItem?: (item: KubeObject) => KubeObject;
  }): Promise<ObjectList<KubeObject>> {
    this.listCalls.push({
      ...(opts.limit ? { limit: opts.limit } : {}),
      ...(opts.continue ? { continue: opts.continue } : {}),
      ...(opts.resourceVersion !== undefined ? { resourceVersion: opts.resourceVersion } : {}),
    });
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    const all = [...this.objects.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const start = opts.continue ? Number(opts.continue) : 0;
    const limit = !opts.limit || (this.watchCache && opts.resourceVersion === '0') ? all.length : opts.limit;
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : undefined;
    const items = structuredClone(page);
    return {
      metadata: { resourceVersion: String(this.rv), ...(next ? { continue: next } : {}) },
      items: opts.eachItem ? items.map(opts.eachItem) : items,
    };
  }

  async watch(opts: {
    resourceVersion: string;
    timeoutSeconds: number;
    allowWatchBookmarks: boolean;
    signal: AbortSignal;
  }): Promise<AsyncIterable<WatchEvent<KubeObject>>> {
    this.watchCalls.push({
      resourceVersion: opts.resourceVersion,
      timeoutSeconds: opts.timeoutSeconds,
      allowWatchBookmarks: opts.allowWatchBookmarks,
    });
    const failure = this.watchFailures.shift();
    if (failure) throw failure;
    const from = Number(opts.resourceVersion);
    if (from < this.compactedAt) throw gone();
    const queue: WatchEvent<KubeObject>[] = this.history.filter((h) => h.rv > from).map((h) => h.ev);
    let ended: { err?: Error } | undefined;
    let wake: (() => void) | undefined;
    const stream: Stream = {
      push: (ev) => {
        queue.push(ev);
        wake?.();
      },
      end: (err) => {
        ended = err ? { err } : {};
        this.streams.delete(stream);
        wake?.();
      },
    };
    this.streams.add(stream);
    if (opts.signal.aborted) stream.end();
    else opts.signal.addEventListener('abort', () => stream.end(), { once: true });
    return {
      [Symbol.asyncIterator]: async function* () {
        for (;;) {
          while (queue.length > 0) yield queue.shift()!;
          if (ended) {
            if (ended.err) throw ended.err;
            return;
          }
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
        }
      },
    };
  }
}
