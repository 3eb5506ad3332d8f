// Applies one source's snapshot to the cluster: the loop of snapshot rounds,
// and the retry worker that decides one failed object again. Mirrors
// reconcileTopology in pkg/controllers/hypernode/hypernode_controller.go.
// What one name needs is in hypernode-writes.ts, the objects written in
// desired-objects.ts, what a run reports in reconcile-reports.ts; the rules
// (checks before writing, held deletes, writes side by side at the write
// pace, one object's writes in sequence) are docs/design.md §2.2.

import { RateLimitingQueue, type QueueMetrics, type WorkerErrorHandler } from '../../kube/rate-limiting-queue.ts';
import { runWorkers, type SyncResult } from '../../kube/queue-workers.ts';
import { mapBounded } from '../../util/slots.ts';
import type { DiscoveredHyperNode, HyperNode } from '../model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL } from '../model/hypernode-labels.ts';
import { DEFAULT_MAX_DELETE_PERCENT } from '../config/entry.ts';
import { validateSnapshot } from './snapshot-validation.ts';
import { WriteFailures, writeRetryRateLimiter } from './write-failures.ts';
import { desiredByName } from './desired-objects.ts';
import {
  HyperNodeWrites,
  parseRetryKey,
  retryKey,
  type HyperNodeWritesDeps,
  type Outcome,
} from './hypernode-writes.ts';
import { ReconcileReports, type ReconcileReportsDeps } from './reconcile-reports.ts';
import type { HeldNode } from '../model/contracts.ts';
import { keptHyperNodes, type KeptTopology } from './kept-topology.ts';

export const WRITE_RETRY_QUEUE_NAME = 'hypernode-write-retry';

/** What the per-object writes and the run reports need, and the retry queue's metrics. */
export interface ReconcilerDeps extends HyperNodeWritesDeps, ReconcileReportsDeps {
  /** workqueue_* metrics of the write retry queue. */
  queueMetrics?: QueueMetrics;
  /** Told of each throw of the worker before its key is retried (the process logs and counts it). */
  onWorkerError: WorkerErrorHandler;
  /** Writes in flight at once (the client set's write pace, read before each write); one at a time without it. */
  writeConcurrency?: () => number;
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

export class TopologyReconciler {
  /**
   * Per source: its latest accepted snapshot by name, what every retry is
   * decided against. A rejected snapshot never gets here, so a pending retry
   * writes what the last accepted snapshot described, never the rejected one.
   */
  private readonly desired = new Map<string, Map<string, DiscoveredHyperNode>>();
  /**
   * `source/name` of objects whose write failed. Each waits its own
   * exponential backoff; the worker then decides that one object again from
   * the latest snapshot and the cache, so a stale write is never replayed.
   */
  readonly retries: RateLimitingQueue;
  private readonly failures: WriteFailures;
  private readonly reports: ReconcileReports;
  private readonly writes: HyperNodeWrites;
  /**
   * One object never has two writes in flight: a snapshot round has the
   * objects to itself (rounds and retries wait for each other), while
   * retries, one per object (the queue never hands out a key twice), run
   * beside each other. `turn` ends when the last round queued ends;
   * `retrying` holds the retries running.
   */
  private turn: Promise<unknown> = Promise.resolve();
  private readonly retrying = new Set<Promise<unknown>>();

  constructor(private readonly deps: ReconcilerDeps) {
    this.retries = new RateLimitingQueue({
      name: WRITE_RETRY_QUEUE_NAME,
      clock: deps.clock,
      rateLimiter: writeRetryRateLimiter(deps.clock),
      metrics: deps.queueMetrics,
      onError: deps.onWorkerError,
    });
    this.failures = new WriteFailures(deps);
    this.reports = new ReconcileReports(deps);
    const inputs = {
      desiredOf: (source: string) => this.desired.get(source),
      isHeld: (source: string, name: string) => this.reports.isHeld(source, name),
    };
    this.writes = new HyperNodeWrites(deps, inputs, this.failures);
  }

  /** `maxDeletePercent` comes from the source's entry of the discovery configuration. */
  reconcile(
    source: string,
    discovered: readonly DiscoveredHyperNode[],
    maxDeletePercent = DEFAULT_MAX_DELETE_PERCENT,
  ): Promise<ReconcileSummary> {
    return this.exclusive(() => this.reconcileSnapshot(source, discovered, maxDeletePercent));
  }

  /** The retry worker: returns once shutDown() was called and the current retry ended. */
  run(): Promise<void> {
    return runWorkers(this.retries, this.concurrency, (key) => this.besideOtherRetries(() => this.retry(key)));
  }

  /** The names whose delete the mass-delete guard holds after `source`'s last run (empty when none are held). */
  heldDeletesOf(source: string): ReadonlySet<string> {
    return this.reports.heldDeletesOf(source);
  }

  /** The latest accepted snapshot of `source` by name, as written (undefined before the first). */
  desiredOf(source: string): ReadonlyMap<string, DiscoveredHyperNode> | undefined {
    return this.desired.get(source);
  }

  /** The violations of `source`'s rejected snapshot, one per line, while its latest snapshot is rejected. */
  rejectionOf(source: string): string | undefined {
    return this.reports.rejectionOf(source);
  }

  /**
   * `source`'s tree as this reconciler keeps it after its latest accepted
   * snapshot (the exports' one input, kept-topology.ts): that snapshot and the
   * cached objects whose delete the guard holds; `heldNodes` are the Nodes its
   * label memory keeps in place. Undefined before the first accepted snapshot.
   */
  keptOf(source: string, heldNodes: readonly HeldNode[] = []): KeptTopology | undefined {
    const desired = this.desired.get(source);
    if (!desired) return undefined;
    const held = this.reports.heldDeletesOf(source);
    const why = this.reports.holdReasonOf(source);
    return {
      source,
      hyperNodes: keptHyperNodes(desired.values(), held, (name) => this.deps.hyperNodes.get(name)),
      heldDeletes: held.size > 0 && why !== undefined ? { names: held, why } : undefined,
      heldNodes,
    };
  }

  /** Stops retrying; pending retries are dropped (the next run starts from a fresh snapshot). */
  shutDown(): void {
    this.retries.shutDown();
  }

  private async reconcileSnapshot(
    source: string,
    discovered: readonly DiscoveredHyperNode[],
    maxDeletePercent: number,
  ): Promise<ReconcileSummary> {
    const { logger, metrics, clock } = this.deps;
    const started = clock.now();
    logger.info('Starting topology reconciliation', { source, discoveredNodeCount: discovered.length });
    const summary: ReconcileSummary = {
      discovered: discovered.length,
      created: 0,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 0,
      foreign: 0,
      held: 0,
      rejected: false,
    };
    const desired = desiredByName(source, discovered);
    const violations = validateSnapshot([...desired.values()]);
    if (violations.length > 0) {
      this.reports.rejected(source, violations);
      summary.rejected = true;
      return summary;
    }
    this.reports.accepted(source);
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

    this.writes.forgetGoneDeletes(source, owned);
    this.reports.guardDeletes(source, owned, desired, maxDeletePercent);
    const conflicts = new Map<string, string>();
    const decideOne = async (name: string) => {
      const key = retryKey(source, name);
      const outcome = await this.writes.decide(source, name, conflicts);
      if (outcome === 'failed') this.retries.addRateLimited(key);
      else this.retries.forget(key);
      count(summary, outcome);
    };
    // Desired objects first (creates and updates), then what the source no longer describes
    // (deletes), so the new topology stands before the old one goes.
    const names = new Set([...desired.keys(), ...owned.map((hn) => hn.metadata.name)]);
    await mapBounded([...desired.keys()], this.concurrency, decideOne);
    await mapBounded(
      owned.map((hn) => hn.metadata.name).filter((name) => !desired.has(name)),
      this.concurrency,
      decideOne,
    );
    // A failed object this snapshot neither describes nor finds owned is superseded: nothing left to retry.
    for (const key of this.failures.keys()) {
      const parsed = parseRetryKey(key);
      if (parsed.source !== source || names.has(parsed.name)) continue;
      this.failures.resolved(key);
      this.retries.forget(key);
    }
    // Only conflicts still present this round are remembered; a resolved one is forgotten.
    this.writes.conflictsSeen(source, conflicts, true);

    metrics.managed(source, summary.created + summary.updated + summary.unchanged + summary.held);
    metrics.deletesHeld(source, summary.held);
    metrics.reconcileDuration(source, (clock.now() - started) / 1000);
    if (summary.failed === 0) metrics.reconcileSucceeded(source, clock.now());
    logger.info('Topology reconciliation completed', { source, ...summary });
    this.reports.changed(source, summary);
    return summary;
  }

  /** One due retry: the object is decided again against its source's latest snapshot and the cache. */
  private async retry(key: string): Promise<SyncResult> {
    // Shutting down: leave the rest to the next leader's first round.
    if (this.retries.isShuttingDown()) return 'done';
    const { source, name } = parseRetryKey(key);
    this.deps.logger.v(2).info('Retrying HyperNode write', { name, source, retries: this.retries.numRequeues(key) });
    const found = new Map<string, string>();
    const outcome = await this.writes.decide(source, name, found);
    this.writes.conflictsSeen(source, found, false);
    if (outcome === 'failed') return 'retry';
    // The source's last failed write went through: its latest snapshot is now written in full.
    if (![...this.failures.keys()].some((k) => parseRetryKey(k).source === source))
      this.deps.metrics.reconcileSucceeded(source, this.deps.clock.now());
    return 'done';
  }

  private readonly concurrency = (): number => this.deps.writeConcurrency?.() ?? 1;

  /** Runs `fn` once the rounds queued before it and the retries running have ended, alone. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = Promise.all([this.turn, ...this.retrying]).then(fn);
    this.turn = result.catch(() => {});
    return result;
  }

  /** Runs `fn` once the rounds queued before it have ended, beside other retries. */
  private besideOtherRetries<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.turn.then(fn);
    const running = result.catch(() => {});
    this.retrying.add(running);
    void running.then(() => this.retrying.delete(running));
    return result;
  }
}

function count(summary: ReconcileSummary, outcome: Outcome): void {
  if (outcome !== 'pending' && outcome !== 'absent') summary[outcome]++;
}
