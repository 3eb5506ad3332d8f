// The object and informer contracts shared by the Kubernetes plumbing
// (src/kube) and its consumers. Mirrors the parts of client-go's
// apimachinery/cache interfaces that this controller uses. Nothing here knows
// which custom resources it carries.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** A Kubernetes `Status` object as returned in error bodies. */
export interface StatusBody {
  kind?: 'Status';
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; retryAfterSeconds?: number; causes?: unknown[] };
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

/**
 * What a delete handler receives when the informer missed the final state of
 * an object (it disappeared while the watch was down and was noticed on relist).
 * Same idea as client-go's DeletedFinalStateUnknown.
 */
export interface Tombstone<T> {
  tombstone: true;
  key: string;
  /** Last state the informer knew. */
  obj: T;
}

export function isTombstone<T>(x: T | Tombstone<T>): x is Tombstone<T> {
  return typeof x === 'object' && x !== null && (x as Tombstone<T>).tombstone === true;
}

export interface EventHandler<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T | Tombstone<T>): void;
}

export interface HandlerRegistration {
  /** Stops delivery to this handler. Idempotent. */
  remove(): void;
}

/** Read-only view of an informer's cache. Returned objects are frozen: copy before mutating. */
export interface Lister<T> {
  /** Every cached object, optionally filtered by an equality label selector. */
  list(matchLabels?: Record<string, string>): T[];
  /** By key: `name` for cluster-scoped objects, `namespace/name` otherwise. */
  get(key: string): T | undefined;
}

export interface Informer<T> extends Lister<T> {
  /**
   * Registers a handler. If the informer has already synced, the handler first
   * receives a synthetic onAdd for every cached object (client-go semantics).
   */
  addEventHandler(handler: EventHandler<T>): HandlerRegistration;
  /** True once the first list has been delivered to the cache. */
  hasSynced(): boolean;
  /** Resolves once synced; rejects with the signal's reason if it fires first. */
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** The cache key of an object: `name` when cluster-scoped, else `namespace/name`. */
export function objectKey(meta: Pick<ObjectMeta, 'name' | 'namespace'>): string {
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

/** A string-keyed work queue with client-go semantics (see src/kube/rate-limiting-queue.ts). */
export interface WorkQueue {
  /** Queues `key` unless it is already waiting; a key being processed is re-queued after done(). */
  add(key: string): void;
  addAfter(key: string, delayMs: number): void;
  /** add() after the rate limiter's delay for this key. */
  addRateLimited(key: string): void;
  /** Resets the per-key backoff. */
  forget(key: string): void;
  numRequeues(key: string): number;
  /** Next key to process, or undefined once shut down and drained. */
  get(): Promise<string | undefined>;
  done(key: string): void;
  /** Ignore new adds; get() drains what is queued, then returns undefined. */
  shutDown(): void;
  isShuttingDown(): boolean;
  len(): number;
}
