// Watch streams as the watch cache serves them (apiserver/pkg/storage/cacher):
// initial ADDED events when no resourceVersion (or "0") is given, replay of
// retained history after a resourceVersion, an ERROR event with a 410
// Expired Status when that history is gone, selector transitions turned into
// ADDED/DELETED, bookmarks, timeoutSeconds and the server's randomised
// --min-request-timeout cutoff.

import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { bookmarkLine, errorLine, eventLine, type Form } from './encoding.ts';
import type { RequestRecord } from './request-log.ts';
import type { ResourceType } from './resources.ts';
import type { Matcher } from './selectors.ts';
import { Stored, type ObjectStore, type StoreEvent } from './store.ts';
import { status } from './status.ts';

export interface WatchParams {
  rt: ResourceType;
  namespace: string;
  matches: Matcher;
  form: Form;
  /** Resume after this revision; undefined = send current state first. */
  sinceRv?: number;
  /** End the stream, sending nothing, when the first event is due (a List Accept on a watch). */
  endAtFirstEvent?: boolean;
  bookmarks: boolean;
  bookmarkIntervalMs: number;
  /** Close the stream (cleanly) after this long. */
  timeoutMs: number;
}

/** An open watch, as cutWatches() sees it. */
export interface OpenWatch {
  request: RequestRecord;
  /** Drops the connection abruptly (no final chunk). */
  cut(): void;
  /** Sends a BOOKMARK now (only on watches that asked for bookmarks). */
  sendBookmark?(): void;
}

/** Streams a watch into `res` until it times out or the client goes away; it sits in `open` meanwhile. */
export function serveWatch(
  store: ObjectStore,
  res: ServerResponse,
  socket: Socket,
  p: WatchParams,
  request: RequestRecord,
  open: Set<OpenWatch>,
): void {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  const handle: OpenWatch = {
    request,
    cut: () => {
      open.delete(handle);
      socket.destroy();
    },
  };
  // A custom resource is shown at the watched version; a typed one as stored.
  const shownAs = (s: Stored): string => (p.rt.builtin ? s.obj.apiVersion : p.rt.apiVersion);
  const inScope = (s: Stored): boolean => !p.rt.namespaced || !p.namespace || s.obj.metadata.namespace === p.namespace;

  if (p.sinceRv !== undefined && p.sinceRv < store.watchFloorRv) {
    res.end(errorLine(status(410, 'Expired', `too old resource version: ${p.sinceRv} (${store.watchFloorRv})`)));
    return;
  }

  // Events of one tick go out in one write: fan-out to many watchers costs one socket write each, not one per event.
  let pending = '';
  const flush = (): void => {
    if (pending && !res.writableEnded && !res.destroyed) res.write(pending);
    pending = '';
  };
  const send = (line: string): void => {
    if (!pending) setImmediate(flush);
    pending += line;
  };

  const deliver = (ev: StoreEvent): void => {
    if (!inScope(ev.object) || (p.sinceRv !== undefined && ev.rv <= p.sinceRv)) return;
    const now = p.matches(ev.object.obj);
    const before = ev.previous !== undefined && p.matches(ev.previous.obj);
    let type: string | undefined;
    if (ev.type === 'ADDED') type = now ? 'ADDED' : undefined;
    else if (ev.type === 'DELETED') type = before ? 'DELETED' : undefined;
    else if (now && before) type = 'MODIFIED';
    else if (now) type = 'ADDED';
    else if (before) type = 'DELETED';
    if (!type) return;
    if (p.endAtFirstEvent) {
      res.end();
      return;
    }
    // An object that stops matching a selector leaves as it was (old labels), at the new resourceVersion.
    const leaving = ev.type === 'MODIFIED' && type === 'DELETED' && ev.previous;
    const shown = leaving
      ? new Stored(ev.resource, ev.object.key, ev.rv, {
          ...ev.previous!.obj,
          metadata: { ...ev.previous!.obj.metadata, resourceVersion: String(ev.rv) },
        })
      : ev.object;
    send(eventLine(type, shown, p.form, shownAs(shown)));
  };

  if (p.sinceRv === undefined) {
    const initial = store.list(p.rt.key).filter((s) => inScope(s) && p.matches(s.obj));
    for (const s of initial) send(eventLine('ADDED', s, p.form, shownAs(s)));
  } else {
    for (const ev of store.eventsSince(p.rt.key, p.sinceRv)) deliver(ev);
  }
  const unsubscribe = store.subscribe(p.rt.key, deliver);

  const timers: NodeJS.Timeout[] = [];
  const bookmark = (): void => {
    // A watch from a revision the store has not reached gets nothing, bookmarks included, until it has.
    if (p.sinceRv !== undefined && store.rv < p.sinceRv) return;
    // The resource's own revision (a write elsewhere does not move it), never behind where the watch started.
    send(bookmarkLine(p.rt, Math.max(store.cacheRv(p.rt.key), p.sinceRv ?? 0), p.form));
  };
  if (p.bookmarks) {
    timers.push(setInterval(bookmark, p.bookmarkIntervalMs));
    // The cacher also sends one shortly before the deadline so the client can resume without a relist.
    if (p.timeoutMs > 2000) timers.push(setTimeout(bookmark, p.timeoutMs - 2000));
  }
  timers.push(
    setTimeout(() => {
      flush();
      res.end();
    }, p.timeoutMs),
  );

  let ended = false;
  const cleanup = (): void => {
    if (ended) return;
    ended = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    open.delete(handle);
  };
  if (p.bookmarks) handle.sendBookmark = bookmark;
  open.add(handle);
  res.on('close', cleanup);
  res.on('finish', cleanup);
}
