// The write path of the stand-in: create, update (main resource and status
// subresource), patch and delete with the real server's order of checks —
// decode, namespace lifecycle, optimistic concurrency, strategy (status and
// generation handling), validation, storage — and its no-op short cut (an
// update that changes nothing writes nothing). Mirrors
// apiserver/pkg/registry/generic/registry/store.go with the CRD and built-in
// strategies.

import { randomUUID } from 'node:crypto';
import { recordWrite } from './managed-fields.ts';
import { jsonPatch, mergePatch, PatchError } from './patch.ts';
import { admissionErrors, type ResourceType } from './resources.ts';
import type { Obj, ObjectStore, Stored } from './store.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  fieldForbidden,
  fieldInvalid,
  etcdTooLarge,
  ETCD_MAX_REQUEST_BYTES,
  GoLiteral,
  groupResource,
  invalid,
  notFound,
  status,
  StatusError,
  unknownError,
  unsupportedMediaType,
} from './status.ts';

/**
 * An update of an object being deleted keeps its deletionTimestamp and may
 * only remove finalizers (apiserver's ValidateObjectMetaUpdate: "no new
 * finalizers can be added if the object is being deleted").
 */
function keepDeletionState(rt: ResourceType, prev: Obj, next: Obj): void {
  const at = prev.metadata.deletionTimestamp;
  if (at === undefined) {
    delete next.metadata.deletionTimestamp;
    delete next.metadata.deletionGracePeriodSeconds;
    return;
  }
  next.metadata.deletionTimestamp = at;
  next.metadata.deletionGracePeriodSeconds = prev.metadata.deletionGracePeriodSeconds;
  const had = new Set<string>(prev.metadata.finalizers ?? []);
  const added = ((next.metadata.finalizers ?? []) as string[]).filter((f) => !had.has(f));
  if (added.length > 0) {
    throw invalid(rt, prev.metadata.name, [
      fieldForbidden(
        'metadata.finalizers',
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
      ),
    ]);
  }
}

/** Namespaces every real cluster has; they survive a data wipe. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const STRATEGIC_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

export interface WriteOptions {
  /** `status` for the status subresource. */
  subresource?: string;
  /**
   * Test-side write straight into storage: keeps the given status on create and
   * update and skips the resourceVersion requirement (still validated).
   */
  direct?: boolean;
  /** Field manager recorded in metadata.managedFields for API writes (see managed-fields.ts). */
  manager?: string;
}

export interface DeletePreconditions {
  /** null counts as absent, as Go decodes it into a nil pointer. */
  uid?: string | null;
  resourceVersion?: string | null;
}

/**
 * kube-apiserver checks delete preconditions on a fresh read before deleting
 * (rest.BeforeDelete), naming the kind in the conflict; the namespace storage
 * checks them itself first, worded as the storage layer does.
 */
function checkDeletePreconditions(
  rt: ResourceType,
  name: string,
  meta: { uid?: string; resourceVersion?: string },
  pre: DeletePreconditions,
): void {
  const uid = pre.uid ?? undefined;
  const resourceVersion = pre.resourceVersion ?? undefined;
  const byKind = { resource: rt.kind, group: rt.group, kind: rt.kind };
  if (uid !== undefined && uid !== meta.uid) {
    throw rt.resource === 'namespaces'
      ? conflict(rt, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid}`)
      : conflict(
          byKind,
          name,
          `the UID in the precondition (${uid}) does not match the UID in record (${meta.uid}). The object might have been deleted and then recreated`,
        );
  }
  if (resourceVersion !== undefined && resourceVersion !== meta.resourceVersion) {
    throw rt.resource === 'namespaces'
      ? conflict(
          rt,
          name,
          `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
        )
      : conflict(
          byKind,
          name,
          `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion}). The object might have been modified`,
        );
  }
}

export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The apiVersion an object of `rt` is stored at (another served version of its CRD is converted to it). */
const storedAs = (rt: ResourceType) => rt.storageApiVersion ?? rt.apiVersion;

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v));
}

/** JSON with object keys sorted: equality that ignores key order, as Go's semantic DeepEqual does. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );
}

function withoutMetaAndStatus(obj: Readonly<Obj>): string {
  const { metadata: _m, status: _s, ...rest } = obj;
  return canonical(rest);
}

function comparable(obj: Readonly<Obj>): string {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = obj.metadata ?? {};
  return canonical({ ...obj, metadata: meta });
}

/** An object etcd would refuse to store (it is over etcd's request limit). */
function checkStorable(obj: Obj): void {
  if (Buffer.byteLength(JSON.stringify(obj)) > ETCD_MAX_REQUEST_BYTES) throw etcdTooLarge();
}

export class Registry {
  constructor(
    readonly store: ObjectStore,
    readonly types: Map<string, ResourceType>,
  ) {}

  type(resource: string): ResourceType {
    const rt = this.types.get(resource);
    if (!rt) throw new Error(`the API server stand-in does not serve resource "${resource}"`);
    return rt;
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): Stored {
    const s = this.store.get(rt.key, keyOf(rt.namespaced ? namespace : undefined, name));
    if (!s) throw notFound(rt, name);
    return s;
  }

  exists(rt: ResourceType, namespace: string | undefined, name: string): boolean {
    return this.store.get(rt.key, keyOf(rt.namespaced ? namespace : undefined, name)) !== undefined;
  }

  /** Checks apiVersion/kind of a body against the endpoint and runs the kind's decoder. */
  private decode(rt: ResourceType, body: unknown): Obj {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest(`the body of the request was not a JSON object: ${JSON.stringify(body)?.slice(0, 80)}`);
    }
    const b = body as Obj;
    if (b.apiVersion !== undefined && b.apiVersion !== rt.apiVersion) {
      throw badRequest(
        `the API version in the data (${b.apiVersion}) does not match the expected API version (${rt.apiVersion})`,
      );
    }
    if (b.kind !== undefined && b.kind !== rt.kind) {
      throw badRequest(`the kind in the data (${b.kind}) does not match the expected kind (${rt.kind})`);
    }
    // Key order as the real server writes it: apiVersion, kind, metadata, then the rest.
    const obj: Obj = { apiVersion: rt.apiVersion, kind: rt.kind, metadata: {}, ...rt.decode(clone(b)) };
    obj.apiVersion = rt.apiVersion;
    obj.kind = rt.kind;
    if (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata)) obj.metadata = {};
    return obj;
  }

  private requireNamespace(rt: ResourceType, namespace: string | undefined): void {
    if (rt.namespaced && namespace && !this.store.get('namespaces', namespace))
      throw notFound(this.type('namespaces'), namespace);
  }

  /** Puts the request's namespace into the object, or rejects a mismatch (400). */
  private placeNamespace(rt: ResourceType, obj: Obj, namespace: string | undefined): void {
    if (!rt.namespaced) {
      delete obj.metadata.namespace;
      return;
    }
    if (obj.metadata.namespace && namespace && obj.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    obj.metadata.namespace = obj.metadata.namespace || namespace;
  }

  /** For writes to a named URL: the body must name the same object (checkName in the update handler). */
  private placeNamed(rt: ResourceType, obj: Obj, namespace: string | undefined, name: string): void {
    if (obj.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`,
      );
    }
    if (rt.namespaced && obj.metadata.namespace && namespace && obj.metadata.namespace !== namespace) {
      throw badRequest(
        `the namespace of the object (${obj.metadata.namespace}) does not match the namespace on the URL (${namespace})`,
      );
    }
    this.placeNamespace(rt, obj, namespace);
  }

  /** Validation, then the vendor's validating webhook (403 with its message), as admission runs after validation. */
  private validate(rt: ResourceType, obj: Obj, old?: Obj): void {
    const errs = admissionErrors(rt, obj, old);
    if (errs.length) throw invalid(rt, obj.metadata.name ?? '', errs);
    const denied = rt.webhook?.deny(obj);
    if (denied !== undefined)
      throw new StatusError(
        status(403, 'Forbidden', `admission webhook "${rt.webhook!.name}" denied the request: ${denied}`),
      );
  }

  create(rt: ResourceType, namespace: string | undefined, body: unknown, opts: WriteOptions = {}): Stored {
    const obj = this.decode(rt, body);
    this.placeNamespace(rt, obj, namespace);
    this.requireNamespace(rt, obj.metadata.namespace);
    const meta = obj.metadata;
    if (!meta.name && typeof meta.generateName === 'string' && meta.generateName) {
      meta.name =
        meta.generateName +
        Array.from({ length: 5 }, () => NAME_SUFFIX_ALPHABET[Math.floor(Math.random() * 27)]).join('');
    }
    if (meta.resourceVersion && !opts.direct)
      throw unknownError('resourceVersion should not be set on objects to be created');
    meta.uid = randomUUID();
    meta.creationTimestamp = now();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (rt.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    // A custom resource with a status subresource cannot set status on create.
    if (!rt.builtin && rt.subresources.includes('status') && !opts.direct) delete obj.status;
    rt.prepareCreate(obj);
    if (!opts.direct) rt.admit?.(obj);
    delete meta.managedFields;
    if (opts.manager) recordWrite(obj, undefined, opts.manager, rt.apiVersion, meta.creationTimestamp);
    this.validate(rt, obj);
    const key = keyOf(meta.namespace, meta.name);
    const existing = this.store.get(rt.key, key);
    if (existing) throw alreadyExists(rt, meta.name, existing.obj.metadata.deletionTimestamp !== undefined);
    checkStorable(obj);
    return this.store.put(rt.key, key, (rv) => ({
      ...obj,
      apiVersion: storedAs(rt),
      metadata: { ...obj.metadata, resourceVersion: String(rv) },
    }));
  }

  update(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Stored {
    const obj = this.decode(rt, body);
    this.placeNamed(rt, obj, namespace, name);
    if (rt.allowCreateOnUpdate && !this.exists(rt, namespace, name)) {
      return this.create(rt, namespace, { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } }, opts);
    }
    const old = this.get(rt, namespace, name);
    const rv = obj.metadata.resourceVersion;
    if (!rv) {
      if (!rt.allowUnconditionalUpdate && !opts.direct) {
        // Worded by the registry, not the type's validation: it names the resource, not the kind.
        throw invalid(
          { ...rt, kind: rt.resource },
          name,
          [fieldInvalid('metadata.resourceVersion', new GoLiteral('0x0'), 'must be specified for an update')],
          groupResource(rt),
        );
      }
    } else if (rv !== old.obj.metadata.resourceVersion) {
      throw conflict(rt, name);
    }
    return this.commit(rt, old, obj, opts);
  }

  patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: string,
    opts: WriteOptions = {},
  ): Stored {
    const accepted = rt.builtin
      ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH]
      : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
    if (!accepted.includes(contentType) || contentType === APPLY_PATCH) throw unsupportedMediaType(accepted);
    let patch: unknown;
    try {
      patch = JSON.parse(body);
    } catch (err) {
      throw badRequest(`error decoding patch: ${(err as Error).message}`);
    }
    const old = this.get(rt, namespace, name);
    // The patch applies to the object as read at the request's version.
    const current = { ...clone(old.obj), apiVersion: rt.apiVersion };
    let patched: unknown;
    try {
      patched = contentType === JSON_PATCH ? jsonPatch(current, patch) : mergePatch(current, patch);
    } catch (err) {
      if (err instanceof PatchError) throw new StatusError(status(422, 'Invalid', err.message));
      throw err;
    }
    const obj = this.decode(rt, patched);
    this.placeNamed(rt, obj, namespace, name);
    const rv = obj.metadata.resourceVersion;
    if (rv && rv !== old.obj.metadata.resourceVersion) throw conflict(rt, name);
    return this.commit(rt, old, obj, opts);
  }

  /** Applies the update strategy to `obj` against `old`, validates and stores it unless nothing changed. */
  private commit(rt: ResourceType, old: Stored, obj: Obj, opts: WriteOptions): Stored {
    const prev = old.obj;
    if (obj.metadata.uid && obj.metadata.uid !== prev.metadata.uid) {
      throw invalid(rt, prev.metadata.name, [fieldInvalid('metadata.uid', obj.metadata.uid, 'field is immutable')]);
    }
    let next: Obj;
    if (opts.subresource === 'status') {
      // Only status may change through the status subresource.
      next = clone(prev);
      if ('status' in obj) next.status = obj.status;
      else delete next.status;
    } else {
      next = obj;
      if (rt.subresources.includes('status') && !opts.direct) {
        if ('status' in prev) next.status = clone(prev.status);
        else delete next.status;
      }
      next.metadata = { ...next.metadata, uid: prev.metadata.uid, creationTimestamp: prev.metadata.creationTimestamp };
      keepDeletionState(rt, prev, next);
      if (rt.tracksGeneration) {
        const changed = withoutMetaAndStatus(next) !== withoutMetaAndStatus(prev);
        next.metadata.generation = (prev.metadata.generation ?? 1) + (changed ? 1 : 0);
      } else {
        delete next.metadata.generation;
      }
    }
    next.metadata.resourceVersion = prev.metadata.resourceVersion;
    next.metadata.managedFields = prev.metadata.managedFields;
    // Decoded at the request's version; compared and stored at the storage version.
    next.apiVersion = storedAs(rt);
    this.validate(rt, next, prev);
    if (comparable(next) === comparable(prev)) return old;
    if (opts.manager)
      recordWrite(next, prev.metadata.managedFields, opts.manager, rt.apiVersion, now(), opts.subresource);
    if (!next.metadata.managedFields) delete next.metadata.managedFields;
    // The last finalizer of an object being deleted removed: the deletion completes (store.go's finalize).
    if (prev.metadata.deletionTimestamp !== undefined && !next.metadata.finalizers?.length)
      return this.store.remove(rt.key, old.key)!;
    checkStorable(next);
    return this.store.put(rt.key, old.key, (rv) => ({
      ...next,
      metadata: { ...next.metadata, resourceVersion: String(rv) },
    }));
  }

  delete(rt: ResourceType, namespace: string | undefined, name: string, pre: DeletePreconditions = {}): Stored {
    const old = this.get(rt, namespace, name);
    checkDeletePreconditions(rt, name, old.obj.metadata, pre);
    if (rt.resource === 'namespaces') {
      // The namespace controller's end result: everything inside is gone too.
      for (const t of this.types.values()) {
        if (!t.namespaced) continue;
        for (const s of this.store.list(t.key)) if (s.obj.metadata.namespace === name) this.store.remove(t.key, s.key);
      }
    }
    const finalizers: unknown = old.obj.metadata.finalizers;
    if (rt.resource !== 'namespaces' && Array.isArray(finalizers) && finalizers.length > 0) {
      // Graceful deletion held by finalizers: the object stays, marked, until the last one is removed (an update).
      if (old.obj.metadata.deletionTimestamp !== undefined) return old;
      const marked = {
        ...clone(old.obj),
        metadata: { ...clone(old.obj.metadata), deletionTimestamp: now(), deletionGracePeriodSeconds: 0 },
      };
      if (rt.tracksGeneration) marked.metadata.generation = (old.obj.metadata.generation ?? 1) + 1;
      return this.store.put(rt.key, old.key, (rv) => ({
        ...marked,
        metadata: { ...marked.metadata, resourceVersion: String(rv) },
      }));
    }
    return this.store.remove(rt.key, old.key)!;
  }

  ensureSystemNamespaces(extra: string[] = []): void {
    const ns = this.type('namespaces');
    for (const name of [...SYSTEM_NAMESPACES, ...extra]) {
      if (!this.store.get('namespaces', name)) this.create(ns, undefined, { metadata: { name } });
    }
  }
}
