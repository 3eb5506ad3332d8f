// Applies one discovery snapshot of one source to the cluster: create what is
// missing, update what differs, delete what the source no longer describes.
// Mirrors reconcileTopology in pkg/controllers/hypernode/hypernode_controller.go
// and the write helpers of pkg/controllers/hypernode/utils/utils.go
// (docs/design.md §2.2), with the improvements of docs/differences-from-go.md item 1: the
// desired object is compared with the cached one and only differences are
// written, status is never sent, cached objects are never mutated, and a name
// held by an object this source does not own is reported once, not every round.
// Three guards Go does not have: a snapshot that breaks a snapshot rule is
// refused whole before anything is written (the source keeps its last accepted
// snapshot), a run that would delete too much of a source's topology holds its
// deletes (delete-guard.ts), and every run that changed something is summed up
// in one Normal Event, while a run that changed nothing stays silent.

import type { Clock } from '../../kube/clock.ts';
import { ApiError, isAlreadyExists, isConflict, isNotFound } from '../../kube/errors.ts';
import type { KubeObject, Lister } from '../../kube/types.ts';
import { RateLimitingQueue, runWorker, type QueueMetrics, type SyncResult } from '../../kube/workqueue.ts';
import type { Logger } from '../../log.ts';
import type { EventRecorder, HyperNodeClient } from '../model/contracts.ts';
import { HYPERNODE_API_VERSION, HYPERNODE_KIND, NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode, type HyperNode } from '../model/hypernode-types.ts';
import { describeDiff, diffHyperNodes } from './hypernode-diff.ts';
import { labelValue } from '../model/label-reads.ts';
import { isOwnedBy, sourceOf } from '../model/hypernode-labels.ts';
import { DEFAULT_MAX_DELETE_PERCENT } from '../config/entry.ts';
import { deleteGuard, heldDeletesMessage } from './delete-guard.ts';
import type { HyperNodeMetrics, WriteVerb } from '../hypernode-metrics.ts';
import { describeViolations, validateSnapshot, type SnapshotViolation } from './snapshot-validation.ts';
import { WriteFailures, writeRetryRateLimiter } from './write-failures.ts';
import { errorMessage } from '../../util/error-message.ts';
import { DELETES_HELD, FAILED_CREATE, FAILED_DELETE, FAILED_UPDATE, NAME_CONFLICT, SNAPSHOT_REJECTED, TOPOLOGY_CHANGED, type EventReason } from '../event-reasons.ts';

/** client-go's retry.DefaultRetry: 5 attempts, ~10 ms apart. */
export const CONFLICT_RETRY_ATTEMPTS = 5;
export const CONFLICT_RETRY_DELAY_MS = 10;
/** How long an update that hit 409 waits for the informer to deliver the newer object. */
export const CACHE_CATCH_UP_TIMEOUT_MS = 1_000;
export const WRITE_RETRY_QUEUE_NAME = 'hypernode-write-retry';

/** How many violations or object names one log line or Event spells out; the rest are counted. */
const MAX_LISTED = 5;

export interface ReconcilerDeps {
  /** The HyperNode informer cache: `existing` and the update base come from here. */
  hyperNodes: Lister<HyperNode>;
  client: HyperNodeClient;
  events: EventRecorder;
  metrics: HyperNodeMetrics;
  clock: Clock;
  logger: Logger;
  /** workqueue_* metrics of the write retry queue. */
  queueMetrics?: QueueMetrics;
  /** The object Events about a whole source run are attached to (the discovery ConfigMap). */
  regarding(): KubeObject;
}

export interface ReconcileSummary {
  discovered: number;
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
  /** Desired names held by an object this source does not own. */
  foreign: number;
  /** Deletes the mass-delete guard held back. */
  held: number;
  /** The snapshot broke a snapshot rule: nothing was written for it. */
  rejected: boolean;
}

/** 'absent': neither desired nor owned by the source, so nothing to do. */
type Outcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'failed' | 'foreign' | 'held' | 'pending' | 'absent';

export class TopologyReconciler {
  /** Per source: name → resourceVersion of the foreign object already reported. */
  private readonly reportedConflicts = new Map<string, Map<string, string>>();
  /**
   * Per source: uids this reconciler deleted that the cache still holds. A
   * run that starts before the informer delivers the delete must not send it
   * again (it would only earn a 404).
   */
  private readonly deletedNotGone = new Map<string, Set<string>>();
  /**
   * Per source: its latest accepted snapshot by name, what every retry is
   * decided against. A rejected snapshot never gets here, so a pending retry
   * writes what the last accepted snapshot described, never the rejected one.
   */
  private readonly desired = new Map<string, Map<string, DiscoveredHyperNode>>();
  /** Per source: the violations of the rejected snapshot last reported, so a repeat is not reported again. */
  private readonly reportedRejections = new Map<string, string>();
  /** Per source: names whose delete the mass-delete guard holds; retries do not delete them either. */
  private readonly heldDeletes = new Map<string, ReadonlySet<string>>();
  /** Per source: the hold last reported (limit and names), so an unchanged hold is not reported every run. */
  private readonly reportedHolds = new Map<string, string>();
  /**
   * `source/name` of objects whose write failed. Each waits its own
   * exponential backoff; the worker then decides that one object again from
   * the latest snapshot and the cache, so a stale write is never replayed.
   */
  readonly retries: RateLimitingQueue;
  private readonly failures: WriteFailures;
  /** Snapshot rounds and retries take turns, so one object never has two writes in flight. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ReconcilerDeps) {
    this.retries = new RateLimitingQueue({ name: WRITE_RETRY_QUEUE_NAME, clock: deps.clock, rateLimiter: writeRetryRateLimiter(deps.clock), metrics: deps.queueMetrics });
    this.failures = new WriteFailures(deps);
  }

  /** `maxDeletePercent` comes from the source's entry of the discovery configuration. */
  reconcile(source: string, discovered: readonly DiscoveredHyperNode[], maxDeletePercent = DEFAULT_MAX_DELETE_PERCENT): Promise<ReconcileSummary> {
    return this.exclusive(() => this.reconcileSnapshot(source, discovered, maxDeletePercent));
  }

  /** The retry worker: returns once shutDown() was called and the current retry ended. */
  run(): Promise<void> {
    return runWorker(this.retries, (key) => this.exclusive(() => this.retry(key)));
  }

  /** The names whose delete the mass-delete guard holds after `source`'s last run (empty when none are held). */
  heldDeletesOf(source: string): ReadonlySet<string> {
    return this.heldDeletes.get(source) ?? new Set();
  }

  /** The latest accepted snapshot of `source` by name, as written (undefined before the first). */
  desiredOf(source: string): ReadonlyMap<string, DiscoveredHyperNode> | undefined {
    return this.desired.get(source);
  }

  /** The violations of `source`'s rejected snapshot, one per line, while its latest snapshot is rejected. */
  rejectionOf(source: string): string | undefined {
    return this.reportedRejections.get(source);
  }

  /** Stops retrying; pending retries are dropped (the next run starts from a fresh snapshot). */
  shutDown(): void {
    this.retries.shutDown();
  }

  private async reconcileSnapshot(source: string, discovered: readonly DiscoveredHyperNode[], maxDeletePercent: number): Promise<ReconcileSummary> {
    const { logger, metrics, clock } = this.deps;
    const started = clock.now();
    logger.info('Starting topology reconciliation', { source, discoveredNodeCount: discovered.length });
    const summary: ReconcileSummary = { discovered: discovered.length, created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0, foreign: 0, held: 0, rejected: false };
    const desired = desiredByName(source, discovered);
    const violations = validateSnapshot([...desired.values()]);
    if (violations.length > 0) {
      this.reportRejection(source, violations);
      summary.rejected = true;
      return summary;
    }
    if (this.reportedRejections.delete(source)) logger.info('Discovery snapshot accepted again after rejected ones', { source });
    this.desired.set(source, desired);
    let owned: HyperNode[];
    try {
      owned = this.deps.hyperNodes.list({ [NETWORK_TOPOLOGY_SOURCE_LABEL]: source });
    } catch (err) {
      logger.error('Failed to list existing HyperNodes', { source, err });
      metrics.reconcileFailed(source);
      summary.failed++;
      return summary;
    }

    this.forgetGoneDeletes(source, owned);
    this.guardDeletes(source, owned, desired, maxDeletePercent);
    const conflicts = new Map<string, string>();
    // Desired objects first (creates and updates), then what the source no longer describes (deletes).
    const names = new Set([...desired.keys(), ...owned.map((hn) => hn.metadata.name)]);
    for (const name of names) {
      const key = retryKey(source, name);
      const outcome = await this.reconcileObject(source, name, conflicts);
      if (outcome === 'failed') this.retries.addRateLimited(key);
      else this.retries.forget(key);
      count(summary, outcome);
    }
    // A failed object this snapshot neither describes nor finds owned is superseded: nothing left to retry.
    for (const key of this.failures.keys()) {
      const parsed = parseRetryKey(key);
      if (parsed.source !== source || names.has(parsed.name)) continue;
      this.failures.resolved(key);
      this.retries.forget(key);
    }
    // Only conflicts still present this round are remembered; a resolved one is forgotten.
    this.reportedConflicts.set(source, conflicts);

    metrics.managed(source, summary.created + summary.updated + summary.unchanged + summary.held);
    metrics.deletesHeld(source, summary.held);
    metrics.reconcileDuration(source, (clock.now() - started) / 1000);
    if (summary.failed === 0) metrics.reconcileSucceeded(source, clock.now());
    logger.info('Topology reconciliation completed', { source, ...summary });
    this.reportChanges(source, summary);
    return summary;
  }

  /**
   * Counts the rejected snapshot under each rule it breaks; logs it and emits
   * a Warning Event once per distinct set of violations, as a discoverer that
   * keeps producing the same bad snapshot would otherwise report it every run.
   */
  private reportRejection(source: string, violations: readonly SnapshotViolation[]): void {
    const { logger, metrics, events } = this.deps;
    for (const rule of new Set(violations.map((v) => v.rule))) metrics.snapshotRejected(source, rule);
    const text = describeViolations(violations);
    if (this.reportedRejections.get(source) === text) {
      logger.v(2).info('Discovery snapshot rejected again, nothing written', { source, violations: violations.length });
      return;
    }
    this.reportedRejections.set(source, text);
    const objects = listed([...new Set(violations.flatMap((v) => v.objects))]);
    const broken = listed(
      violations.map((v) => `${v.rule}: ${v.message}`),
      '; ',
    );
    logger.error('Discovery snapshot rejected, nothing written for this source', { source, objects, violations: broken });
    events.event(
      this.deps.regarding(),
      SNAPSHOT_REJECTED.type,
      SNAPSHOT_REJECTED.reason,
      `Discovery source "${source}" produced a snapshot that breaks the HyperNode rules; nothing of it was written and its HyperNodes stay as they were (${objects}): ${broken}`,
    );
  }

  /** Decides whether this run's deletes are held; reports a new hold once and a released one in the log. */
  private guardDeletes(source: string, owned: readonly HyperNode[], desired: ReadonlyMap<string, HyperNode>, maxDeletePercent: number): void {
    const { logger, events } = this.deps;
    const doomed = owned.map((hn) => hn.metadata.name).filter((name) => !desired.has(name));
    const decision = deleteGuard(owned.length, doomed.length, maxDeletePercent);
    if (!decision.hold) {
      this.reportedHolds.delete(source);
      const released = this.heldDeletes.get(source);
      if (this.heldDeletes.delete(source)) logger.info('HyperNode deletes no longer held', { source, previouslyHeld: released!.size, deletes: doomed.length, maxDeletePercent });
      return;
    }
    this.heldDeletes.set(source, new Set(doomed));
    const key = `${maxDeletePercent} ${[...doomed].sort().join(' ')}`;
    if (this.reportedHolds.get(source) === key) {
      logger.v(2).info('HyperNode deletes still held', { source, held: doomed.length, maxDeletePercent });
      return;
    }
    this.reportedHolds.set(source, key);
    logger.warn('Holding HyperNode deletes of a discovery run', {
      source,
      held: doomed.length,
      owned: owned.length,
      maxDeletePercent,
      allow: `set maxDeletePercent to ${decision.allowedFrom} or more on this source's entry`,
      names: listed(doomed),
    });
    events.event(this.deps.regarding(), DELETES_HELD.type, DELETES_HELD.reason, heldDeletesMessage(source, owned.length, doomed.length, maxDeletePercent));
  }

  /** One Normal Event for a run that wrote something; none for a run that did not, so the steady state writes nothing. */
  private reportChanges(source: string, summary: ReconcileSummary): void {
    if (summary.created + summary.updated + summary.deleted === 0) return;
    const held = summary.held > 0 ? `, ${summary.held} deletes held` : '';
    const message = `Discovery source "${source}": ${summary.created} created, ${summary.updated} updated, ${summary.deleted} deleted${held}`;
    this.deps.events.event(this.deps.regarding(), TOPOLOGY_CHANGED.type, TOPOLOGY_CHANGED.reason, message);
  }

  /** One due retry: the object is decided again against its source's latest snapshot and the cache. */
  private async retry(key: string): Promise<SyncResult> {
    // Shutting down: leave the rest to the next leader's first round.
    if (this.retries.isShuttingDown()) return 'done';
    const { source, name } = parseRetryKey(key);
    this.deps.logger.v(2).info('Retrying HyperNode write', { name, source, retries: this.retries.numRequeues(key) });
    const found = new Map<string, string>();
    const outcome = await this.reconcileObject(source, name, found);
    const reported = this.reportedConflicts.get(source) ?? new Map<string, string>();
    for (const [n, version] of found) reported.set(n, version);
    this.reportedConflicts.set(source, reported);
    if (outcome === 'failed') return 'retry';
    // The source's last failed write went through: its latest snapshot is now written in full.
    if (![...this.failures.keys()].some((k) => parseRetryKey(k).source === source)) this.deps.metrics.reconcileSucceeded(source, this.deps.clock.now());
    return 'done';
  }

  /**
   * Brings one name in line with the source's latest snapshot: create it when
   * desired and missing, update it when desired and owned, delete it when
   * owned and no longer desired, leave another owner's object alone.
   */
  private async reconcileObject(source: string, name: string, conflicts: Map<string, string>, attempt = 1): Promise<Outcome> {
    const snapshot = this.desired.get(source);
    if (!snapshot) return 'absent';
    const want = snapshot.get(name);
    const current = this.deps.hyperNodes.get(name);
    const owned = isOwnedBy(current, source);
    let outcome: Outcome;
    if (want && !current) outcome = await this.create(source, want);
    else if (want && owned) outcome = await this.update(source, want, current!);
    else if (want) outcome = this.reportForeign(source, current!, conflicts);
    else if (owned && this.heldDeletes.get(source)?.has(name)) outcome = 'held';
    else if (owned) outcome = await this.delete(source, current!, conflicts, attempt);
    else outcome = 'absent';
    // A held delete is not written, so an earlier failure of it is not over either.
    if (outcome !== 'failed' && outcome !== 'held') this.failures.resolved(retryKey(source, name));
    return outcome;
  }

  private async create(source: string, want: HyperNode): Promise<Outcome> {
    const name = want.metadata.name;
    this.deps.logger.info('Creating new HyperNode', { name, source });
    try {
      await this.deps.client.create(want);
      this.deps.metrics.apiWrite(source, 'create');
      return 'created';
    } catch (err) {
      if (isAlreadyExists(err)) {
        // Our own earlier create, or a foreign object, that the cache has not
        // seen yet: the next round sees it in the cache and knows which.
        this.deps.logger.v(2).info('HyperNode exists but is not cached yet', { name, source });
        return 'pending';
      }
      return this.fail('create', source, want, err);
    }
  }

  private async update(source: string, want: HyperNode, cached: HyperNode): Promise<Outcome> {
    const name = want.metadata.name;
    let current: HyperNode | undefined = cached;
    try {
      for (let attempt = 1; ; attempt++) {
        if (!current) throw new ApiError(`hypernodes "${name}" not found in the cache`, 404, 'NotFound');
        if (!needsUpdate(current, want)) return attempt === 1 ? 'unchanged' : 'updated';
        const body = desiredUpdate(current, want);
        if (attempt === 1) this.logUpdate(source, current, body);
        try {
          await this.deps.client.update(body);
          this.deps.metrics.apiWrite(source, 'update');
          return 'updated';
        } catch (err) {
          if (!isConflict(err) || attempt >= CONFLICT_RETRY_ATTEMPTS) throw err;
          current = await this.awaitNewerCache(name, current.metadata.resourceVersion);
        }
      }
    } catch (err) {
      return this.fail('update', source, want, err);
    }
  }

  /** At -v=2 the line says what changes, field by field (status is not part of an update). */
  private logUpdate(source: string, current: HyperNode, body: HyperNode): void {
    const { logger } = this.deps;
    const name = body.metadata.name;
    if (!logger.enabled(2)) {
      logger.info('Updating HyperNode', { name, source });
      return;
    }
    const changes = describeDiff(diffHyperNodes({ ...current, status: body.status }, body)).join('; ');
    logger.info('Updating HyperNode', { name, source, changes });
  }

  /**
   * Deletes exactly the cached object the decision was made on: its uid and
   * resourceVersion go along as preconditions. A 409 means the object was
   * re-created or changed meanwhile; the decision is then made again on the
   * newer cached object, and the same delete is never sent twice.
   */
  private async delete(source: string, stale: HyperNode, conflicts: Map<string, string>, attempt: number): Promise<Outcome> {
    const { name, uid, resourceVersion } = stale.metadata;
    if (uid !== undefined && this.deletedNotGone.get(source)?.has(uid)) return 'pending';
    this.deps.logger.info('Deleting HyperNode', { name, source });
    try {
      await this.deps.client.delete(name, { uid, resourceVersion });
      this.deps.metrics.apiWrite(source, 'delete');
      this.rememberDeleted(source, uid);
      return 'deleted';
    } catch (err) {
      // Already gone is what we wanted; the informer will drop it from the cache.
      if (isNotFound(err)) {
        this.rememberDeleted(source, uid);
        return 'deleted';
      }
      if (!isConflict(err) || attempt >= CONFLICT_RETRY_ATTEMPTS) return this.fail('delete', source, stale, err);
      const newer = await this.awaitNewerCache(name, resourceVersion);
      if (newer?.metadata.resourceVersion === resourceVersion) return this.fail('delete', source, stale, err);
      this.deps.logger.info('HyperNode changed before it was deleted, deciding again', { name, source, err });
      return this.reconcileObject(source, name, conflicts, attempt + 1);
    }
  }

  private rememberDeleted(source: string, uid: string | undefined): void {
    if (uid === undefined) return;
    let uids = this.deletedNotGone.get(source);
    if (!uids) this.deletedNotGone.set(source, (uids = new Set()));
    uids.add(uid);
  }

  /** Drops the remembered deletes the cache has caught up with. */
  private forgetGoneDeletes(source: string, owned: readonly HyperNode[]): void {
    const uids = this.deletedNotGone.get(source);
    if (!uids || uids.size === 0) return;
    const cached = new Set(owned.map((hn) => hn.metadata.uid));
    for (const uid of uids) if (!cached.has(uid)) uids.delete(uid);
  }

  /** After a 409 the cache is behind the server: give the informer a moment to deliver. */
  private async awaitNewerCache(name: string, staleVersion: string | undefined): Promise<HyperNode | undefined> {
    const { clock, hyperNodes } = this.deps;
    const deadline = clock.now() + CACHE_CATCH_UP_TIMEOUT_MS;
    for (;;) {
      await clock.sleep(CONFLICT_RETRY_DELAY_MS);
      const current = hyperNodes.get(name);
      if (!current || current.metadata.resourceVersion !== staleVersion || clock.now() >= deadline) return current;
    }
  }

  private reportForeign(source: string, holder: HyperNode, conflicts: Map<string, string>): Outcome {
    const name = holder.metadata.name;
    const version = holder.metadata.resourceVersion ?? '';
    conflicts.set(name, version);
    if (this.reportedConflicts.get(source)?.get(name) === version) return 'foreign';
    const owner = sourceOf(holder);
    const message = owner
      ? `HyperNode ${name} is owned by discovery source "${owner}"; source "${source}" also describes it and leaves it alone`
      : `HyperNode ${name} has no ${NETWORK_TOPOLOGY_SOURCE_LABEL} label; discovery source "${source}" describes it but does not take over objects it did not create`;
    this.deps.logger.warn('HyperNode name is held by an object this source does not own', { name, source, owner: owner ?? '' });
    this.deps.events.event(eventRef(holder), NAME_CONFLICT.type, NAME_CONFLICT.reason, message);
    this.deps.metrics.reconcileFailed(source);
    return 'foreign';
  }

  /** Counts a failed write; logs it and emits a Warning Event once per distinct error of that object. */
  private fail(verb: Exclude<WriteVerb, 'update_status'>, source: string, obj: HyperNode, err: unknown): Outcome {
    this.deps.metrics.reconcileFailed(source);
    if (!this.failures.failed(retryKey(source, obj.metadata.name), source, verb, err)) return 'failed';
    const detail = errorMessage(err);
    this.deps.logger.error(`Failed to ${verb} HyperNode, will retry`, { name: obj.metadata.name, source, err });
    const { type, reason } = WRITE_FAILED[verb];
    this.deps.events.event(eventRef(obj), type, reason, `Failed to ${verb} HyperNode for discovery source "${source}": ${detail}`);
    return 'failed';
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.turn.then(fn);
    this.turn = result.catch(() => {});
    return result;
  }
}

/** HyperNode names never contain '/', so the last one separates the source. */
function retryKey(source: string, name: string): string {
  return `${source}/${name}`;
}

function parseRetryKey(key: string): { source: string; name: string } {
  const at = key.lastIndexOf('/');
  return { source: key.slice(0, at), name: key.slice(at + 1) };
}

/**
 * The snapshot keyed by name (a later duplicate wins, as in Go), each a copy
 * carrying the source label, `spec.tier` always present, and no status: a
 * create never sends the discoverer's empty status.
 */
export function desiredByName(source: string, discovered: readonly DiscoveredHyperNode[]): Map<string, DiscoveredHyperNode> {
  const desired = new Map<string, DiscoveredHyperNode>();
  for (const { status: _status, ...hn } of discovered) {
    // Shallow copies: nested spec parts are shared with the snapshot and never mutated.
    desired.set(hn.metadata.name, {
      ...hn,
      apiVersion: HYPERNODE_API_VERSION,
      kind: HYPERNODE_KIND,
      metadata: { ...hn.metadata, labels: { ...hn.metadata.labels, [NETWORK_TOPOLOGY_SOURCE_LABEL]: source } },
      spec: { ...hn.spec, tier: hn.spec.tier ?? 0 },
    });
  }
  return desired;
}

/**
 * True when PUTting desiredUpdate(current, want) would change what the server
 * holds: the spec differs, or a desired label/annotation is missing or has
 * another value. Compared in place, so the common unchanged case copies nothing.
 */
export function needsUpdate(current: HyperNode, want: HyperNode): boolean {
  return (
    !jsonEqual(want.spec, current.spec) || !includesAll(current.metadata.labels, want.metadata.labels) || !includesAll(current.metadata.annotations, want.metadata.annotations)
  );
}

/**
 * The object to PUT for an existing HyperNode: a copy of the cached one (its
 * resourceVersion included) with the spec replaced and the desired labels and
 * annotations merged over the current ones (Go never removes labels). Status is
 * left out: the main resource ignores it, and nodeCount belongs to status sync.
 */
export function desiredUpdate(current: HyperNode, want: HyperNode): HyperNode {
  const body = structuredClone(current);
  delete body.status;
  body.spec = structuredClone(want.spec);
  body.metadata.labels = { ...current.metadata.labels, ...want.metadata.labels };
  if (want.metadata.annotations) body.metadata.annotations = { ...current.metadata.annotations, ...want.metadata.annotations };
  return body;
}

function includesAll(have: Record<string, string> | undefined, want: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(want ?? {})) if (labelValue(have, k) !== v) return false;
  return true;
}

/**
 * Equality of the JSON forms (what the server stores): properties whose value
 * is undefined count as absent, as JSON.stringify drops them.
 */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((x, i) => jsonEqual(x, bs[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const ak = keys(ao);
  return ak.length === keys(bo).length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}

/** The Event reason of a failed write, by verb. */
const WRITE_FAILED: Readonly<Record<Exclude<WriteVerb, 'update_status'>, EventReason>> = { create: FAILED_CREATE, update: FAILED_UPDATE, delete: FAILED_DELETE };

function eventRef(hn: HyperNode): KubeObject {
  const { name, uid, resourceVersion } = hn.metadata;
  return { apiVersion: HYPERNODE_API_VERSION, kind: HYPERNODE_KIND, metadata: { name, uid, resourceVersion } };
}

function count(summary: ReconcileSummary, outcome: Outcome): void {
  if (outcome !== 'pending' && outcome !== 'absent') summary[outcome]++;
}

/** The first MAX_LISTED items, and how many more there are: a 10,000-object snapshot must not make a 10,000-name line. */
function listed(items: readonly string[], separator = ', '): string {
  const shown = items.slice(0, MAX_LISTED).join(separator);
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}
