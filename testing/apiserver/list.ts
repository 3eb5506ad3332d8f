// List requests as the real server answers them (apiserver/pkg/storage/etcd3
// GetList + cacher): label and field selectors, limit/continue paging over a
// consistent snapshot, continue tokens that expire with 410 after
// compaction, and the resourceVersion / resourceVersionMatch rules (0 = from
// the cache, limit ignored; N = not older than N; Exact = the state at N).

import { listPieces, type Form } from './encoding.ts';
import { validateListOptions, type Query } from './list-options.ts';
import type { ResourceType } from './resources.ts';
import { parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { badRequest, expired, status, StatusError } from './status.ts';
import type { ObjectStore, Stored } from './store.ts';

/** How long a list or watch waits for a resourceVersion newer than the store's before 504. */
const TOO_LARGE_RV_WAIT_MS = 3_000;

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  // Go's base64 decoder names the first byte that is not in the (URL) alphabet.
  const bad = token.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0)
    throw badRequest(`invalid continue token: continue key is not valid: illegal base64 data at input byte ${bad}`);
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (t.v !== 'meta.k8s.io/v1' || !Number.isInteger(t.rv) || typeof t.start !== 'string')
      throw new Error('bad token');
    return { rv: t.rv, start: t.start };
  } catch {
    throw badRequest(`continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  }
}

export function parseRv(raw: string | null): number | undefined {
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`resourceVersion: Invalid value: "${raw}": must be a non-negative integer`);
  return Number(raw);
}

/** Waits (bounded) for the store to reach `rv`, as the watch cache of `resource` does, then 504s with Retry-After. */
async function waitForRevision(store: ObjectStore, resource: string, rv: number): Promise<void> {
  const deadline = Date.now() + TOO_LARGE_RV_WAIT_MS;
  while (rv > store.rv) {
    if (Date.now() > deadline) {
      throw new StatusError(
        status(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${store.cacheRv(resource)}`, {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        }),
        { 'Retry-After': '1' },
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The list answer (typed list or PartialObjectMetadataList) for a list request's query, in pieces to stream. */
export async function listBody(
  store: ObjectStore,
  rt: ResourceType,
  namespace: string,
  q: Query,
  form: Form,
): Promise<Generator<string>> {
  validateListOptions(q, false);
  const labels = parseLabelSelector(q.get('labelSelector'));
  const fields = parseFieldSelector(q.get('fieldSelector'));
  const limitRaw = q.get('limit');
  let limit = limitRaw ? Number(limitRaw) : 0;
  if (!Number.isInteger(limit) || limit < 0)
    throw badRequest(`limit: Invalid value: "${limitRaw}": must be a non-negative integer`);
  const token = q.get('continue');
  const rvParam = q.get('resourceVersion');
  const match = q.get('resourceVersionMatch');
  let items: readonly Stored[];
  let listRv: number;
  let start = '';
  if (token) {
    if (rvParam) throw badRequest('specifying resource version is not allowed when using continue');
    const t = decodeContinue(token);
    if (t.rv < store.compactedRv) {
      // The Status carries a token for the rest of the list at the current revision.
      const e = expired(CONTINUE_EXPIRED);
      e.status.metadata.continue = encodeContinue(store.rv, t.start);
      throw e;
    }
    items = store.listAt(rt.key, t.rv);
    listRv = t.rv;
    start = t.start;
  } else {
    const rv = parseRv(rvParam);
    // Exact, or (the legacy rule) a limit with a set resourceVersion and no match: read from etcd at exactly that
    // revision.
    if (rv !== undefined && (match === 'Exact' || (rv > 0 && limit > 0 && !match))) {
      if (rv < store.compactedRv) throw expired('The resourceVersion for the provided list is too old.');
      await waitForRevision(store, rt.key, rv);
      items = store.listAt(rt.key, rv);
      listRv = rv;
    } else {
      if (rv !== undefined) await waitForRevision(store, rt.key, rv);
      // resourceVersion=0, and a set resourceVersion without limit, are served
      // from the watch cache (limit ignored), at the resource's own revision.
      const fromCache = rv === 0 || (rv !== undefined && limit === 0);
      if (rv === 0) limit = 0;
      items = store.list(rt.key);
      listRv = fromCache ? store.cacheRv(rt.key) : store.rv;
    }
  }
  let selected = items.filter(
    (s) =>
      (!rt.namespaced || !namespace || s.obj.metadata.namespace === namespace) &&
      s.key > start &&
      labels(s.obj) &&
      fields.matches(s.obj),
  );
  const meta: { resourceVersion: string; continue?: string; remainingItemCount?: number } = {
    resourceVersion: String(listRv),
  };
  if (limit > 0 && selected.length > limit) {
    const rest = selected.length - limit;
    selected = selected.slice(0, limit);
    meta.continue = encodeContinue(listRv, selected[selected.length - 1].key + '\u0000');
    if (!q.get('labelSelector') && !q.get('fieldSelector')) meta.remainingItemCount = rest;
  }
  return listPieces(rt, selected, meta, form);
}
