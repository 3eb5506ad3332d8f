// How stored objects are written on the wire: full objects, list items (typed
// built-in lists carry no apiVersion/kind per item, as Go's typed encoders
// do), PartialObjectMetadata, watch event lines and bookmarks. Every text is
// built once per stored version and shared by all readers and watchers.

import type { ResourceType } from './resources.ts';
import { notAcceptable } from './status.ts';
import type { Stored } from './store.ts';

export type Form = 'full' | 'meta';

export const META_API_VERSION = 'meta.k8s.io/v1';

export function objectJson(s: Stored, form: Form): string {
  if (form === 'meta') {
    return s.memo('meta', () => JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: META_API_VERSION, metadata: s.obj.metadata }));
  }
  return s.memo('full', () => JSON.stringify(s.obj));
}

function itemJson(rt: ResourceType, s: Stored, form: Form): string {
  if (form === 'meta' || !rt.builtin) return objectJson(s, form);
  return s.memo('item', () => JSON.stringify({ ...s.obj, apiVersion: undefined, kind: undefined }));
}

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * A List body as the real server writes it: an empty PartialObjectMetadataList
 * says `"items": null` (Go's nil slice), typed and CRD lists `[]`; a CRD list
 * always carries `metadata.continue`, `""` on its last page.
 */
export function listJson(rt: ResourceType, items: Stored[], meta: ListMeta, form: Form): string {
  const head =
    form === 'meta'
      ? { kind: 'PartialObjectMetadataList', apiVersion: META_API_VERSION, metadata: meta }
      : { kind: rt.listKind, apiVersion: rt.apiVersion, metadata: rt.builtin ? meta : { continue: '', ...meta } };
  if (form === 'meta' && items.length === 0) return `${JSON.stringify(head).slice(0, -1)},"items":null}`;
  const parts = items.map((s) => itemJson(rt, s, form));
  return `${JSON.stringify(head).slice(0, -1)},"items":[${parts.join(',')}]}`;
}

export function eventLine(type: string, s: Stored, form: Form): string {
  return s.memo(`line:${type}:${form}`, () => `{"type":"${type}","object":${objectJson(s, form)}}\n`);
}

export function bookmarkLine(rt: ResourceType, rv: number, form: Form): string {
  const head = form === 'meta' ? { kind: 'PartialObjectMetadata', apiVersion: META_API_VERSION } : { kind: rt.kind, apiVersion: rt.apiVersion };
  return `${JSON.stringify({ type: 'BOOKMARK', object: { ...head, metadata: { resourceVersion: String(rv) } } })}\n`;
}

export function errorLine(status: unknown): string {
  return `${JSON.stringify({ type: 'ERROR', object: status })}\n`;
}

/** The form an Accept header asks for: PartialObjectMetadata(List) or full objects; 406 when none is served. */
export function negotiateForm(accept: string | undefined, list: boolean): Form {
  if (!accept) return 'full';
  for (const part of accept.split(',')) {
    const [type, ...rawParams] = part.split(';').map((s) => s.trim());
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const params = Object.fromEntries(rawParams.map((p) => p.split('=').map((s) => s.trim())));
    if (!params.as) return 'full';
    const want = list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
    if (params.as === want && params.g === 'meta.k8s.io' && params.v === 'v1') return 'meta';
  }
  throw notAcceptable('application/json, application/yaml, application/vnd.kubernetes.protobuf');
}
