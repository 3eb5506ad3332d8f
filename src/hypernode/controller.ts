// The HyperNode controller: the discovery manager, the topology reconciler,
// the status writer and the followers, run as one group over informers the
// caller has synced, so their start and stop orders are two lists. Mirrors
// pkg/controllers/hypernode/hypernode_controller.go (Run, the result watcher)
// and the handler registration of hypernode_handler.go and configmap_handler.go.

import type { Registry } from 'prom-client';
import type { Clock } from '../kube/clock.ts';
import type { HandlerRegistration, Informer, KubeObject } from '../kube/types.ts';
import type { QueueMetrics, WorkerErrorHandler } from '../kube/rate-limiting-queue.ts';
import { runGroup, workerRunnable, type Runnable, type RunnableOrder } from '../kube/runnable-group.ts';
import type { Logger } from '../log.ts';
import type {
  EventRecorder,
  HyperNodeClient,
  NodeLabelClient,
  NodeTaintClient,
  SecretClient,
  ConfigMapReader,
  TopologyObjectClient,
} from './model/contracts.ts';
import type { ConfigMap, HyperNode, NodeMeta } from './model/hypernode-types.ts';
import { configMapRef, type ConfigMapLocation } from './config/location.ts';
import { CONFIG_QUEUE_NAME, DiscoveryManager } from './discovery/manager.ts';
import { builtinDiscoverers, type DiscovererRegistry } from './discovery/registry.ts';
import { exportTopologyCounts, newHyperNodeMetrics, type HyperNodeMetrics } from './hypernode-metrics.ts';
import { TopologyReconciler, WRITE_RETRY_QUEUE_NAME } from './reconcile/reconciler.ts';
import { STATUS_QUEUE_NAME, StatusWriter } from './reconcile/status-writer.ts';
import { NODE_LABEL_QUEUE_NAME, NodeLabelSync } from './exports/node-labels/node-label-sync.ts';
import { TOPOLOGY_OBJECT_QUEUE_NAME, TopologyObjectSync } from './exports/topology-objects/topology-object-sync.ts';
import type { TopologyStateRecorder } from './reconcile/topology-state.ts';
import type { Follower } from './reconcile/follower.ts';
import { HealthRunner, type NodeHealthInformerFactory } from './reconcile/health/health-runner.ts';
import { TAINT_QUEUE_NAME, TaintWriter } from './reconcile/health/taint-writer.ts';
import type { InputPolicy } from './model/input-policy.ts';

export interface HyperNodeControllerDeps {
  nodes: Informer<NodeMeta>;
  hyperNodes: Informer<HyperNode>;
  /** Filtered to the discovery ConfigMap by a metadata.name field selector (docs/design.md §2). */
  configMaps: Informer<ConfigMap>;
  hyperNodeClient: HyperNodeClient;
  /** Writes the opt-in Node labels (exports.nodeLabels); without it no Node is labelled (tests of other parts). */
  nodeLabelClient?: NodeLabelClient;
  /** Reads and writes the fabric taint of Nodes (health.taint); without it no Node is tainted. */
  nodeTaintClient?: NodeTaintClient;
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
  /** Replaces the built-in registry of sources (tests). */
  discoverers?: DiscovererRegistry;
  /** workqueue_* metrics per queue name, when the caller exports them. */
  queueMetrics?: (queueName: string) => QueueMetrics;
  /** Where a throw of each queue's worker goes, by queue name (the process logs and counts it). */
  workerErrors: (queueName: string) => WorkerErrorHandler;
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
  /** What the operator lets the discovery configuration reach (the executable's flags); absent: the defaults. */
  inputPolicy?: InputPolicy;
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
  return {
    async run(signal, onStarted) {
      const parts = newParts(deps);
      const started = () => deps.logger.info('HyperNode controller started');
      await runGroup(signal, runnables(deps, parts, onStarted), { onStarted: started });
      deps.logger.info('HyperNode controller stopped');
    },
  };
}

/** What the controller runs, built from the dependencies; nothing runs yet. */
interface Parts {
  readonly metrics: HyperNodeMetrics;
  readonly status: StatusWriter;
  readonly followers: readonly NamedFollower[];
  readonly manager: DiscoveryManager;
  readonly reconciler: TopologyReconciler;
}

function newParts(deps: HyperNodeControllerDeps): Parts {
  const { logger, clock } = deps;
  const metrics = newHyperNodeMetrics(deps.registry);
  // In a dry run the recording client answers like the server, so the write
  // paths would count writes that were never sent and log created=N as if done:
  // hypernode_api_writes_total is kept for real writes (the dry-run client
  // counts its own), and the write paths' lines carry dryRun=true.
  const writeMetrics: HyperNodeMetrics = deps.dryRun ? { ...metrics, apiWrite() {} } : metrics;
  const writeLogger = deps.dryRun ? logger.with({ dryRun: true }) : logger;
  const writeConcurrency = deps.writeConcurrency ? { writeConcurrency: deps.writeConcurrency } : {};
  const regarding = () => configMapRef(deps.configMap);
  // The one writer of status (nodeCount and conditions); fabric sources report to it, so it exists before they start.
  const status = new StatusWriter({
    hyperNodes: deps.hyperNodes,
    nodes: deps.nodes,
    client: deps.hyperNodeClient,
    events: deps.events,
    regarding,
    metrics: writeMetrics,
    clock,
    logger: writeLogger,
    queueMetrics: deps.queueMetrics?.(STATUS_QUEUE_NAME),
    onWorkerError: deps.workerErrors(STATUS_QUEUE_NAME),
    ...writeConcurrency,
  });
  // The fabric taint follows what the fabric sources report to the status writer's board.
  const taints = deps.nodeTaintClient
    ? new TaintWriter({
        nodes: deps.nodes,
        hostLinks: status.fabric,
        client: deps.nodeTaintClient,
        events: deps.events,
        regarding,
        clock,
        logger: writeLogger,
        queueMetrics: deps.queueMetrics?.(TAINT_QUEUE_NAME),
        onWorkerError: deps.workerErrors(TAINT_QUEUE_NAME),
        ...writeConcurrency,
        metrics: writeMetrics,
        ...(deps.topologyState ? { state: deps.topologyState } : {}),
      })
    : undefined;
  const health = new HealthRunner({
    writer: status,
    ...(taints ? { taints } : {}),
    registry: deps.registry,
    logger,
    ...(deps.nodeHealthInformer ? { nodeHealthInformer: deps.nodeHealthInformer } : {}),
  });
  const followers = newFollowers(deps, writeLogger, writeMetrics, regarding, health, taints);
  const manager = new DiscoveryManager({
    configMaps: deps.configMaps,
    configMap: deps.configMap,
    registry: deps.discoverers ?? builtinDiscoverers,
    discovererOptions: {
      nodes: deps.nodes,
      hyperNodes: deps.hyperNodes,
      secrets: deps.secrets,
      configMaps: deps.configMapReader,
      metrics: discovererMetrics(metrics, deps.topologyState),
      fabricHealth: status.fabric,
      labelHolds: status.labelHolds,
      clock,
      logger,
      queueMetrics: deps.queueMetrics,
      workerErrors: deps.workerErrors,
      ...(deps.inputPolicy ? { inputPolicy: deps.inputPolicy } : {}),
    },
    events: deps.events,
    metrics,
    clock,
    logger,
    queueMetrics: deps.queueMetrics?.(CONFIG_QUEUE_NAME),
    onWorkerError: deps.workerErrors(CONFIG_QUEUE_NAME),
    onConfiguration: (config) => {
      for (const { follower } of followers) follower.configuration(config);
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
    onWorkerError: deps.workerErrors(WRITE_RETRY_QUEUE_NAME),
    regarding,
    ...writeConcurrency,
  });
  return { metrics, status, followers, manager, reconciler };
}

/** The page lists the uncovered Nodes the metric only counts. */
function discovererMetrics(metrics: HyperNodeMetrics, state: TopologyStateRecorder | undefined): HyperNodeMetrics {
  if (!state) return metrics;
  return {
    ...metrics,
    uncoveredNodes(source, count, detail) {
      metrics.uncoveredNodes(source, count, detail);
      if (detail?.reason === undefined) state.uncovered(source, count, detail?.nodes);
    },
  };
}

/**
 * The start order (docs/design.md §3.1 step 10) and the stop order (§3.2).
 * The informers have synced, so each handler registration first replays every
 * cached object as an add: every HyperNode's status is checked once, and the
 * ConfigMap's add is what starts the discoverers. Workers stop downstream of
 * each other: the manager closes the result stream, which ends the watcher
 * after its current reconcile; with no new snapshot the followers drain, in
 * list order, then the status queue.
 */
function runnables(deps: HyperNodeControllerDeps, parts: Parts, onStarted: () => void): RunnableOrder {
  const { manager, reconciler, followers, status } = parts;
  const state = deps.topologyState;
  const handlers = handlerRunnable(deps, parts);
  let stopGauges = () => {};
  const gauges: Runnable = {
    name: 'topology gauges',
    start: () => void (stopGauges = exportTopologyCounts(deps.registry, deps.hyperNodes)),
    stop: () => stopGauges(),
  };
  const topologyState: Runnable = {
    name: 'topology state',
    start: () => state?.started(),
    stop: () => state?.stopped(),
  };
  const discovery: Runnable = { name: 'discovery manager', start: () => manager.start(), stop: () => manager.stop() };
  const readiness: Runnable = { name: 'readiness', start: onStarted };
  const watcher = workerRunnable('result watcher', { run: () => watchResults(deps, parts) });
  // Pending write retries are dropped at once (waiting out a backoff would
  // delay shutdown by minutes); the worker ends after the write in flight.
  const retries = workerRunnable('write retries', reconciler, { shutDownAtOnce: true });
  const followerWorkers = followers.map(({ name, follower }) => workerRunnable(name, follower));
  const statusWorker = workerRunnable('status writer', status);
  return {
    start: [handlers, gauges, topologyState, discovery, readiness, watcher, retries, ...followerWorkers, statusWorker],
    stop: [discovery, watcher, retries, ...followerWorkers, statusWorker, handlers, gauges, topologyState],
  };
}

/** The status writer's, the manager's and the followers' informer handlers, removed at stop. */
function handlerRunnable(deps: HyperNodeControllerDeps, { status, manager, followers }: Parts): Runnable {
  let registrations: HandlerRegistration[] = [];
  return {
    name: 'informer handlers',
    start() {
      registrations = [
        deps.hyperNodes.addEventHandler(status.hyperNodeHandler()),
        deps.nodes.addEventHandler(status.nodeHandler()),
        deps.configMaps.addEventHandler(manager.configMapHandler()),
      ];
      for (const { follower: f } of followers) {
        if (f.nodeHandler) registrations.push(deps.nodes.addEventHandler(f.nodeHandler()));
      }
      for (const { follower: f } of followers) {
        if (f.hyperNodeHandler) registrations.push(deps.hyperNodes.addEventHandler(f.hyperNodeHandler()));
      }
    },
    stop() {
      for (const r of registrations) r.remove();
    },
  };
}

/** A follower and what the runnable group calls it. */
interface NamedFollower {
  readonly name: string;
  readonly follower: Follower;
}

/**
 * The followers the clients allow, in start (and stop) order: Node labels,
 * then Topology objects, then the Node taint, then health (always there: it
 * hands the `health` settings to the status writer and runs the full Node
 * watch, which also feeds the taint). The first two are tied: the label
 * worker keeps the labels a live Topology object of ours names, which only
 * the Topology worker knows.
 */
function newFollowers(
  deps: HyperNodeControllerDeps,
  logger: Logger,
  metrics: HyperNodeMetrics,
  regarding: () => KubeObject,
  health: HealthRunner,
  taints: TaintWriter | undefined,
): NamedFollower[] {
  const { clock } = deps;
  const writeConcurrency = deps.writeConcurrency ? { writeConcurrency: deps.writeConcurrency } : {};
  const labels = deps.nodeLabelClient
    ? new NodeLabelSync({
        nodes: deps.nodes,
        client: deps.nodeLabelClient,
        clock,
        logger,
        queueMetrics: deps.queueMetrics?.(NODE_LABEL_QUEUE_NAME),
        onWorkerError: deps.workerErrors(NODE_LABEL_QUEUE_NAME),
        ...writeConcurrency,
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
        onWorkerError: deps.workerErrors(TOPOLOGY_OBJECT_QUEUE_NAME),
        ...writeConcurrency,
        events: deps.events,
        regarding,
        metrics,
        onRetainedLabelsChanged: () => labels?.recheck(),
        dryRun: deps.dryRun ?? false,
      })
    : undefined;
  const named = (name: string, follower: Follower | undefined) => (follower ? [{ name, follower }] : []);
  return [
    ...named('Node labels', labels),
    ...named('Topology objects', topologies),
    ...named('Node taints', taints),
    ...named('health', health),
  ];
}

/** The result watcher (docs/design.md §2.1 step 6): one result at a time across all sources; always acknowledged. */
async function watchResults(deps: HyperNodeControllerDeps, parts: Parts): Promise<void> {
  const { manager, reconciler, followers, metrics, status } = parts;
  for await (const { source, hyperNodes, entry } of manager.results) {
    metrics.resultReceived(source);
    status.beginSpecRound(source);
    try {
      const summary = await reconciler.reconcile(source, hyperNodes, entry.maxDeletePercent);
      // The exports follow the tree as kept (the guard's held deletes in it), never the raw snapshot.
      const kept = reconciler.keptOf(source, status.labelHolds.heldBy(source));
      // A rejected snapshot changes no label or Topology either: the last accepted one stays in force.
      if (summary.rejected)
        for (const { follower } of followers) follower.rejected?.(source, reconciler.rejectionOf(source) ?? '');
      else if (kept) for (const { follower } of followers) follower.kept(kept);
      deps.topologyState?.reconciled(source, {
        at: deps.clock.now(),
        summary,
        kept,
        rejection: reconciler.rejectionOf(source),
      });
    } catch (err) {
      deps.logger.error('Failed to reconcile topology', { source, err });
    } finally {
      // The held Nodes the source reported with this snapshot: judged once its spec writes are done.
      status.labelHolds.reconciled(source);
      status.endSpecRound(source);
      manager.resultSynced(source);
    }
  }
}
