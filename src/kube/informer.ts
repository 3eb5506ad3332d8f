// A shared informer (client-go's tools/cache/shared_informer.go): one
// reflector feeding one frozen cache, fanned out to any number of event
// handlers that may be added or removed at any time. A handler added after the
// first list receives a synthetic add per cached object; a relist delivers an
// update for every object still present and a Tombstone delete for every
// object that disappeared while the watch was down.
//
// Handlers are called synchronously, in registration order, from the
// reflector's loop; a handler that throws is logged and does not disturb the
// others. Handlers must be quick (queue work, do not perform I/O).

import { nullLogger, type Logger } from '../log.ts';
import { realClock, type Clock } from './clock.ts';
import { Latch } from '../util/latch.ts';
import { Reflector, type ListerWatcher } from './reflector.ts';
import { ApiError, isNotFound } from './errors.ts';
import type { ListOptions, ResourceClient, ResourceDescriptor } from './resource.ts';
import { Store } from './store.ts';
import { deepFreeze } from '../util/deep-freeze.ts';
import {
  objectKey,
  type EventHandler,
  type HandlerRegistration,
  type Informer,
  type KubeObject,
  type WatchEvent,
} from './types.ts';
import { errorMessage } from '../util/error-message.ts';

/** Accept headers of a metadata-only list/watch: the cache then holds metadata, not whole objects. */
export const PARTIAL_OBJECT_METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';
export const PARTIAL_OBJECT_METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';

export interface InformerOptions<T> {
  /** For logs, e.g. `nodes`. */
  name: string;
  listerWatcher: ListerWatcher<KubeObject>;
  /**
   * Applied to every object before it is cached (e.g. keep only name + labels), once: listed items by the lister as it
   * reads them.
   */
  transform?: (obj: KubeObject) => T;
  clock?: Clock;
  logger?: Logger;
  random?: () => number;
  minWatchTimeoutSeconds?: number;
}

export class SharedInformer<T extends KubeObject> implements Informer<T> {
  private readonly store = new Store<T>();
  private readonly handlers = new Set<EventHandler<T>>();
  private readonly opts: InformerOptions<T>;
  private readonly logger: Logger;
  private readonly synced = new Latch();
  private running = false;

  constructor(opts: InformerOptions<T>) {
    this.opts = opts;
    this.logger = (opts.logger ?? nullLogger).with({ resource: opts.name });
  }

  /** Lists and watches until `signal` aborts. May be called once. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`informer ${this.opts.name} is already running`);
    this.running = true;
    const transform = this.opts.transform ?? ((o: KubeObject) => o as T);
    const reflector = new Reflector<KubeObject>({
      resource: this.opts.name,
      listerWatcher: this.opts.listerWatcher,
      clock: this.opts.clock ?? realClock,
      logger: this.logger,
      ...(this.opts.random ? { random: this.opts.random } : {}),
      ...(this.opts.minWatchTimeoutSeconds ? { minWatchTimeoutSeconds: this.opts.minWatchTimeoutSeconds } : {}),
      ...(this.opts.transform ? { eachItem: this.opts.transform } : {}),
      sink: {
        // Listed items come transformed (eachItem); watched objects are transformed here.
        replace: (items) => this.replace(items as T[]),
        apply: (ev) => this.apply({ type: ev.type, object: transform(ev.object) }),
      },
    });
    await reflector.run(signal);
  }

  list(matchLabels?: Record<string, string>): T[] {
    return this.store.list(matchLabels);
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  hasSynced(): boolean {
    return this.synced.isOpen();
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    return this.synced.wait(signal);
  }

  addEventHandler(handler: EventHandler<T>): HandlerRegistration {
    // Wrap so the same handler object may be registered twice, like client-go.
    const entry: EventHandler<T> = { ...bind(handler) };
    this.handlers.add(entry);
    if (this.synced.isOpen()) for (const obj of this.store.list()) this.call('onAdd', () => entry.onAdd?.(obj));
    return { remove: () => void this.handlers.delete(entry) };
  }

  private replace(items: T[]): void {
    const { added, updated, deleted } = this.store.replace(items);
    for (const { key, obj } of deleted) this.notify('onDelete', (h) => h.onDelete?.({ tombstone: true, key, obj }));
    for (const obj of added) this.notify('onAdd', (h) => h.onAdd?.(obj));
    for (const [oldObj, newObj] of updated) this.notify('onUpdate', (h) => h.onUpdate?.(oldObj, newObj));
    this.synced.open();
  }

  private apply(ev: WatchEvent<T>): void {
    if (ev.type === 'DELETED') {
      this.store.remove(ev.object);
      // Handlers get the final state from the event, as client-go delivers it.
      const last = deepFreeze(ev.object);
      this.notify('onDelete', (h) => h.onDelete?.(last));
      return;
    }
    const old = this.store.upsert(ev.object);
    const cur = this.store.get(objectKey(ev.object.metadata))!;
    if (old) this.notify('onUpdate', (h) => h.onUpdate?.(old, cur));
    else this.notify('onAdd', (h) => h.onAdd?.(cur));
  }

  private notify(what: keyof EventHandler<T>, fn: (h: EventHandler<T>) => void): void {
    // A handler removed by an earlier handler during this delivery gets nothing more.
    for (const h of [...this.handlers]) if (this.handlers.has(h)) this.call(what, () => fn(h));
  }

  private call(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error('Event handler failed', { event: what, err: errorMessage(err) });
    }
  }
}

function bind<T>(h: EventHandler<T>): EventHandler<T> {
  return {
    ...(h.onAdd ? { onAdd: h.onAdd.bind(h) } : {}),
    ...(h.onUpdate ? { onUpdate: h.onUpdate.bind(h) } : {}),
    ...(h.onDelete ? { onDelete: h.onDelete.bind(h) } : {}),
  };
}

export interface ResourceInformerOptions<T> {
  /** Restrict to one namespace (namespaced resources). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** List/watch as PartialObjectMetadata (server sends metadata only). */
  metadataOnly?: boolean;
  /** Applied to every object before it is cached, once; a whole list's items as it is read. */
  transform?: (obj: KubeObject) => T;
  clock?: Clock;
  logger?: Logger;
  random?: () => number;
  minWatchTimeoutSeconds?: number;
  /**
   * What to check when the API server does not serve the resource at all
   * (404 on list or watch), e.g. which CustomResourceDefinition to install.
   */
  missingHint?: string;
}

/** The hint when the caller gave none: a 404 on a collection means the type itself is unknown. */
const DEFAULT_MISSING_HINT = 'is it served by this API server, or its CustomResourceDefinition installed?';

/** A shared informer listing and watching `client`'s resource. */
export function resourceInformer<T extends KubeObject>(
  client: ResourceClient<KubeObject>,
  opts: ResourceInformerOptions<T> = {},
): SharedInformer<T> {
  const scope: ListOptions = {
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
    ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
  };
  const explain = explainMissing(client.descriptor, opts.missingHint ?? DEFAULT_MISSING_HINT);
  const listerWatcher: ListerWatcher<KubeObject> = {
    // The transform (eachItem) runs as a whole list is read, so 100,000 full items are never held at once.
    list: (o) =>
      client
        .list({ ...scope, ...o, ...(opts.metadataOnly ? { accept: PARTIAL_OBJECT_METADATA_LIST_ACCEPT } : {}) })
        .catch(explain),
    watch: (o) =>
      client
        .watch({ ...scope, ...o, ...(opts.metadataOnly ? { accept: PARTIAL_OBJECT_METADATA_ACCEPT } : {}) })
        .catch(explain),
  };
  return new SharedInformer<T>({
    name: client.descriptor.resource,
    listerWatcher,
    ...(opts.transform ? { transform: opts.transform } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.minWatchTimeoutSeconds ? { minWatchTimeoutSeconds: opts.minWatchTimeoutSeconds } : {}),
  });
}

/**
 * Rethrows a 404 on the collection with the resource's full name and `hint`:
 * the server's own text ("the server could not find the requested resource")
 * names neither, and the usual cause is a CRD that was never installed.
 */
/** Rethrows a NotFound of `descriptor`'s list with `hint` (what to install) added; any other error as it is. */
export function explainMissing(descriptor: ResourceDescriptor, hint: string): (err: unknown) => never {
  const fullName = descriptor.group === '' ? descriptor.resource : `${descriptor.resource}.${descriptor.group}`;
  return (err) => {
    if (!(err instanceof ApiError) || !isNotFound(err)) throw err;
    throw new ApiError(
      `${err.message} (${fullName}: ${hint})`,
      err.code,
      err.reason,
      err.status,
      err.retryAfterSeconds,
      { cause: err },
    );
  };
}

/** Transform that keeps only what a name-and-labels consumer needs (and drops the rest early). */
export function keepNameAndLabels(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  return {
    metadata: {
      name: m.name,
      ...(m.namespace ? { namespace: m.namespace } : {}),
      ...(m.labels ? { labels: m.labels } : {}),
      ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
    },
  };
}

/** keepNameAndLabels plus the annotations whose key `keep` accepts (a consumer's own records, not every tool's). */
export function keepNameLabelsAnd(keep: (annotation: string) => boolean): (obj: KubeObject) => KubeObject {
  return (obj) => {
    const kept = keepNameAndLabels(obj);
    const annotations = Object.entries(obj.metadata.annotations ?? {}).filter(([k]) => keep(k));
    if (annotations.length > 0) kept.metadata.annotations = Object.fromEntries(annotations);
    return kept;
  };
}
