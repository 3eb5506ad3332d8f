// Keeps the opt-in Node labels (`exports.nodeLabels`) equal to the sources'
// accepted snapshots: the worker that writes what node-label-changes.ts
// decides, level-based, one pass over the Node cache per burst of triggers.
// Its patches go through the HyperNode writes' client set, so they share its
// rate limit and the leader's write fence. Ours, no Go counterpart; how it
// behaves is in docs/configuration.md, "Node labels".

import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../../kube/clock.ts';
import { isNotFound } from '../../../kube/errors.ts';
import type { EventHandler, Lister } from '../../../kube/types.ts';
import { PassWorker } from '../../../kube/pass-worker.ts';
import type { SyncResult } from '../../../kube/queue-workers.ts';
import type { QueueMetrics, WorkerErrorHandler } from '../../../kube/rate-limiting-queue.ts';
import type { Logger } from '../../../log.ts';
import { mapBounded } from '../../../util/slots.ts';
import { errorMessage } from '../../../util/error-message.ts';
import type { NodeLabelClient } from '../../model/contracts.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import type { Follower } from '../../reconcile/follower.ts';
import type { KeptTopology } from '../../reconcile/kept-topology.ts';
import { writeRetryRateLimiter } from '../../reconcile/write-failures.ts';
import { firstTimeSeen } from '../../../util/reported-once.ts';
import {
  nodeLabelChanges,
  type NodeLabelChanges,
  type NodeLabelPatch,
  type RetainedLabels,
} from './node-label-changes.ts';
import { sourceLabelStates } from './node-label-states.ts';
import { heldLabelRemovalsMessage, offSourceRemovalsMessage } from './node-label-messages.ts';
import { isOwnershipAnnotation } from './node-label-values.ts';
import type { HyperNodeMetrics } from '../../hypernode-metrics.ts';

export const NODE_LABEL_QUEUE_NAME = 'hypernode-node-labels';
/** Triggers within this window cause one pass: a snapshot and the Node events it caused are decided together. */
export const NODE_LABEL_COALESCE_MS = 100;

export interface NodeLabelSyncDeps {
  nodes: Lister<NodeMeta>;
  client: NodeLabelClient;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
  /** Told of each throw of the worker before its key is retried (the process logs and counts it). */
  onWorkerError: WorkerErrorHandler;
  /** Patches in flight at once (the client set's write pace); one at a time without it. */
  writeConcurrency?: () => number;
  /** Counts the patches in hypernode_api_writes_total. */
  metrics?: Pick<HyperNodeMetrics, 'apiWrite'>;
  /**
   * The label keys live Topology objects of ours name, per source, which
   * are never removed (undefined while unknown: every label is kept);
   * absent when no Topology object is written.
   */
  retainedLabels?: () => RetainedLabels | undefined;
}

/** The label worker: one queue key, one pass at a time, a pass per coalesced trigger. */
export class NodeLabelSync implements Follower {
  private readonly worker: PassWorker;
  /** Per source: its tree as kept after its latest accepted snapshot. */
  private readonly snapshots = new Map<string, readonly DiscoveredHyperNode[]>();
  /** The configuration the discovery manager applied last; undefined leaves every label as it is. */
  private config: DiscoveryConfig | undefined;
  /**
   * Per Node: the patch last sent and the cached resourceVersion it was
   * decided on. Until the cache shows the Node changed, the same patch is
   * not sent again (the write's echo may still be on its way).
   */
  private readonly sent = new Map<string, { resourceVersion: string | undefined; patch: string }>();
  private readonly firstTime = firstTimeSeen();
  /** A snapshot arrived since the last pass: that pass reports even when it writes nothing. */
  private roundPending = false;

  constructor(private readonly deps: NodeLabelSyncDeps) {
    this.worker = new PassWorker(
      {
        name: NODE_LABEL_QUEUE_NAME,
        clock: deps.clock,
        quietMs: NODE_LABEL_COALESCE_MS,
        rateLimiter: writeRetryRateLimiter(deps.clock),
        metrics: deps.queueMetrics,
        onError: deps.onWorkerError,
        onScheduleError: (err) => deps.logger.error('Failed to queue a Node label pass', { err }),
      },
      () => this.pass(),
    );
  }

  /** A source's snapshot was accepted by the reconciler: its labels follow the tree as kept. */
  kept(tree: KeptTopology): void {
    this.snapshots.set(tree.source, tree.hyperNodes);
    this.roundPending = true;
    this.schedule();
  }

  /** Node adds and changes of labels or of our ownership annotations. */
  nodeHandler(): EventHandler<NodeMeta> {
    const ours = (n: NodeMeta) =>
      Object.entries(n.metadata.annotations ?? {}).filter(([k]) => isOwnershipAnnotation(k));
    return {
      onAdd: () => this.schedule(),
      onUpdate: (old, node) => {
        if (
          !isDeepStrictEqual(old.metadata.labels ?? {}, node.metadata.labels ?? {}) ||
          !isDeepStrictEqual(ours(old), ours(node))
        )
          this.schedule();
      },
      onDelete: (node) => void this.sent.delete('metadata' in node ? node.metadata.name : node.key),
    };
  }

  /**
   * What the labels depend on besides snapshots, Nodes and the configuration changed (the labels live Topology objects
   * name).
   */
  recheck(): void {
    this.schedule();
  }

  /** A new configuration may turn labels on or off for a source. */
  configuration(config: DiscoveryConfig | undefined): void {
    this.config = config;
    this.schedule();
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  shutDown(): void {
    this.worker.shutDown();
  }

  /** The changes a pass makes now, from the caches and the snapshots received. */
  private decide(): NodeLabelChanges {
    const nodes = this.deps.nodes.list();
    const states = sourceLabelStates(this.config, this.snapshots, nodes, (m) => this.reportOnce(m));
    return nodeLabelChanges(
      nodes,
      states,
      this.deps.retainedLabels ? (this.deps.retainedLabels() ?? 'all') : new Map(),
    );
  }

  private async pass(): Promise<SyncResult> {
    const { logger } = this.deps;
    const round = this.roundPending;
    this.roundPending = false;
    const changes = this.decide();
    for (const h of changes.held) this.reportOnce(heldLabelRemovalsMessage(h));
    const todo = changes.patches.filter((p) => !this.alreadySent(p));
    // Said before the patches go, so a log shows why labels vanished from many Nodes at once.
    if (todo.length > 0) for (const r of changes.off) logger.info(offSourceRemovalsMessage(r));
    if (todo.length === 0) {
      if (round) logger.v(2).info('Node labels match the topology, nothing to write');
      return 'done';
    }
    let failed = 0;
    let patched = 0;
    let firstError: unknown;
    await mapBounded(todo, this.deps.writeConcurrency ?? 1, async (patch) => {
      if (this.worker.queue.isShuttingDown()) return;
      const resourceVersion = this.deps.nodes.get(patch.node)?.metadata.resourceVersion;
      try {
        await this.deps.client.patchMetadata(patch.node, { labels: patch.labels, annotations: patch.annotations });
        this.sent.set(patch.node, { resourceVersion, patch: patchKey(patch) });
        patched++;
        // One patch may carry several sources' labels: counted once, with no source.
        this.deps.metrics?.apiWrite('', 'patch', 'Node');
      } catch (err) {
        if (isNotFound(err)) return; // deleted meanwhile: nothing left to label
        failed++;
        firstError ??= err;
      }
    });
    const bySource = Object.fromEntries(
      [...changes.counts].map(([s, c]) => [s, `set=${c.set} removed=${c.removed}${c.held ? ` held=${c.held}` : ''}`]),
    );
    // Counts of the whole decision; `nodes` is what was written (a shutdown stops a pass part-way).
    logger.info('Updated Node labels', { nodes: patched, failed, ...bySource });
    if (failed === 0) return 'done';
    this.reportOnce(`Failed to patch the labels of ${failed} Node(s), will retry: ${errorMessage(firstError)}`);
    return 'retry';
  }

  private alreadySent(p: NodeLabelPatch): boolean {
    const last = this.sent.get(p.node);
    if (!last) return false;
    const rv = this.deps.nodes.get(p.node)?.metadata.resourceVersion;
    if (last.resourceVersion !== rv) {
      this.sent.delete(p.node);
      return false;
    }
    return last.patch === patchKey(p);
  }

  /** Logged once while it repeats. */
  private reportOnce(message: string): void {
    if (this.firstTime(message)) this.deps.logger.warn(message);
  }

  private schedule(): void {
    this.worker.schedule();
  }
}

const patchKey = (p: NodeLabelPatch) => JSON.stringify([p.labels, p.annotations]);
