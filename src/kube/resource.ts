// A typed client for one API resource (client-go's typed clientsets and
// dynamic client): URL building for core and group resources, cluster-scoped
// or namespaced, and the verbs this controller uses. Generic: the app decides
// which resources it names.

import type { QueryValue, RestClient } from './rest.ts';
import type { KubeObject, WatchEvent } from './types.ts';
import { isMapping } from '../util/is-mapping.ts';

export interface ResourceDescriptor {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. `nodes`. */
  readonly resource: string;
  readonly namespaced: boolean;
}

export interface CallOptions {
  /** Required for namespaced resources unless the object carries it. */
  namespace?: string;
  signal?: AbortSignal;
}

/**
 * DeleteOptions.preconditions: the server deletes only the object with this uid and resourceVersion (409 otherwise).
 */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions extends CallOptions {
  preconditions?: Preconditions;
}

export interface ListOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** Override of the Accept header (metadata-only lists). */
  accept?: string;
  /** Applied once to each item: as a whole list is read (see rest.ts `eachItem`), or to a page's items. */
  eachItem?: (item: KubeObject) => KubeObject;
}

export interface WatchOptions extends ListOptions {
  resourceVersion: string;
  timeoutSeconds: number;
  allowWatchBookmarks?: boolean;
  /** Abort when no bytes arrive for this long. */
  idleTimeoutMs: number;
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface ResourceClient<T extends KubeObject> {
  readonly descriptor: ResourceDescriptor;
  get(name: string, opts?: CallOptions): Promise<T>;
  list(opts?: ListOptions): Promise<ObjectList<T>>;
  watch(opts: WatchOptions): Promise<AsyncIterable<WatchEvent<T>>>;
  create(obj: T, opts?: CallOptions): Promise<T>;
  /** PUT; carries obj.metadata.resourceVersion for optimistic concurrency. */
  update(obj: T, opts?: CallOptions): Promise<T>;
  /** PUT of the status subresource. */
  updateStatus(obj: T, opts?: CallOptions): Promise<T>;
  /** JSON merge patch (RFC 7386). */
  patch(name: string, patch: unknown, opts?: CallOptions): Promise<T>;
  /** With `preconditions`, a re-created or modified object of the same name is not deleted: 409 Conflict instead. */
  delete(name: string, opts?: DeleteOptions): Promise<void>;
}

const MERGE_PATCH = 'application/merge-patch+json';

export function resourceClient<T extends KubeObject>(
  rest: RestClient,
  descriptor: ResourceDescriptor,
): ResourceClient<T> {
  const base =
    descriptor.group === '' ? `/api/${descriptor.version}` : `/apis/${descriptor.group}/${descriptor.version}`;

  const collection = (namespace: string | undefined): string => {
    if (!descriptor.namespaced) return `${base}/${descriptor.resource}`;
    if (namespace === undefined) return `${base}/${descriptor.resource}`; // all namespaces (list/watch only)
    return `${base}/namespaces/${encodeURIComponent(namespace)}/${descriptor.resource}`;
  };
  const item = (name: string, namespace: string | undefined): string => {
    if (descriptor.namespaced && namespace === undefined) {
      throw new Error(`${descriptor.resource} "${name}": a namespace is required for a namespaced resource`);
    }
    return `${collection(namespace)}/${encodeURIComponent(name)}`;
  };
  const nsOf = (obj: T, opts?: CallOptions) => opts?.namespace ?? obj.metadata.namespace;
  const listQuery = (opts: ListOptions): Record<string, QueryValue> => ({
    labelSelector: opts.labelSelector || undefined,
    fieldSelector: opts.fieldSelector || undefined,
    limit: opts.limit,
    continue: opts.continue || undefined,
    resourceVersion: opts.resourceVersion,
  });
  const signalOf = (opts?: CallOptions) => (opts?.signal ? { signal: opts.signal } : {});

  return {
    descriptor,
    get: (name, opts) => rest.request<T>({ method: 'GET', path: item(name, opts?.namespace), ...signalOf(opts) }),
    list: async (opts = {}) => {
      // Without a limit, or at resourceVersion=0 (the watch cache ignores limit), the whole list comes in one answer.
      const whole = !opts.limit || opts.resourceVersion === '0';
      const list = await rest.request<ObjectList<T>>({
        method: 'GET',
        path: collection(opts.namespace),
        query: listQuery(opts),
        ...(whole
          ? { wholeList: true, ...(opts.eachItem ? { eachItem: opts.eachItem as (item: unknown) => unknown } : {}) }
          : {}),
        ...(opts.accept ? { accept: opts.accept } : {}),
        ...signalOf(opts),
      });
      return whole || !opts.eachItem ? list : withEachItem(list, opts.eachItem);
    },
    watch: (opts) =>
      rest.watch<T>({
        method: 'GET',
        path: collection(opts.namespace),
        query: {
          ...listQuery(opts),
          watch: true,
          allowWatchBookmarks: opts.allowWatchBookmarks || undefined,
          timeoutSeconds: opts.timeoutSeconds,
        },
        idleTimeoutMs: opts.idleTimeoutMs,
        ...(opts.accept ? { accept: opts.accept } : {}),
        ...signalOf(opts),
      }),
    create: (obj, opts) =>
      rest.request<T>({ method: 'POST', path: collection(nsOf(obj, opts)), body: obj, ...signalOf(opts) }),
    update: (obj, opts) =>
      rest.request<T>({ method: 'PUT', path: item(obj.metadata.name, nsOf(obj, opts)), body: obj, ...signalOf(opts) }),
    updateStatus: (obj, opts) =>
      rest.request<T>({
        method: 'PUT',
        path: `${item(obj.metadata.name, nsOf(obj, opts))}/status`,
        body: obj,
        ...signalOf(opts),
      }),
    patch: (name, patch, opts) =>
      rest.request<T>({
        method: 'PATCH',
        path: item(name, opts?.namespace),
        body: patch,
        contentType: MERGE_PATCH,
        ...signalOf(opts),
      }),
    delete: async (name, opts) => {
      const body = opts?.preconditions
        ? { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: opts.preconditions }
        : undefined;
      await rest.request<unknown>({
        method: 'DELETE',
        path: item(name, opts?.namespace),
        ...(body ? { body } : {}),
        ...signalOf(opts),
      });
    },
  };
}

/**
 * A page's items through `eachItem`. Items without metadata are left as they
 * are, for the caller's list check (list-items.ts) to refuse with its message.
 */
function withEachItem<T>(list: ObjectList<T>, eachItem: (item: KubeObject) => KubeObject): ObjectList<T> {
  if (!Array.isArray(list?.items)) return list;
  const hasMetadata = (item: unknown): item is KubeObject => isMapping(item) && isMapping(item.metadata);
  return { ...list, items: list.items.map((item) => (hasMetadata(item) ? eachItem(item) : item) as T) };
}
