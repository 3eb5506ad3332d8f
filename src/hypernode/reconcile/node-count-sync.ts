// Keeps status.nodeCount of every HyperNode equal to the number of distinct
// names its member selectors resolve to. Mirrors the status worker of
// pkg/controllers/hypernode/hypernode_controller.go and the handlers of
// hypernode_handler.go (docs/design.md §2.3), improved per docs/differences-from-go.md items
// 1 and 2: the status is written only when the count changes, and Node
// additions, deletions and relabels recompute the HyperNodes whose count can
// depend on them (Go only recomputes when the HyperNode itself changes).

import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../kube/clock.ts';
import type { EventHandler, Lister, Tombstone } from '../../kube/types.ts';
import { RateLimitingQueue, runWorker, type QueueMetrics, type SyncResult } from '../../kube/workqueue.ts';
import type { Logger } from '../../log.ts';
import type { HyperNodeClient } from '../model/contracts.ts';
import type { HyperNode, NodeMeta } from '../model/hypernode-types.ts';
import { dependsOnNodes, nodeCount } from '../model/member-selector.ts';
import type { HyperNodeMetrics } from '../hypernode-metrics.ts';
import { StatusWriteError, syncStatusOrRetry, WriteFailures, writeRetryRateLimiter } from './write-failures.ts';

export const STATUS_QUEUE_NAME = 'hypernode-status';
/**
 * Node events within this window cause one scan of the HyperNodes: a node pool
 * scaling up by hundreds of Nodes recomputes each HyperNode once, not per Node.
 */
export const NODE_EVENT_COALESCE_MS = 100;

export interface NodeCountSyncDeps {
  hyperNodes: Lister<HyperNode>;
  nodes: Lister<NodeMeta>;
  client: HyperNodeClient;
  metrics: HyperNodeMetrics;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
}

export class NodeCountSync {
  /** HyperNode names whose count must be recomputed; one worker drains it. */
  readonly queue: RateLimitingQueue;
  private readonly stopCoalescing = new AbortController();
  private nodeScanScheduled = false;
  private readonly failures: WriteFailures;

  constructor(private readonly deps: NodeCountSyncDeps) {
    this.queue = new RateLimitingQueue({ name: STATUS_QUEUE_NAME, clock: deps.clock, rateLimiter: writeRetryRateLimiter(deps.clock), metrics: deps.queueMetrics });
    this.failures = new WriteFailures(deps);
  }

  /** HyperNode add and update (every update: our own writes, relists, hand edits). No delete: nothing to count. */
  hyperNodeHandler(): EventHandler<HyperNode> {
    return {
      onAdd: (hn) => this.queue.add(hn.metadata.name),
      onUpdate: (_old, hn) => this.queue.add(hn.metadata.name),
    };
  }

  /** Node add, delete, and label changes; resyncs with unchanged labels are ignored. */
  nodeHandler(): EventHandler<NodeMeta> {
    return {
      onAdd: () => this.scheduleNodeScan(),
      onUpdate: (old, node) => {
        if (!isDeepStrictEqual(old.metadata.labels ?? {}, node.metadata.labels ?? {})) this.scheduleNodeScan();
      },
      onDelete: (_node: NodeMeta | Tombstone<NodeMeta>) => this.scheduleNodeScan(),
    };
  }

  /** The single status worker: returns once the queue is shut down and drained. */
  run(): Promise<void> {
    return runWorker(this.queue, (name) => this.syncOrRetry(name));
  }

  private syncOrRetry(name: string): Promise<SyncResult> {
    return syncStatusOrRetry(name, (n) => this.sync(n), this.failures, this.deps, {
      failed: 'Error syncing HyperNode, will retry',
      writeFailed: 'Error syncing HyperNode, will retry',
      conflicted: 'Error syncing HyperNode',
    });
  }

  /** Stops accepting work; run() finishes the current item and returns. */
  shutDown(): void {
    this.stopCoalescing.abort();
    this.queue.shutDown();
  }

  /** Recomputes one HyperNode's count and writes the status if (and only if) it changed. */
  async sync(name: string): Promise<void> {
    const { hyperNodes, nodes, client, logger, metrics } = this.deps;
    const hn = hyperNodes.get(name);
    if (!hn) {
      logger.v(4).info('HyperNode has been deleted, no status update needed', { name });
      return;
    }
    // Go counts 0 when the Node cache cannot be read; we retry instead of writing a wrong 0.
    // Exact-name HyperNodes (all discovered ones) need no copy of the Node cache.
    const count = nodeCount(hn, dependsOnNodes(hn) ? nodes.list() : [], logger);
    if ((hn.status?.nodeCount ?? 0) === count) return;
    const body = structuredClone(hn);
    body.status = { ...body.status, nodeCount: count };
    // Go serialises nodeCount with omitempty: 0 is written as an absent field.
    if (count === 0) delete body.status.nodeCount;
    try {
      await client.updateStatus(body);
    } catch (err) {
      throw new StatusWriteError('status', err);
    }
    metrics.apiWrite('', 'update_status');
    logger.v(3).info('Updated HyperNode nodeCount', { name, nodeCount: count });
  }

  private scheduleNodeScan(): void {
    if (this.nodeScanScheduled || this.queue.isShuttingDown()) return;
    this.nodeScanScheduled = true;
    this.deps.clock.sleep(NODE_EVENT_COALESCE_MS, this.stopCoalescing.signal).then(
      this.guarded('node scan', () => {
        this.nodeScanScheduled = false;
        this.enqueueNodeDependent();
      }),
      () => {},
    );
  }

  /**
   * Wraps a callback this sync schedules itself (timers, promise callbacks):
   * nobody awaits those, so a throw would be an unhandled rejection, which
   * ends the process, and again at every start while the object that causes
   * it exists. Informer handlers need no wrapper: the informer catches and
   * logs what they throw.
   */
  private guarded(what: string, fn: () => void): () => void {
    return () => {
      try {
        fn();
      } catch (err) {
        this.deps.logger.error('HyperNode status callback failed', { callback: what, err });
      }
    };
  }

  /**
   * Enqueues the HyperNodes whose count can follow Nodes: those with a regex or
   * label selector. Exact-match names count whether or not the Node exists
   * (Go semantics), so their count never changes with Nodes.
   */
  private enqueueNodeDependent(): void {
    let all: HyperNode[];
    try {
      all = this.deps.hyperNodes.list();
    } catch (err) {
      this.deps.logger.error('Failed to list HyperNodes for a Node change, retrying', { err });
      this.scheduleNodeScan();
      return;
    }
    for (const hn of all) {
      if (dependsOnNodes(hn)) this.queue.add(hn.metadata.name);
    }
  }
}
