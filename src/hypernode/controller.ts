// The HyperNode controller: wires the discovery manager, the topology
// reconciler, the status writer (nodeCount and conditions) and the followers
// (the opt-in exports and health, reconcile/follower.ts) to the informers,
// runs them until the stop signal, and stops them in order. Mirrors
// pkg/controllers/hypernode/hypernode_controller.go (Run, the result watcher,
// the handler registration of hypernode_handler.go and configmap_handler.go;
// docs/design.md §3.1 step 10) and the shutdown order of docs/design.md §3.2. The caller has
// started the informers and waited for their sync before calling run().

import type { Registry } from 'prom-client';
import type { Clock } from '../kube/clock.ts';
import type { HandlerRegistration, Informer, KubeObject } from '../kube/types.ts';
import type { QueueMetrics } from '../kube/workqueue.ts';
import type { Logger } from '../log.ts';
import type { EventRecorder, HyperNodeClient, NodeLabelClient, SecretClient, ConfigMapReader, TopologyObjectClient } from './model/contracts.ts';
import type { ConfigMap, HyperNode, NodeMeta } from './model/hypernode-types.ts';
import type { ConfigMapLocation } from './config/location.ts';
import { CONFIG_QUEUE_NAME, DiscoveryManager } from './discovery/manager.ts';
import { builtinDiscoverers, type DiscovererRegistry } from './discovery/registry.ts';
import { exportTopologyCounts, newHyperNodeMetrics, type HyperNodeMetrics } from './hypernode-metrics.ts';
import { TopologyReconciler, WRITE_RETRY_QUEUE_NAME, type ReconcileSummary } from './reconcile/reconciler.ts';
import { STATUS_QUEUE_NAME, StatusWriter } from './reconcile/status-writer.ts';
import { NODE_LABEL_QUEUE_NAME, NodeLabelSync } from './reconcile/node-labels/node-label-sync.ts';
import { TOPOLOGY_OBJECT_QUEUE_NAME, TopologyObjectSync } from './reconcile/topology-objects/topology-object-sync.ts';
import type { TopologyStateRecorder } from './reconcile/topology-state.ts';
import type { Follower } from './reconcile/follower.ts';
import { HealthRunner, type NodeHealthInformerFactory } from './reconcile/health/health-runner.ts';

export interface HyperNodeControllerDeps {
  nodes: Informer<NodeMeta>;
  hyperNodes: Informer<HyperNode>;
  /** Filtered to the discovery ConfigMap by a metadata.name field selector (docs/design.md §2). */
  configMaps: Informer<ConfigMap>;
  hyperNodeClient: HyperNodeClient;
  /** Writes the opt-in Node labels (exports.nodeLabels); without it no Node is labelled (tests of other parts). */
  nodeLabelClient?: NodeLabelClient;
  /** Writes the opt-in Kueue and KAI Topology objects (exports.kueueTopology / kaiTopology); without it none is. */
  topologyObjectClient?: TopologyObjectClient;
  secrets: SecretClient;
  /** ConfigMaps sources read input from (the graph source's document). */
  configMapReader?: ConfigMapReader;
  events: EventRecorder;
  /** Where the discovery configuration lives, data key included. */
  configMap: ConfigMapLocation;
  clock: Clock;
  logger: Logger;
  /** prom-client registry for the hypernode_* families. */
  registry: Registry;
  /** Replaces the built-in `label` / `ufm` registry (tests). */
  discoverers?: DiscovererRegistry;
  /** workqueue_* metrics per queue name, when the caller exports them. */
  queueMetrics?: (queueName: string) => QueueMetrics;
  /** `hyperNodeClient` records writes instead of sending them (--dry-run; see dry-run.ts, which also counts them). */
  dryRun?: boolean;
  /** Where the topology page's state is recorded (--enable-topology-page). */
  topologyState?: TopologyStateRecorder;
  /** Starts a full Node watch for NodesReady (health.nodes); without it health.nodes has no effect. */
  nodeHealthInformer?: NodeHealthInformerFactory;
  /**
   * Writes of one kind in flight at once: the write pace of the client set
   * the writes go through (kube/write-pace.ts), read before each write.
   * Without it every writer writes one object at a time.
   */
  writeConcurrency?: () => number;
}

export interface HyperNodeController {
  /**
   * Runs until `signal` aborts; calls `onStarted` once the discovery manager
   * runs (the readiness signal, docs/design.md §3.3). Resolves when everything
   * has stopped and every informer handler is removed.
   */
  run(signal: AbortSignal, onStarted: () => void): Promise<void>;
}

export function newHyperNodeController(deps: HyperNodeControllerDeps): HyperNodeController {
  return { run: (signal, onStarted) => run(deps, signal, onStarted) };
}

async function run(deps: HyperNodeControllerDeps, signal: AbortSignal, onStarted: () => void): Promise<void> {
  const { logger, clock } = deps;
  const metrics = newHyperNodeMetrics(deps.registry);
  // In a dry run the recording client answers like the server, so the write
  // paths would count writes that were never sent and log created=N as if done:
  // hypernode_api_writes_total is kept for real writes (the dry-run client
  // counts its own), and the write paths' lines carry dryRun=true.
  const writeMetrics: HyperNodeMetrics = deps.dryRun ? { ...metrics, apiWrite() {} } : metrics;
  const writeLogger = deps.dryRun ? logger.with({ dryRun: true }) : logger;
  const state = deps.topologyState;
  // The page lists the uncovered Nodes the metric only counts.
  const discovererMetrics: HyperNodeMetrics = state
    ? {
        ...metrics,
        uncoveredNodes(source, count, detail) {
          metrics.uncoveredNodes(source, count, detail);
          if (detail?.reason === undefined) state.uncovered(source, count, detail?.nodes);
        },
      }
    : metrics;
  // The one writer of status (nodeCount and conditions); fabric sources report to it, so it exists before they start.
  const status = new StatusWriter({
    hyperNodes: deps.hyperNodes,
    nodes: deps.nodes,
    client: deps.hyperNodeClient,
    events: deps.events,
    regarding: () => manager.configMapRef(),
    metrics: writeMetrics,
    clock,
    logger: writeLogger,
    queueMetrics: deps.queueMetrics?.(STATUS_QUEUE_NAME),
    ...(deps.writeConcurrency ? { writeConcurrency: deps.writeConcurrency } : {}),
  });
  const health = new HealthRunner({
    writer: status,
    registry: deps.registry,
    logger,
    ...(deps.nodeHealthInformer ? { nodeHealthInformer: deps.nodeHealthInformer } : {}),
  });
  const followers = newFollowers(deps, writeLogger, writeMetrics, () => manager.configMapRef(), health);
  const manager = new DiscoveryManager({
    configMaps: deps.configMaps,
    configMap: deps.configMap,
    registry: deps.discoverers ?? builtinDiscoverers,
    discovererOptions: {
      nodes: deps.nodes,
      hyperNodes: deps.hyperNodes,
      secrets: deps.secrets,
      configMaps: deps.configMapReader,
      metrics: discovererMetrics,
      fabricHealth: status.fabric,
      clock,
      logger,
      queueMetrics: deps.queueMetrics,
    },
    events: deps.events,
    metrics,
    clock,
    logger,
    queueMetrics: deps.queueMetrics?.(CONFIG_QUEUE_NAME),
    onConfiguration: (config) => {
      for (const f of followers) f.configuration(config);
    },
  });
  const reconciler = new TopologyReconciler({
    hyperNodes: deps.hyperNodes,
    client: deps.hyperNodeClient,
    events: deps.events,
    metrics: writeMetrics,
    clock,
    logger: writeLogger,
    queueMetrics: deps.queueMetrics?.(WRITE_RETRY_QUEUE_NAME),
    regarding: () => manager.configMapRef(),
    ...(deps.writeConcurrency ? { writeConcurrency: deps.writeConcurrency } : {}),
  });

  // The informers have synced, so each registration first replays every cached
  // object as an add: every HyperNode's status is checked once, and the
  // ConfigMap's add is what starts the discoverers.
  const registrations: HandlerRegistration[] = [
    deps.hyperNodes.addEventHandler(status.hyperNodeHandler()),
    deps.nodes.addEventHandler(status.nodeHandler()),
    deps.configMaps.addEventHandler(manager.configMapHandler()),
    ...followers.flatMap((f) => (f.nodeHandler ? [deps.nodes.addEventHandler(f.nodeHandler())] : [])),
    ...followers.flatMap((f) => (f.hyperNodeHandler ? [deps.hyperNodes.addEventHandler(f.hyperNodeHandler())] : [])),
  ];
  const stopTopologyCounts = exportTopologyCounts(deps.registry, deps.hyperNodes);
  state?.started();
  manager.start();
  onStarted();

  const watcher = watchResults(manager, reconciler, followers, metrics, logger, (source, summary) =>
    state?.reconciled(source, {
      at: clock.now(),
      summary,
      desired: reconciler.desiredOf(source),
      heldDeletes: reconciler.heldDeletesOf(source),
      rejection: reconciler.rejectionOf(source),
    }),
  );
  const retryWorker = reconciler.run();
  const followerWorkers = followers.map((f) => f.run());
  const statusWorker = status.run();
  logger.info('HyperNode controller started');

  await new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

  // Pending write retries are dropped at once (waiting out a backoff would
  // delay shutdown by minutes); the worker ends after the write in flight.
  // The manager then closes the result stream, which ends the watcher after
  // its current reconcile; then the status queue drains.
  reconciler.shutDown();
  await manager.stop();
  await watcher;
  await retryWorker;
  // Followers follow snapshots; with the watcher gone no new one comes. In list order.
  for (const [i, f] of followers.entries()) {
    f.shutDown();
    await followerWorkers[i];
  }
  status.shutDown();
  await statusWorker;
  for (const r of registrations) r.remove();
  stopTopologyCounts();
  state?.stopped();
  logger.info('HyperNode controller stopped');
}

/**
 * The followers the clients allow, in start (and stop) order: Node labels,
 * then Topology objects, then health (always there: it hands the `health`
 * settings to the status writer and runs the full Node watch). The first two
 * are tied: the label worker keeps the labels a live Topology object of ours
 * names, which only the Topology worker knows.
 */
function newFollowers(deps: HyperNodeControllerDeps, logger: Logger, metrics: HyperNodeMetrics, regarding: () => KubeObject, health: HealthRunner): Follower[] {
  const { clock } = deps;
  const labels = deps.nodeLabelClient
    ? new NodeLabelSync({
        nodes: deps.nodes,
        client: deps.nodeLabelClient,
        clock,
        logger,
        queueMetrics: deps.queueMetrics?.(NODE_LABEL_QUEUE_NAME),
        ...(deps.writeConcurrency ? { writeConcurrency: deps.writeConcurrency } : {}),
        metrics,
        // Labels a live Topology object of ours names stay; the Topology worker knows them.
        ...(deps.topologyObjectClient ? { retainedLabels: () => topologies?.retainedLabelKeys() } : {}),
      })
    : undefined;
  const topologies = deps.topologyObjectClient
    ? new TopologyObjectSync({
        nodes: deps.nodes,
        client: deps.topologyObjectClient,
        clock,
        logger,
        queueMetrics: deps.queueMetrics?.(TOPOLOGY_OBJECT_QUEUE_NAME),
        ...(deps.writeConcurrency ? { writeConcurrency: deps.writeConcurrency } : {}),
        events: deps.events,
        regarding,
        metrics,
        onRetainedLabelsChanged: () => labels?.recheck(),
        dryRun: deps.dryRun ?? false,
      })
    : undefined;
  return [labels, topologies, health].filter((f) => f !== undefined);
}

/** The result watcher (docs/design.md §2.1 step 6): one result at a time across all sources; always acknowledged. */
async function watchResults(
  manager: DiscoveryManager,
  reconciler: TopologyReconciler,
  /** What follows accepted snapshots: the Node labels, the Topology objects, the conditions. */
  followers: readonly Follower[],
  metrics: HyperNodeMetrics,
  logger: Logger,
  onReconciled: (source: string, summary: ReconcileSummary) => void,
): Promise<void> {
  for await (const { source, hyperNodes, entry } of manager.results) {
    metrics.resultReceived(source);
    try {
      const summary = await reconciler.reconcile(source, hyperNodes, entry.maxDeletePercent);
      // A rejected snapshot changes no label or Topology either: the last accepted one stays in force.
      if (!summary.rejected) for (const f of followers) f.snapshot(source, hyperNodes);
      else for (const f of followers) f.rejected?.(source, reconciler.rejectionOf(source) ?? '');
      onReconciled(source, summary);
    } catch (err) {
      logger.error('Failed to reconcile topology', { source, err });
    } finally {
      manager.resultSynced(source);
    }
  }
}
