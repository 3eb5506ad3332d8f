// The condition writer (docs/health.md): keeps NodesReady and FabricHealthy
// in status.conditions of every HyperNode a source owns, through the status
// subresource with the controller's client (so the same token bucket as every
// other write and the Lease's write fence). Node and fabric changes within
// HEALTH_COALESCE_MS cost one judgement, and one write, per HyperNode above
// them. It only ever writes status.conditions: members, names and uids are
// the discoverers' alone, and nothing here deletes. Ours: Volcano's
// controller fills no condition.

import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../../kube/clock.ts';
import type { EventHandler, KubeObject, Lister, Tombstone } from '../../../kube/types.ts';
import { isTombstone } from '../../../kube/types.ts';
import { RateLimitingQueue, runWorker, type QueueMetrics, type SyncResult } from '../../../kube/workqueue.ts';
import type { Logger } from '../../../log.ts';
import { HYPERNODE_HEALTHY, HYPERNODE_UNHEALTHY } from '../../event-reasons.ts';
import type { HyperNodeMetrics } from '../../hypernode-metrics.ts';
import type { EventRecorder, HyperNodeClient } from '../../model/contracts.ts';
import type { HyperNode, HyperNodeCondition } from '../../model/hypernode-types.ts';
import { isOwnedBy, sourceOf } from '../../model/hypernode-labels.ts';
import { StatusWriteError, syncStatusOrRetry, WriteFailures, writeRetryRateLimiter } from '../write-failures.ts';
import {
  conditionTime,
  FABRIC_HEALTHY,
  falseHealthConditions,
  HEALTH_CONDITION_TYPES,
  LINKS_DOWN,
  LINKS_UP,
  MESSAGE_NAMES,
  mergeConditions,
  NODES_READY,
  type DesiredCondition,
} from './conditions.ts';
import { firstFew } from '../../../util/first-few.ts';
import { describeProblem, FabricHealthBoard } from './fabric-health.ts';
import { DEFAULT_HEALTH, type HealthSettings } from '../../config/health-config.ts';
import type { HealthJudgement } from './health-metrics.ts';
import { healthChanged, type NodeHealth } from './node-health.ts';
import { judgeNodesReady } from './nodes-ready.ts';
import { TopologyIndex } from './topology-index.ts';

export const HEALTH_QUEUE_NAME = 'hypernode-conditions';
/**
 * A burst of Node and fabric changes is judged once it has been quiet this
 * long: a rack losing power, its events arriving over a second, is one write
 * per HyperNode above it.
 */
export const HEALTH_COALESCE_MS = 100;
/**
 * Status writes in flight at once: a write waits a round trip, so one worker
 * would bound a rack-wide failure by latency, not by the client's token
 * bucket (which still bounds the rate). The queue never hands one HyperNode
 * to two workers.
 */
export const HEALTH_WORKERS = 4;
/** A burst that never goes quiet is judged this long after it began, so a steady stream of changes still shows. */
export const HEALTH_BURST_MAX_MS = 1_000;

export interface ConditionWriterDeps {
  hyperNodes: Lister<HyperNode>;
  client: HyperNodeClient;
  events: EventRecorder;
  /** What the Events are filed on (the discovery ConfigMap). */
  regarding(): KubeObject;
  metrics: HyperNodeMetrics;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
}

export class ConditionWriter {
  readonly queue: RateLimitingQueue;
  /** Where the fabric sources report; the writer judges FabricHealthy from it. */
  readonly fabric: FabricHealthBoard;
  /** The last judgement of each HyperNode, for the health gauges. */
  readonly judgements = new Map<string, HealthJudgement>();
  private settings: HealthSettings = DEFAULT_HEALTH;
  private nodes: Lister<NodeHealth> | undefined;
  private index: TopologyIndex | undefined;
  /**
   * HyperNodes were added, deleted or had their members changed since the
   * index was built: it is rebuilt at the next flush (at most once per
   * coalescing window, however many HyperNodes a reconcile writes), and
   * judgements wait for it, so a half-built tree is never written.
   */
  private dirty = true;
  private readonly pendingNodes = new Set<string>();
  private rescanPending = false;
  private flushScheduled = false;
  private burstStart = 0;
  private lastChange = 0;
  private readonly stop = new AbortController();
  private readonly failures: WriteFailures;

  constructor(private readonly deps: ConditionWriterDeps) {
    this.queue = new RateLimitingQueue({ name: HEALTH_QUEUE_NAME, clock: deps.clock, rateLimiter: writeRetryRateLimiter(deps.clock), metrics: deps.queueMetrics });
    this.failures = new WriteFailures(deps);
    this.fabric = new FabricHealthBoard((source, names) => (names.length === 0 ? this.rescan() : this.enqueueOwned(source, names)));
  }

  /** The `health` settings of the configuration in force (hot-reloaded). */
  setSettings(settings: HealthSettings): void {
    this.fabric.setLinkGraceMs(settings.linkGracePeriodMs);
    if (isDeepStrictEqual(settings, this.settings)) return;
    this.settings = settings;
    this.rescan();
  }

  /** The synced Node health cache while health.nodes is on, undefined otherwise. */
  setNodeHealth(nodes: Lister<NodeHealth> | undefined): void {
    this.nodes = nodes;
    this.rescan();
  }

  /** HyperNode events: a membership change re-judges everything above; any other update re-checks that object. */
  hyperNodeHandler(): EventHandler<HyperNode> {
    return {
      onAdd: () => this.membershipChanged(),
      onUpdate: (old, hn) => {
        if (!isDeepStrictEqual(old.spec, hn.spec)) this.membershipChanged();
        else this.queue.add(hn.metadata.name);
      },
      onDelete: (hn: HyperNode | Tombstone<HyperNode>) => {
        this.judgements.delete(isTombstone(hn) ? hn.obj.metadata.name : hn.metadata.name);
        this.membershipChanged();
      },
    };
  }

  /** Node health events: only a change of Ready or cordon marks the HyperNodes above the Node. */
  nodeHealthHandler(): EventHandler<NodeHealth> {
    return {
      onAdd: (n) => this.nodeChanged(n.metadata.name),
      onUpdate: (old, n) => {
        if (healthChanged(old, n)) this.nodeChanged(n.metadata.name);
      },
      onDelete: (n) => this.nodeChanged(isTombstone(n) ? n.obj.metadata.name : n.metadata.name),
    };
  }

  run(): Promise<void> {
    return Promise.all(Array.from({ length: HEALTH_WORKERS }, () => runWorker(this.queue, (name) => this.syncOrRetry(name)))).then(() => {});
  }

  shutDown(): void {
    this.stop.abort();
    this.queue.shutDown();
  }

  private membershipChanged(): void {
    this.dirty = true;
    this.rescan();
  }

  private nodeChanged(name: string): void {
    if (!this.settings.nodes) return;
    this.pendingNodes.add(name);
    this.scheduleFlush();
  }

  /** Every owned HyperNode is judged again at the next flush (settings, membership, a source's first report). */
  private rescan(): void {
    this.rescanPending = true;
    this.scheduleFlush();
  }

  private enqueueOwned(source: string, names: readonly string[]): void {
    for (const name of names) if (isOwnedBy(this.deps.hyperNodes.get(name), source)) this.queue.add(name);
  }

  private scheduleFlush(): void {
    const now = this.deps.clock.now();
    this.lastChange = now;
    if (this.flushScheduled || this.queue.isShuttingDown()) return;
    this.flushScheduled = true;
    this.burstStart = now;
    this.flushWhenQuiet(HEALTH_COALESCE_MS);
  }

  /** Flushes once no change came for HEALTH_COALESCE_MS, or HEALTH_BURST_MAX_MS into the burst. */
  private flushWhenQuiet(delayMs: number): void {
    this.deps.clock.sleep(delayMs, this.stop.signal).then(
      () => {
        const now = this.deps.clock.now();
        const quietMs = now - this.lastChange;
        if (quietMs < HEALTH_COALESCE_MS && now - this.burstStart < HEALTH_BURST_MAX_MS) {
          this.flushWhenQuiet(HEALTH_COALESCE_MS - quietMs);
          return;
        }
        this.flushScheduled = false;
        try {
          this.flush();
        } catch (err) {
          this.deps.logger.error('Failed to queue HyperNodes for their conditions', { err });
        }
      },
      () => {},
    );
  }

  private flush(): void {
    if (this.dirty) {
      this.index = new TopologyIndex(this.deps.hyperNodes.list());
      this.dirty = false;
    }
    if (this.rescanPending) {
      this.rescanPending = false;
      this.pendingNodes.clear();
      for (const hn of this.deps.hyperNodes.list()) if (sourceOf(hn) !== undefined) this.queue.add(hn.metadata.name);
      return;
    }
    const index = this.topology();
    for (const node of this.pendingNodes) for (const name of index.ancestorsOfNode(node)) this.queue.add(name);
    this.pendingNodes.clear();
  }

  private topology(): TopologyIndex {
    this.index ??= new TopologyIndex(this.deps.hyperNodes.list());
    return this.index;
  }

  private syncOrRetry(name: string): Promise<SyncResult> {
    return syncStatusOrRetry(name, (n) => this.sync(n), this.failures, this.deps, {
      failed: 'Error judging HyperNode health, will retry',
      writeFailed: 'Error writing HyperNode conditions, will retry',
      // Our cache was behind (another status write came first).
      conflicted: 'Error writing HyperNode conditions',
    });
  }

  /** Judges one HyperNode and writes its conditions if (and only if) they changed. */
  async sync(name: string): Promise<void> {
    const hn = this.deps.hyperNodes.get(name);
    // Hand-made objects have no source label and get no condition.
    const source = sourceOf(hn);
    // While the tree is changing the flush to come judges every HyperNode again.
    if (!hn || source === undefined || this.dirty) return;
    const desired = new Map<string, DesiredCondition | null>();
    let unhealthyNodes = 0;
    if (!this.settings.nodes) desired.set(NODES_READY, null);
    else if (this.nodes) {
      const judged = judgeNodesReady(this.topology().nodesBelow(name), this.nodes);
      desired.set(NODES_READY, judged.condition);
      unhealthyNodes = judged.unhealthy.length;
    }
    if (!this.settings.fabric) desired.set(FABRIC_HEALTHY, null);
    else if (this.fabric.covers(source)) desired.set(FABRIC_HEALTHY, this.fabricCondition(source, name));
    const current = hn.status?.conditions;
    const next = mergeConditions(current, desired, conditionTime(this.deps.clock.now()), hn.metadata.generation);
    const falseConditions = falseHealthConditions(next ?? current).map((c) => c.type);
    this.judgements.set(name, { source, tier: hn.spec?.tier ?? 0, unhealthyNodes, falseConditions });
    if (!next) return;
    const body = structuredClone(hn);
    body.status = { ...body.status, conditions: next };
    if (next.length === 0) delete body.status.conditions;
    try {
      await this.deps.client.updateStatus(body);
    } catch (err) {
      throw new StatusWriteError('conditions', err);
    }
    this.deps.metrics.apiWrite('', 'update_status');
    this.deps.logger.v(3).info('Updated HyperNode conditions', { name, conditions: next.map((c) => `${c.type}=${c.status}`).join(',') });
    this.reportTransitions(hn, current ?? [], next);
  }

  private fabricCondition(source: string, name: string): DesiredCondition {
    const problems = this.fabric.problemsOf(source, name);
    if (problems.length === 0) return { ...LINKS_UP, message: 'Every link of the last good poll is present.' };
    const count = problems.length === 1 ? '1 fabric problem' : `${problems.length} fabric problems`;
    return { ...LINKS_DOWN, message: `${count}: ${firstFew(problems.map(describeProblem), MESSAGE_NAMES)}.` };
  }

  /** One Event per condition that turned False (Warning) or back to True (Normal). */
  private reportTransitions(hn: HyperNode, before: readonly HyperNodeCondition[], after: readonly HyperNodeCondition[]): void {
    for (const c of after) {
      if (!HEALTH_CONDITION_TYPES.includes(c.type)) continue;
      const was = before.find((b) => b.type === c.type)?.status;
      if (was === c.status || (was === undefined && c.status === 'True')) continue;
      const reason = c.status === 'False' ? HYPERNODE_UNHEALTHY : HYPERNODE_HEALTHY;
      const message = `HyperNode ${hn.metadata.name}: ${c.type}=${c.status} (${c.reason}): ${c.message}`;
      this.deps.logger.info('HyperNode condition changed', { name: hn.metadata.name, type: c.type, status: c.status, reason: c.reason });
      this.deps.events.event(this.deps.regarding(), reason.type, reason.reason, message);
    }
  }
}
