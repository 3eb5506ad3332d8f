// How stored objects are written on the wire: full objects, list items (typed
// built-in lists carry no apiVersion/kind per item, as Go's typed encoders
// do), PartialObjectMetadata, watch event lines and bookmarks. Every text is
// built once per stored version and shared by all readers and watchers.

import type { ResourceType } from './resources.ts';
import { notAcceptable, status, StatusError } from './status.ts';
import type { Stored } from './store.ts';

export type Form = 'full' | 'meta';

export const META_API_VERSION = 'meta.k8s.io/v1';

/**
 * The object as `apiVersion` shows it: a CRD served at several versions
 * without a conversion webhook converts by rewriting apiVersion alone.
 */
export function objectJson(s: Stored, form: Form, apiVersion: string = s.obj.apiVersion): string {
  if (form === 'meta') {
    return s.memo('meta', () =>
      JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: META_API_VERSION, metadata: s.obj.metadata }),
    );
  }
  if (apiVersion !== s.obj.apiVersion)
    return s.memo(`full:${apiVersion}`, () => JSON.stringify({ ...s.obj, apiVersion }));
  return s.memo('full', () => JSON.stringify(s.obj));
}

function itemJson(rt: ResourceType, s: Stored, form: Form): string {
  if (form === 'meta' || !rt.builtin) return objectJson(s, form, rt.apiVersion);
  return s.memo('item', () => JSON.stringify({ ...s.obj, apiVersion: undefined, kind: undefined }));
}

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Items per piece of a streamed list body. */
const ITEMS_PER_PIECE = 1000;

/**
 * A List body as the real server writes it: an empty PartialObjectMetadataList
 * says `"items": null` (Go's nil slice), typed and CRD lists `[]`; a CRD list
 * always carries `metadata.continue`, `""` on its last page. It comes in
 * pieces of ITEMS_PER_PIECE items, so a server can stream a list of 100,000
 * objects (as the real one does, chunked) without building one huge string or
 * holding its event loop for seconds.
 */
export function* listPieces(rt: ResourceType, items: Stored[], meta: ListMeta, form: Form): Generator<string> {
  const head =
    form === 'meta'
      ? { kind: 'PartialObjectMetadataList', apiVersion: META_API_VERSION, metadata: meta }
      : { kind: rt.listKind, apiVersion: rt.apiVersion, metadata: rt.builtin ? meta : { continue: '', ...meta } };
  const open = JSON.stringify(head).slice(0, -1);
  if (form === 'meta' && items.length === 0) {
    yield `${open},"items":null}`;
    return;
  }
  yield `${open},"items":[`;
  for (let i = 0; i < items.length; i += ITEMS_PER_PIECE) {
    const batch = items.slice(i, i + ITEMS_PER_PIECE).map((s) => itemJson(rt, s, form));
    yield `${i > 0 ? ',' : ''}${batch.join(',')}`;
  }
  yield ']}';
}

export function eventLine(type: string, s: Stored, form: Form, apiVersion: string = s.obj.apiVersion): string {
  return s.memo(
    `line:${type}:${form}:${apiVersion}`,
    () => `{"type":"${type}","object":${objectJson(s, form, apiVersion)}}\n`,
  );
}

/**
 * A BOOKMARK as the real server sends it: an empty object of the watched
 * form carrying only the resourceVersion; typed objects (and metadata-only
 * ones) say `creationTimestamp: null` and a typed kind its defaulted fields.
 */
export function bookmarkLine(rt: ResourceType, rv: number, form: Form): string {
  const head =
    form === 'meta'
      ? { kind: 'PartialObjectMetadata', apiVersion: META_API_VERSION }
      : { kind: rt.kind, apiVersion: rt.apiVersion };
  const typed = form === 'meta' || rt.builtin;
  const metadata = typed ? { resourceVersion: String(rv), creationTimestamp: null } : { resourceVersion: String(rv) };
  const rest = form === 'full' ? rt.emptyFields : undefined;
  return `${JSON.stringify({ type: 'BOOKMARK', object: { ...head, metadata, ...rest } })}\n`;
}

export function errorLine(status: unknown): string {
  return `${JSON.stringify({ type: 'ERROR', object: status })}\n`;
}

/** How Go names the type a request for `rt` decodes to, in a 406 message (`*core.Node`). */
function goTypeName(rt: ResourceType, list: boolean): string {
  if (!rt.builtin) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  return `*${rt.group ? rt.group.split('.')[0] : 'core'}.${list ? rt.listKind : rt.kind}`;
}

/** The form an Accept header asks for: PartialObjectMetadata(List) or full objects; 406 when none is served. */
export function negotiateForm(accept: string | undefined, list: boolean, rt: ResourceType): Form {
  let mismatch: string | undefined;
  if (!accept) return 'full';
  for (const part of accept.split(',')) {
    const [type, ...rawParams] = part.split(';').map((s) => s.trim());
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const params = Object.fromEntries(rawParams.map((p) => p.split('=').map((s) => s.trim())));
    if (!params.as) return 'full';
    const want = list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
    if (params.g !== 'meta.k8s.io' || params.v !== 'v1') continue;
    if (params.as === want) return 'meta';
    // The other metadata form: the real server says which one was asked for what.
    if (params.as === 'PartialObjectMetadata' || params.as === 'PartialObjectMetadataList') mismatch ??= params.as;
  }
  if (mismatch) {
    const what = list ? 'is a list' : 'is not a list';
    throw new StatusError(
      status(
        406,
        'NotAcceptable',
        `you requested ${mismatch}, but the requested object ${what} (${goTypeName(rt, list)})`,
      ),
    );
  }
  throw notAcceptable('application/json, application/yaml, application/vnd.kubernetes.protobuf');
}
