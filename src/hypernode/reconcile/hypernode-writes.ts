// The per-object half of the topology reconciler: brings one name in line
// with its source's latest accepted snapshot and the cache — create, update
// (with client-go's conflict retries), delete with preconditions, or leave
// another owner's object alone (reported once per version) — and reports a
// failed write once per distinct error. Mirrors the write helpers of
// pkg/controllers/hypernode/utils/utils.go, with the improvements of
// docs/differences-from-go.md item 1.

import type { Clock } from '../../kube/clock.ts';
import { ApiError, isAlreadyExists, isConflict, isNotFound } from '../../kube/errors.ts';
import type { KubeObject, Lister } from '../../kube/types.ts';
import type { Logger } from '../../log.ts';
import type { EventRecorder, HyperNodeClient } from '../model/contracts.ts';
import {
  HYPERNODE_API_VERSION,
  HYPERNODE_KIND,
  type DiscoveredHyperNode,
  type HyperNode,
} from '../model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, isOwnedBy, sourceOf } from '../model/hypernode-labels.ts';
import type { HyperNodeMetrics, WriteVerb } from '../hypernode-metrics.ts';
import { FAILED_CREATE, FAILED_DELETE, FAILED_UPDATE, NAME_CONFLICT, type EventReason } from '../event-reasons.ts';
import { errorMessage } from '../../util/error-message.ts';
import { describeDiff, diffHyperNodes } from './hypernode-diff.ts';
import { desiredUpdate, needsUpdate } from './desired-objects.ts';
import type { WriteFailures } from './write-failures.ts';

/** client-go's retry.DefaultRetry: 5 attempts, ~10 ms apart. */
export const CONFLICT_RETRY_ATTEMPTS = 5;
export const CONFLICT_RETRY_DELAY_MS = 10;
/** How long an update that hit 409 waits for the informer to deliver the newer object. */
export const CACHE_CATCH_UP_TIMEOUT_MS = 1_000;

/** 'absent': neither desired nor owned by the source, so nothing to do. */
export type Outcome =
  | 'created'
  | 'updated'
  | 'unchanged'
  | 'deleted'
  | 'failed'
  | 'foreign'
  | 'held'
  | 'pending'
  | 'absent';

export interface HyperNodeWritesDeps {
  /** The HyperNode informer cache: what is decided against, and the update base. */
  hyperNodes: Lister<HyperNode>;
  client: HyperNodeClient;
  events: EventRecorder;
  metrics: HyperNodeMetrics;
  clock: Clock;
  logger: Logger;
}

/** What the reconcile loop knows that decides a write. */
export interface WriteInputs {
  /** The source's latest accepted snapshot by name (undefined before the first). */
  desiredOf(source: string): ReadonlyMap<string, DiscoveredHyperNode> | undefined;
  /** Whether the mass-delete guard holds the delete of `name`. */
  isHeld(source: string, name: string): boolean;
}

/** The retry key of an object; HyperNode names never contain '/', so the last one separates the source. */
export function retryKey(source: string, name: string): string {
  return `${source}/${name}`;
}

export function parseRetryKey(key: string): { source: string; name: string } {
  const at = key.lastIndexOf('/');
  return { source: key.slice(0, at), name: key.slice(at + 1) };
}

export class HyperNodeWrites {
  /** Per source: name → resourceVersion of the foreign object already reported. */
  private readonly reportedConflicts = new Map<string, Map<string, string>>();
  /**
   * Per source: uids this reconciler deleted that the cache still holds. A
   * run that starts before the informer delivers the delete must not send it
   * again (it would only earn a 404).
   */
  private readonly deletedNotGone = new Map<string, Set<string>>();

  constructor(
    private readonly deps: HyperNodeWritesDeps,
    private readonly inputs: WriteInputs,
    private readonly failures: WriteFailures,
  ) {}

  /**
   * Brings one name in line with the source's latest snapshot: create it when
   * desired and missing, update it when desired and owned, delete it when
   * owned and no longer desired, leave another owner's object alone. The
   * foreign names found go into `conflicts` (name → resourceVersion).
   */
  async decide(source: string, name: string, conflicts: Map<string, string>, attempt = 1): Promise<Outcome> {
    const snapshot = this.inputs.desiredOf(source);
    if (!snapshot) return 'absent';
    const want = snapshot.get(name);
    const current = this.deps.hyperNodes.get(name);
    const owned = isOwnedBy(current, source);
    let outcome: Outcome;
    if (want && !current) outcome = await this.create(source, want);
    else if (want && owned) outcome = await this.update(source, want, current!);
    else if (want) outcome = this.reportForeign(source, current!, conflicts);
    else if (owned && this.inputs.isHeld(source, name)) outcome = 'held';
    else if (owned) outcome = await this.delete(source, current!, conflicts, attempt);
    else outcome = 'absent';
    // A held delete is not written, so an earlier failure of it is not over either.
    if (outcome !== 'failed' && outcome !== 'held') this.failures.resolved(retryKey(source, name));
    return outcome;
  }

  /**
   * Remembers the foreign names reported: a whole round's replace the
   * source's (a resolved conflict is forgotten), a retry's add to them.
   */
  conflictsSeen(source: string, found: ReadonlyMap<string, string>, wholeRound: boolean): void {
    const reported = wholeRound
      ? new Map<string, string>()
      : (this.reportedConflicts.get(source) ?? new Map<string, string>());
    for (const [name, version] of found) reported.set(name, version);
    this.reportedConflicts.set(source, reported);
  }

  /** Drops the remembered deletes the cache has caught up with. */
  forgetGoneDeletes(source: string, owned: readonly HyperNode[]): void {
    const uids = this.deletedNotGone.get(source);
    if (!uids || uids.size === 0) return;
    const cached = new Set(owned.map((hn) => hn.metadata.uid));
    for (const uid of uids) if (!cached.has(uid)) uids.delete(uid);
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
  private async delete(
    source: string,
    stale: HyperNode,
    conflicts: Map<string, string>,
    attempt: number,
  ): Promise<Outcome> {
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
      return this.decide(source, name, conflicts, attempt + 1);
    }
  }

  private rememberDeleted(source: string, uid: string | undefined): void {
    if (uid === undefined) return;
    let uids = this.deletedNotGone.get(source);
    if (!uids) this.deletedNotGone.set(source, (uids = new Set()));
    uids.add(uid);
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
    this.deps.logger.warn('HyperNode name is held by an object this source does not own', {
      name,
      source,
      owner: owner ?? '',
    });
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
    this.deps.events.event(
      eventRef(obj),
      type,
      reason,
      `Failed to ${verb} HyperNode for discovery source "${source}": ${detail}`,
    );
    return 'failed';
  }
}

/** The Event reason of a failed write, by verb. */
const WRITE_FAILED: Readonly<Record<Exclude<WriteVerb, 'update_status'>, EventReason>> = {
  create: FAILED_CREATE,
  update: FAILED_UPDATE,
  delete: FAILED_DELETE,
};

function eventRef(hn: HyperNode): KubeObject {
  const { name, uid, resourceVersion } = hn.metadata;
  return { apiVersion: HYPERNODE_API_VERSION, kind: HYPERNODE_KIND, metadata: { name, uid, resourceVersion } };
}
