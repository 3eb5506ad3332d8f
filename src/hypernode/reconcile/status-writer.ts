// The one writer of HyperNode status: nodeCount and, for HyperNodes a source
// owns, the health conditions, in one PUT …/status per HyperNode per change.
// One writer, as controller-runtime gives each kind one reconciler, so our
// own writes never meet in a 409 (docs/design.md §2.3). Mirrors the status
// worker of pkg/controllers/hypernode/hypernode_controller.go and the
// handlers of hypernode_handler.go.

import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../kube/clock.ts';
import { isConflict } from '../../kube/errors.ts';
import { isTombstone, type EventHandler, type KubeObject, type Lister, type Tombstone } from '../../kube/types.ts';
import { coalescingTrigger, type CoalescingTrigger } from '../../kube/coalescing-trigger.ts';
import { RateLimitingQueue, type QueueMetrics, type WorkerErrorHandler } from '../../kube/rate-limiting-queue.ts';
import { runWorkers, type SyncResult } from '../../kube/queue-workers.ts';
import type { Logger } from '../../log.ts';
import { errorMessage } from '../../util/error-message.ts';
import type { HealthSettings } from '../config/health-config.ts';
import type { HyperNodeMetrics } from '../hypernode-metrics.ts';
import type { EventRecorder, HyperNodeClient } from '../model/contracts.ts';
import { isOwnedBy, sourceOf } from '../model/hypernode-labels.ts';
import type { HyperNode, HyperNodeCondition, HyperNodeStatus, NodeMeta } from '../model/hypernode-types.ts';
import { dependsOnNodes, nodeCount } from '../model/member-selector.ts';
import { conditionTime, falseHealthConditions, mergeConditions } from './health/conditions.ts';
import { FabricHealthBoard } from './health/fabric-health.ts';
import { LabelHoldBoard } from './health/label-holds.ts';
import { healthTransitions, judgeHealth } from './health/health-judgement.ts';
import type { HealthJudgement } from './health/health-metrics.ts';
import { healthChanged, type NodeHealth } from './health/node-health.ts';
import { TopologyIndex } from './topology-index.ts';
import { codeClass, WriteFailures, writeRetryRateLimiter } from './write-failures.ts';

export const STATUS_QUEUE_NAME = 'hypernode-status';
/**
 * Node, Node health and fabric changes, and membership changes below a
 * HyperNode, are judged once they have been quiet this long: a rack losing
 * power, its events arriving over a second, is one write per HyperNode above
 * it; a node pool scaling up recomputes each regex or label count once.
 */
export const STATUS_QUIET_MS = 100;
/** A burst that never goes quiet is judged this long after it began, so a steady stream of changes still shows. */
export const STATUS_BURST_MAX_MS = 1_000;

export interface StatusWriterDeps {
  hyperNodes: Lister<HyperNode>;
  /** The metadata-only Node cache: what regex and label members resolve against. */
  nodes: Lister<NodeMeta>;
  client: HyperNodeClient;
  events: EventRecorder;
  /** What the health Events are filed on (the discovery ConfigMap). */
  regarding(): KubeObject;
  metrics: HyperNodeMetrics;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
  /** Told of each throw of the worker before its key is retried (the process logs and counts it). */
  onWorkerError: WorkerErrorHandler;
  /** Status writes in flight at once (the client set's write pace, read before each); one at a time without it. */
  writeConcurrency?: () => number;
}

/**
 * The Node health cache: absent (no NodesReady judged, what is written
 * stays), syncing (NodesReady is wanted but the cache is not ready: the
 * HyperNodes a source owns wait, so their first status write carries it), or ready.
 */
export type NodeHealthState = Lister<NodeHealth> | 'syncing' | undefined;

/** A status write (PUT …/status) failed, as opposed to deciding what to write: `cause` is the API error. */
class StatusWriteError extends Error {
  constructor(override readonly cause: unknown) {
    super(`Failed to update HyperNode status: ${errorMessage(cause)}`, { cause });
  }
}

export class StatusWriter {
  readonly queue: RateLimitingQueue;
  /** Where the fabric sources report (DiscovererOptions.fabricHealth); FabricHealthy is judged from it. */
  readonly fabric: FabricHealthBoard;
  /** Where the label memory of the sources reports (DiscovererOptions.labelHolds); TopologyLabelsPresent is judged from it. */
  readonly labelHolds: LabelHoldBoard;
  /** The last health judgement of each HyperNode a source owns, for the health gauges. */
  readonly judgements = new Map<string, HealthJudgement>();
  /**
   * The `health` settings in force; undefined until a configuration was applied, which leaves conditions as they are.
   */
  private settings: HealthSettings | undefined;
  private nodeHealth: NodeHealthState;
  private readonly index = new TopologyIndex();
  /** HyperNodes to judge at the end of the coalescing window. */
  private readonly pending = new Set<string>();
  /**
   * Every HyperNode a source owns is to be judged at the end of the window (settings, Node health, a source's first
   * report).
   */
  private rescanPending = false;
  private readonly coalesced: CoalescingTrigger;
  /**
   * Per HyperNode: the resourceVersion our last status write was based on,
   * until the cache shows a newer one. While the cache still holds that
   * version the write's echo is on its way (and will queue the HyperNode
   * again); writing from the older version would only earn a 409.
   */
  private readonly writtenFrom = new Map<string, string>();
  /**
   * Sources whose snapshot the reconciler is writing now, and the HyperNodes
   * judged meanwhile. A status write lands between the cache read and the
   * PUT of a spec update and turns it into a 409 (turning `nvlink` on moves
   * every HyperNode of a fabric while its conditions change); so a source's
   * HyperNodes wait for its round, and are judged from the cache it leaves.
   */
  private readonly inSpecRound = new Set<string>();
  private readonly waitingForRound = new Set<string>();
  private readonly failures: WriteFailures;

  constructor(private readonly deps: StatusWriterDeps) {
    const rateLimiter = writeRetryRateLimiter(deps.clock);
    this.queue = new RateLimitingQueue({
      name: STATUS_QUEUE_NAME,
      clock: deps.clock,
      rateLimiter,
      metrics: deps.queueMetrics,
      onError: deps.onWorkerError,
    });
    this.failures = new WriteFailures(deps);
    // A source's first report names no HyperNode: all of that source's are judged.
    const owned = (source: string, names: readonly string[]) =>
      names.filter((n) => isOwnedBy(deps.hyperNodes.get(n), source));
    const changed = (source: string, names: readonly string[]) =>
      names.length === 0 ? this.rescan() : this.later(owned(source, names));
    this.fabric = new FabricHealthBoard(changed);
    this.labelHolds = new LabelHoldBoard(changed);
    this.coalesced = coalescingTrigger(() => this.flush(), {
      quietMs: STATUS_QUIET_MS,
      maxMs: STATUS_BURST_MAX_MS,
      clock: deps.clock,
      onError: (err) => deps.logger.error('Failed to queue HyperNodes for their status', { err }),
    });
  }

  /** The reconciler writes `source`'s HyperNodes now: their status waits until `endSpecRound`. */
  beginSpecRound(source: string): void {
    this.inSpecRound.add(source);
  }

  /** The round of `source` is over: the HyperNodes of it judged during the round are judged now. */
  endSpecRound(source: string): void {
    this.inSpecRound.delete(source);
    for (const name of this.waitingForRound) {
      const hn = this.deps.hyperNodes.get(name);
      if (hn !== undefined && sourceOf(hn) !== source) continue;
      this.waitingForRound.delete(name);
      this.queue.add(name);
    }
  }

  /** The `health` settings of the configuration applied (hot-reloaded). */
  setSettings(settings: HealthSettings): void {
    this.fabric.setLinkGraceMs(settings.linkGracePeriodMs);
    this.labelHolds.setLabelGraceMs(settings.labelGracePeriodMs);
    if (isDeepStrictEqual(settings, this.settings)) return;
    this.settings = settings;
    this.rescan();
  }

  /** The Node health cache as health.nodes has it (health-runner.ts). */
  setNodeHealth(state: NodeHealthState): void {
    this.nodeHealth = state;
    this.rescan();
  }

  /**
   * HyperNode events: the HyperNode itself is judged at once (its count and
   * conditions need only its own members); a membership change also judges
   * again, after the window, every HyperNode above it.
   */
  hyperNodeHandler(): EventHandler<HyperNode> {
    const changed = (hn: HyperNode) => {
      if (this.index.set(hn)) this.later(this.index.ancestorsOf(hn.metadata.name));
      this.queue.add(hn.metadata.name);
    };
    return {
      onAdd: changed,
      onUpdate: (old, hn) => {
        // The API server moves the generation with every spec change and with nothing else
        // (status, labels): the same generation, the same members, nothing to index.
        const gen = hn.metadata.generation;
        if (gen !== undefined && gen === old.metadata.generation) this.queue.add(hn.metadata.name);
        else changed(hn);
      },
      onDelete: (hn: HyperNode | Tombstone<HyperNode>) => {
        const name = isTombstone(hn) ? hn.obj.metadata.name : hn.metadata.name;
        const above = this.index.ancestorsOf(name);
        this.index.delete(name);
        this.judgements.delete(name);
        this.writtenFrom.delete(name);
        this.later(above);
      },
    };
  }

  /** Node add, delete and label changes (resyncs with the same labels are ignored): the regex and label counts. */
  nodeHandler(): EventHandler<NodeMeta> {
    const changed = () => this.later(this.index.nodeSelecting());
    return {
      onAdd: changed,
      onUpdate: (old, node) => {
        if (!isDeepStrictEqual(old.metadata.labels ?? {}, node.metadata.labels ?? {})) changed();
      },
      onDelete: changed,
    };
  }

  /** Node health events: only a change of Ready or cordon judges the HyperNodes above the Node. */
  nodeHealthHandler(): EventHandler<NodeHealth> {
    const changed = (name: string) => {
      if (this.settings?.nodes) this.later(this.index.ancestorsOfNode(name));
    };
    return {
      onAdd: (n) => changed(n.metadata.name),
      onUpdate: (old, n) => {
        if (healthChanged(old, n)) changed(n.metadata.name);
      },
      onDelete: (n) => changed(isTombstone(n) ? n.obj.metadata.name : n.metadata.name),
    };
  }

  /** The workers: as many HyperNodes at once as the write pace allows; returns once shut down and drained. */
  run(): Promise<void> {
    return runWorkers(
      this.queue,
      () => this.deps.writeConcurrency?.() ?? 1,
      (name) => this.syncOrRetry(name),
    );
  }

  /** Stops accepting work; run() ends after the writes in flight. */
  shutDown(): void {
    this.coalesced.stop();
    this.queue.shutDown();
  }

  /** Judges one HyperNode and writes its status if (and only if) it changed. */
  async sync(name: string): Promise<void> {
    const { hyperNodes, nodes, logger } = this.deps;
    const hn = hyperNodes.get(name);
    if (!hn) {
      logger.v(4).info('HyperNode has been deleted, no status update needed', { name });
      return;
    }
    const version = hn.metadata.resourceVersion;
    if (this.writtenFrom.has(name)) {
      if (this.writtenFrom.get(name) === version) return;
      this.writtenFrom.delete(name);
    }
    const source = sourceOf(hn);
    if (source !== undefined && this.inSpecRound.has(source)) {
      this.waitingForRound.add(name);
      return;
    }
    const settings = this.settings;
    // Hand-made HyperNodes get no condition; before any configuration the conditions stay as they are.
    const health = source !== undefined && settings !== undefined;
    // NodesReady is on its way: the first status write carries it with the count (setNodeHealth judges again).
    if (health && settings.nodes && this.nodeHealth === 'syncing') return;
    // Go counts 0 when the Node cache cannot be read; a throw here is retried instead of writing a wrong 0.
    // Exact-name HyperNodes (all discovered ones) need no copy of the Node cache.
    const count = nodeCount(hn, dependsOnNodes(hn) ? nodes.list() : [], logger);
    const conditions = health ? this.judgeConditions(hn, source, settings) : undefined;
    const status = nextStatus(hn.status, count, conditions);
    if (!status) return;
    // A new object around the cached one's frozen parts: the cache is never written to.
    const body: HyperNode = { ...hn, status };
    try {
      await this.deps.client.updateStatus(body);
    } catch (err) {
      throw new StatusWriteError(err);
    }
    if (version !== undefined) this.writtenFrom.set(name, version);
    this.deps.metrics.apiWrite('', 'update_status');
    const written = (status.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(',');
    logger.v(3).info('Updated HyperNode status', { name, nodeCount: count, conditions: written });
    if (conditions) this.reportTransitions(name, hn.status?.conditions ?? [], conditions);
  }

  /**
   * The conditions of a HyperNode a source owns once judged, or undefined
   * when they stay as they are; the judgement is kept for the health gauges.
   */
  private judgeConditions(hn: HyperNode, source: string, settings: HealthSettings): HyperNodeCondition[] | undefined {
    const name = hn.metadata.name;
    const nodeHealth = this.nodeHealth === 'syncing' ? undefined : this.nodeHealth;
    const fabricProblems = this.fabric.covers(source) ? this.fabric.problemsOf(source, name) : undefined;
    const holds = this.labelHolds.stateOf(source);
    const verdict = judgeHealth({
      settings,
      nodeHealth,
      nodesBelow: () => this.index.nodesBelow(name),
      fabricProblems,
      heldNodes: holds === 'reporting' ? this.labelHolds.heldOf(source, name) : holds === 'off' ? null : undefined,
    });
    const now = conditionTime(this.deps.clock.now());
    const conditions = mergeConditions(hn.status?.conditions, verdict.desired, now, hn.metadata.generation);
    const falseConditions = falseHealthConditions(conditions ?? hn.status?.conditions).map((c) => c.type);
    this.judgements.set(name, {
      source,
      tier: hn.spec?.tier ?? 0,
      unhealthyNodes: verdict.unhealthyNodes,
      falseConditions,
    });
    return conditions;
  }

  /**
   * One sync of `name`; a failure is retried after the name's backoff until
   * it succeeds, whatever the error: a rejected status write leaves a wrong
   * status that no later event may correct. A 409 means another writer
   * changed the object first (the informer's update queues it again anyway):
   * counted, logged at -v=2.
   */
  private async syncOrRetry(name: string): Promise<SyncResult> {
    const { logger, metrics } = this.deps;
    try {
      await this.sync(name);
      this.failures.resolved(name);
      return 'done';
    } catch (err) {
      if (!(err instanceof StatusWriteError)) {
        logger.error('Error syncing HyperNode, will retry', { name, err });
      } else if (isConflict(err.cause)) {
        metrics.apiWriteFailed('', 'update_status', codeClass(err.cause));
        logger.v(2).info('Error syncing HyperNode', { name, err });
      } else if (this.failures.failed(name, '', 'update_status', err.cause)) {
        logger.error('Error syncing HyperNode, will retry', { name, err });
      }
      return 'retry';
    }
  }

  /** Judges these HyperNodes again once the burst they are part of is over. */
  private later(names: Iterable<string>): void {
    let any = false;
    for (const name of names) {
      this.pending.add(name);
      any = true;
    }
    if (any) this.coalesced.trigger();
  }

  private rescan(): void {
    this.rescanPending = true;
    this.coalesced.trigger();
  }

  private flush(): void {
    if (this.rescanPending) {
      this.rescanPending = false;
      for (const hn of this.deps.hyperNodes.list()) if (sourceOf(hn) !== undefined) this.pending.add(hn.metadata.name);
    }
    for (const name of this.pending) this.queue.add(name);
    this.pending.clear();
  }

  /** One log line and one Event per health condition that turned False or back to True. */
  private reportTransitions(
    name: string,
    before: readonly HyperNodeCondition[],
    after: readonly HyperNodeCondition[],
  ): void {
    for (const t of healthTransitions(name, before, after)) {
      this.deps.logger.info('HyperNode condition changed', { name, type: t.type, status: t.status, reason: t.reason });
      this.deps.events.event(this.deps.regarding(), t.event.type, t.event.reason, t.message);
    }
  }
}

/**
 * The status to write, or undefined when it would equal `current`: the count
 * (Go serialises nodeCount with omitempty: 0 is an absent field) and, when
 * judged, the conditions (an empty list is an absent field); every other
 * status field is kept.
 */
export function nextStatus(
  current: HyperNodeStatus | undefined,
  count: number,
  conditions: HyperNodeCondition[] | undefined,
): HyperNodeStatus | undefined {
  const countChanged = (current?.nodeCount ?? 0) !== count;
  if (!countChanged && !conditions) return undefined;
  const next: HyperNodeStatus = { ...current };
  if (count === 0) delete next.nodeCount;
  else next.nodeCount = count;
  if (conditions) {
    if (conditions.length === 0) delete next.conditions;
    else next.conditions = conditions;
  }
  return next;
}
