// Keeps a cache equal to the server's state of one resource, and never gives
// up until stopped. Mirrors client-go's tools/cache/reflector.go and
// tools/pager, including which list it asks for (the watch cache first, a
// consistent paged read when that fails): that choice decides what a
// 100,000-Node cluster costs the API server (docs/design.md §2, "Listing").

import type { Logger } from '../log.ts';
import { Backoff } from './backoff.ts';
import { isAbort } from '../util/abort.ts';
import type { Clock } from './clock.ts';
import { ApiError, isGone, isTooLargeResourceVersion } from './errors.ts';
import { LIST_PAGE_SIZE, listAllPages, type ListedPages, type PageRequest } from './list-pager.ts';
import type { ObjectList } from './resource.ts';
import { BodyTooLargeError } from '../util/body-too-large-error.ts';
import type { KubeObject, WatchEvent } from './types.ts';
import { errorMessage } from '../util/error-message.ts';
import { LastReported } from '../util/reported-once.ts';

/** client-go: watches time out server-side after 5–10 minutes, randomised to spread reconnects. */
export const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** A watch with no bytes for its timeout plus this margin is considered dead. */
const WATCH_IDLE_MARGIN_MS = 30_000;
/** client-go: a watch closed by the server this soon without any event is a fault, not a timeout. */
const VERY_SHORT_WATCH_MS = 1_000;

export interface ListerWatcher<T> {
  /**
   * One list request (PageRequest). With `eachItem`, every item comes back
   * passed through it exactly once (a whole list as it is read), so the
   * caller never transforms a list again.
   */
  list(opts: PageRequest & { signal: AbortSignal; eachItem?: (item: T) => T }): Promise<ObjectList<T>>;
  watch(opts: {
    resourceVersion: string;
    timeoutSeconds: number;
    allowWatchBookmarks: boolean;
    idleTimeoutMs: number;
    signal: AbortSignal;
  }): Promise<AsyncIterable<WatchEvent<T>>>;
}

/** Where the reflector delivers what it learns (the informer). */
export interface ReflectorSink<T> {
  /** A complete list: the cache becomes exactly `items`. */
  replace(items: T[]): void;
  /** One ADDED / MODIFIED / DELETED event. */
  apply(event: WatchEvent<T>): void;
}

export interface ReflectorOptions<T> {
  /** The resource, named in errors about its answers (e.g. `nodes`). */
  resource: string;
  listerWatcher: ListerWatcher<T>;
  sink: ReflectorSink<T>;
  /** Applied to every listed item before `sink.replace` (the lister applies it, once). */
  eachItem?: (item: T) => T;
  clock: Clock;
  /** Carries the resource name for context. */
  logger: Logger;
  random?: () => number;
  /** Server-side watch timeout is drawn from [min, 2·min). */
  minWatchTimeoutSeconds?: number;
  backoff?: Backoff;
}

type WatchEnd = 'closed' | 'expired' | 'failed' | 'broken';

export class Reflector<T extends KubeObject> {
  private readonly opts: ReflectorOptions<T>;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private lastSyncResourceVersion = '';
  /** The last list at lastSyncResourceVersion failed with 410 or 504: the next one is a consistent read. */
  private lastSyncResourceVersionUnavailable = false;
  /** The server paged a resourceVersion=0 list: its watch cache is off, so every list is paged. */
  private paginatedResult = false;
  /** The failure last logged as an error; the same one again, retry after retry, is logged only at V(4). */
  private readonly lastReported = new LastReported();

  constructor(opts: ReflectorOptions<T>) {
    this.opts = opts;
    this.random = opts.random ?? Math.random;
    this.backoff = opts.backoff ?? new Backoff(undefined, undefined, this.random);
  }

  /** Lists and watches until `signal` aborts; resolves then. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.opts.logger;
    let needList = true;
    while (!signal.aborted) {
      if (needList) {
        try {
          await this.list(signal);
          needList = false;
          this.lastReported.forget();
        } catch (err) {
          if (signal.aborted) break;
          this.report(log, 'Failed to list', err);
          if (!(await this.pause(signal))) break;
          continue;
        }
      }
      if (signal.aborted) break;
      const end = await this.watch(signal, log);
      if (signal.aborted) break;
      if (end === 'expired') {
        log.v(2).info('Watch expired, relisting', { resourceVersion: this.lastSyncResourceVersion });
        needList = true;
      } else if (end === 'failed') {
        // The server rejected the watch for another reason (e.g. a resourceVersion
        // it no longer understands after a restart): start over from a list.
        needList = true;
        if (!(await this.pause(signal))) break;
      } else if (end === 'broken') {
        // The connection broke: the resourceVersion is still good, resume after a pause.
        if (!(await this.pause(signal))) break;
      }
    }
  }

  private async pause(signal: AbortSignal): Promise<boolean> {
    try {
      await this.opts.clock.sleep(this.backoff.next(), signal);
      return true;
    } catch {
      return false;
    }
  }

  /** client-go's relistResourceVersion: "" = consistent read from etcd, "0" = any state the cache has. */
  private relistResourceVersion(): string {
    if (this.lastSyncResourceVersionUnavailable) return '';
    return this.lastSyncResourceVersion === '' ? '0' : this.lastSyncResourceVersion;
  }

  private async list(signal: AbortSignal): Promise<void> {
    const resourceVersion = this.relistResourceVersion();
    // A list at a set, non-zero resourceVersion is served from the watch cache
    // only when unpaged; paging it would read etcd (client-go opts out too).
    const unpaged = !this.paginatedResult && resourceVersion !== '' && resourceVersion !== '0';
    let result: ListedPages<T>;
    try {
      result = await this.pagedList(resourceVersion, unpaged ? undefined : LIST_PAGE_SIZE, signal);
    } catch (err) {
      // Too large matters only for an answer that came whole: unpaged, or from the watch cache (resourceVersion=0
      // ignores limit).
      const tooBig = err instanceof BodyTooLargeError && (unpaged || resourceVersion === '0');
      if (signal.aborted || !(isGone(err) || isTooLargeResourceVersion(err) || tooBig)) throw err;
      this.opts.logger
        .v(2)
        .info('The cache cannot serve the list, reading consistently', { resourceVersion, err: errorMessage(err) });
      this.lastSyncResourceVersionUnavailable = true;
      // A whole list too large to read at once: pages from now on (ours, not client-go's, which has no size limit).
      if (tooBig) this.paginatedResult = true;
      result = await this.pagedList('', LIST_PAGE_SIZE, signal);
    }
    if (signal.aborted) return;
    if (resourceVersion === '0' && result.paged) this.paginatedResult = true;
    this.lastSyncResourceVersionUnavailable = false;
    this.opts.sink.replace(result.items);
    this.lastSyncResourceVersion = result.resourceVersion;
    this.backoff.reset();
  }

  /** All pages of one list (list-pager.ts), each item through `eachItem` as the lister reads it. */
  private pagedList(resourceVersion: string, limit: number | undefined, signal: AbortSignal): Promise<ListedPages<T>> {
    const { listerWatcher, eachItem } = this.opts;
    return listAllPages((request) => listerWatcher.list({ ...request, signal, ...(eachItem ? { eachItem } : {}) }), {
      resource: this.opts.resource,
      resourceVersion,
      ...(limit ? { limit } : {}),
      logger: this.opts.logger,
    });
  }

  private async watch(signal: AbortSignal, log: Logger): Promise<WatchEnd> {
    const min = this.opts.minWatchTimeoutSeconds ?? MIN_WATCH_TIMEOUT_SECONDS;
    const timeoutSeconds = Math.floor(min * (1 + this.random()));
    let stream: AsyncIterable<WatchEvent<T>>;
    try {
      stream = await this.opts.listerWatcher.watch({
        resourceVersion: this.lastSyncResourceVersion,
        timeoutSeconds,
        allowWatchBookmarks: true,
        idleTimeoutMs: timeoutSeconds * 1000 + WATCH_IDLE_MARGIN_MS,
        signal,
      });
    } catch (err) {
      return this.classify(err, signal, log, 'Failed to watch');
    }
    const started = this.opts.clock.now();
    let events = 0;
    try {
      for await (const ev of stream) {
        const rv = ev.object?.metadata?.resourceVersion;
        if (ev.type !== 'BOOKMARK') this.opts.sink.apply(ev);
        if (rv) this.lastSyncResourceVersion = rv;
        events++;
        this.backoff.reset();
        this.lastReported.forget();
      }
      if (events === 0 && this.opts.clock.now() - started < VERY_SHORT_WATCH_MS && !signal.aborted) {
        // Reconnecting at once would hammer a server (or proxy) that keeps closing on us.
        log.error('Unexpected watch close: it lasted less than a second and no items were received');
        return 'broken';
      }
      return 'closed';
    } catch (err) {
      return this.classify(err, signal, log, 'Watch ended with an error');
    }
  }

  private classify(err: unknown, signal: AbortSignal, log: Logger, what: string): WatchEnd {
    if (signal.aborted || isAbort(err, signal)) return 'closed';
    if (isGone(err)) return 'expired';
    this.report(log, what, err);
    // Resuming would replay the same oversized event; a relist moves past it.
    return err instanceof ApiError || err instanceof BodyTooLargeError ? 'failed' : 'broken';
  }

  private report(log: Logger, what: string, err: unknown): void {
    const text = `${what}: ${errorMessage(err)}`;
    if (this.lastReported.isNew(text)) log.error(what, { err: errorMessage(err) });
    else log.v(4).info(what, { err: errorMessage(err) });
  }
}
