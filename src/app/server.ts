// The process: clients, listeners, signals and the controller (under leader
// election or not), run as one group so that the first signal starts one
// ordered stop under one deadline. Mirrors Run in Volcano's
// cmd/hypernode-controller-manager/app/server.go.

import { hostname as osHostname } from 'node:os';
import type { Server } from 'node:http';
import { EXIT_FAILURE } from '../exit-codes.ts';
import { realClock, type MonotonicClock } from '../kube/clock.ts';
import { buildClientConfig, SERVICE_ACCOUNT_DIR } from '../kube/config.ts';
import { createEventSink, EVENT_RESOURCE, type CoreEvent } from '../kube/events.ts';
import { keepNameLabelsAnd, resourceInformer, type SharedInformer } from '../kube/informer.ts';
import { metadataMergePatch } from '../kube/metadata-patch.ts';
import { isRecordAnnotation } from '../hypernode/model/hypernode-labels.ts';
import { AccessReviewer } from '../kube/access-review.ts';
import { LeaderElector, newIdentity } from '../kube/leader-election.ts';
import { LEASE_RESOURCE, LeaseLock, type Lease } from '../kube/lease-lock.ts';
import { resourceClient } from '../kube/resource.ts';
import { RestClient } from '../kube/rest.ts';
import { topologyObjects } from './topology-object-client.ts';
import { Transport } from '../kube/transport.ts';
import { LeadershipFence } from '../kube/write-fence.ts';
import type { KubeObject, Lister } from '../kube/types.ts';
import { userAgent } from '../kube/user-agent.ts';
import type { Logger } from '../log.ts';
import { buildInfo, COMPONENT, goPlatform } from '../version.ts';
import {
  HYPERNODE_CRD_MISSING_HINT,
  HYPERNODE_GROUP,
  HYPERNODE_RESOURCE,
  HYPERNODE_VERSION,
  type ConfigMap,
  type HyperNode,
  type NodeMeta,
  type Secret,
} from '../hypernode/model/hypernode-types.ts';
import { newHyperNodeController } from '../hypernode/controller.ts';
import { nodeHealthOf, type NodeHealth } from '../hypernode/reconcile/health/node-health.ts';
import { nodeTaints } from './node-taint-client.ts';
import { dryRunSinks } from '../hypernode/preview/dry-run.ts';
import { TopologyStateRecorder, type TopologyStateView } from '../hypernode/reconcile/topology-state.ts';
import { configMapEventRecorder } from './controller-events.ts';
import { runController, type ControllerContext, type ControllerFactory } from './controller-runner.ts';
import { closeHttp } from './http-listen.ts';
import { createMetrics, gated, startMetricsServer, type Metrics, type MetricsListenerOptions } from './metrics.ts';
import type { LeaderElectionConfig, ResolvedOptions } from './options.ts';
import { startHealthServer } from './probes.ts';
import { accessReviewGate } from './request-auth.ts';
import { TOPOLOGY_PAGE_PATH, topologyPageRoute } from './topology-page.ts';
import { logStartup } from './startup.ts';
import { Readiness } from './readiness.ts';
import { workerErrorReporter } from './worker-errors.ts';
import { runGroup, type Runnable } from '../kube/runnable-group.ts';

/** Shutdown must finish within Kubernetes' default 30 s termination grace period. */
export const SHUTDOWN_TIMEOUT_MS = 25_000;
export const LOST_LEASE = 'lost lease';
/** How long one TokenReview or SubjectAccessReview may take before the request is refused (503). */
export const ACCESS_REVIEW_TIMEOUT_MS = 5_000;

export interface ServerDeps {
  /** Builds the controller run under leadership. The one line that plugs in the HyperNode controller. */
  controllerFactory: ControllerFactory;
  /** Read for the in-cluster client configuration (the discovery ConfigMap's location is in the options). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where the in-cluster token and ca.crt are read. */
  serviceAccountDir: string;
  clock: MonotonicClock;
  hostname: string;
  /** Build information for the User-Agent. */
  version: { gitVersion: string; gitCommit: string };
  /** Used for the metrics bind failure (255) and a second signal (1). */
  exit(code: number): void;
  /** Aborting it acts like SIGTERM (tests). */
  signal?: AbortSignal;
  /** Install SIGINT/SIGTERM handlers (off for in-process tests). */
  handleSignals: boolean;
  metrics: Metrics;
  shutdownTimeoutMs: number;
  /** Called with the bound health/metrics servers (tests bind port 0). */
  onListening?(servers: { health?: Server; metrics?: Server }): void;
}

function defaultDeps(): Omit<ServerDeps, 'metrics'> {
  return {
    controllerFactory: newHyperNodeController,
    env: process.env,
    serviceAccountDir: SERVICE_ACCOUNT_DIR,
    clock: realClock,
    hostname: osHostname(),
    version: buildInfo(),
    exit: (code) => process.exit(code),
    handleSignals: true,
    shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS,
  };
}

export async function runServer(
  options: ResolvedOptions,
  logger: Logger,
  overrides: Partial<ServerDeps> = {},
): Promise<void> {
  // A registry is made only when none is passed (its default collectors start on creation).
  const deps: ServerDeps = { ...defaultDeps(), ...overrides, metrics: overrides.metrics ?? createMetrics() };
  logStartup(logger, options);
  const readiness = new Readiness();
  const config = buildClientConfig(options, logger, {
    env: deps.env,
    serviceAccountDir: deps.serviceAccountDir,
    clock: deps.clock,
  });
  const transport = new Transport(config);
  const topologyState = options.topologyPage ? new TopologyStateRecorder() : undefined;
  // Clients and informers do no I/O until they run; the topology page reads the Node cache.
  const run = wire(options, logger, deps, transport, readiness, topologyState);
  const page = topologyState ? { state: topologyState, nodes: run.nodes } : undefined;
  const root = new AbortController();
  const listeners = new Listeners(deps);
  await runGroup(
    root.signal,
    {
      start: [
        signalsRunnable(root, logger, deps),
        { name: 'connection pool', stop: () => transport.close() },
        listeners.health(options.healthz, readiness),
        listeners.metrics(options, logger, () => metricsListenerOptions(options, logger, deps, transport, page)),
        { name: 'readiness', stop: () => readiness.set(false) },
        workRunnable(options, logger, run),
      ],
    },
    // The first signal starts the stop; everything after it must finish in time (docs/design.md §3.2).
    { stopDeadline: { ms: deps.shutdownTimeoutMs, clock: deps.clock } },
  );
}

/** SIGINT/SIGTERM handling (when asked for) and the caller's stop signal, both ending in `root`. */
function signalsRunnable(root: AbortController, logger: Logger, deps: ServerDeps): Runnable {
  let removeSignalHandlers = () => {};
  const onExternalStop = () => root.abort(new Error('stopped'));
  return {
    name: 'signal handlers',
    start() {
      if (deps.handleSignals) removeSignalHandlers = installSignalHandlers(root, logger, deps.exit);
      deps.signal?.addEventListener('abort', onExternalStop, { once: true });
      if (deps.signal?.aborted) onExternalStop();
    },
    stop() {
      removeSignalHandlers();
      deps.signal?.removeEventListener('abort', onExternalStop);
    },
  };
}

/** The health and metrics listeners: bound, reported to `onListening`, closed at stop. */
class Listeners {
  private healthServer: Server | undefined;
  private metricsServer: Promise<Server | undefined> = Promise.resolve(undefined);

  constructor(private readonly deps: ServerDeps) {}

  /** Bound and awaited: a bind error fails the start. */
  health(address: ResolvedOptions['healthz'], readiness: Readiness): Runnable {
    return {
      name: 'health server',
      start: async () => {
        if (address) this.healthServer = await startHealthServer(address, readiness);
      },
      stop: () => (this.healthServer ? closeHttp(this.healthServer) : undefined),
    };
  }

  /** Bound in the background: a bind error is fatal as klog.Fatal is (exit 255). */
  metrics(options: ResolvedOptions, logger: Logger, listenerOptions: () => MetricsListenerOptions): Runnable {
    const { deps } = this;
    return {
      name: 'metrics server',
      start: () => {
        const address = options.metrics;
        const { registry } = deps.metrics;
        if (address) this.metricsServer = startMetricsServer(address, registry, logger, deps.exit, listenerOptions());
        const health = this.healthServer ? { health: this.healthServer } : {};
        const onListening = deps.onListening;
        const listening = (metrics: Server | undefined) => ({ ...health, ...(metrics ? { metrics } : {}) });
        if (onListening) void this.metricsServer.then((metrics) => onListening(listening(metrics)));
      },
      stop: async () => {
        const metrics = await this.metricsServer;
        if (metrics) await closeHttp(metrics);
      },
    };
  }
}

/** The controller, under leader election unless it is off or a dry run; ending on its own fails the run. */
function workRunnable(options: ResolvedOptions, logger: Logger, run: ReturnType<typeof wire>): Runnable {
  let work: Promise<void> = Promise.resolve();
  return {
    name: 'controller',
    start({ stopping, failed }) {
      // A dry-run replica must never hold the Lease: it would keep the real controller from leading.
      if (options.dryRun)
        logger.info(
          'Dry run: leader election skipped and nothing is written; every HyperNode write and Event is logged and counted instead',
        );
      const leaderElection = options.dryRun ? undefined : options.leaderElection;
      work = leaderElection ? run.withLeaderElection(leaderElection, stopping) : run.controller(stopping);
      work.catch(failed);
    },
    stop: () => work.catch(() => {}),
  };
}

function clientUserAgent(deps: ServerDeps, suffix: string): string {
  return userAgent(
    { program: COMPONENT, version: deps.version.gitVersion, platform: goPlatform(), commit: deps.version.gitCommit },
    suffix,
  );
}

/**
 * The token review in front of /debug/topology and (--secure-metrics)
 * /metrics. Its client has its own token bucket and no write fence: a review
 * is a POST, but not a write a standby must not make, and a standby serves
 * its page and metrics too.
 */
function metricsListenerOptions(
  options: ResolvedOptions,
  logger: Logger,
  deps: ServerDeps,
  transport: Transport,
  page: { state: TopologyStateView; nodes: Lister<NodeMeta> } | undefined,
): MetricsListenerOptions {
  if (!page && !options.secureMetrics) return {};
  const rest = new RestClient({
    transport,
    userAgent: clientUserAgent(deps, 'auth-delegator'),
    qps: options.kubeApiQps,
    burst: options.kubeApiBurst,
    clock: deps.clock,
    metrics: deps.metrics.rest,
    // A scrape or a page view waits for the review: answer before Prometheus' default 10 s scrape timeout.
    requestTimeoutMs: ACCESS_REVIEW_TIMEOUT_MS,
  });
  const reviewer = new AccessReviewer({ rest, clock: deps.clock, audiences: options.tokenAudiences });
  const gate = accessReviewGate(reviewer, logger, { audience: options.tokenAudiences[0]!, clock: deps.clock });
  return {
    ...(options.secureMetrics ? { metricsGate: gate } : {}),
    ...(page
      ? { routes: new Map([[TOPOLOGY_PAGE_PATH, gated(gate, topologyPageRoute(page.state, page.nodes, deps.clock))]]) }
      : {}),
  };
}

/** Builds the clients and informers (no network I/O) and returns the two ways to run. */
function wire(
  options: ResolvedOptions,
  logger: Logger,
  deps: ServerDeps,
  transport: Transport,
  readiness: Readiness,
  topologyState: TopologyStateRecorder | undefined,
) {
  const { clock, metrics } = deps;
  const ua = (suffix: string) => clientUserAgent(deps, suffix);
  // With leader election, every client set's writes pass the elector's fence:
  // a leader frozen past its lease must not write after it resumes.
  const fence = options.leaderElection ? new LeadershipFence(clock) : undefined;
  const clientSet = (suffix: string) =>
    new RestClient({
      transport,
      userAgent: ua(suffix),
      qps: options.kubeApiQps,
      burst: options.kubeApiBurst,
      clock,
      metrics: metrics.rest,
      ...(fence ? { fence } : {}),
    });
  // Each client set has its own token bucket, as in Go.
  const core = clientSet(COMPONENT);
  const volcano = clientSet(COMPONENT);

  const nodeResource = { group: '', version: 'v1', resource: 'nodes', namespaced: false };
  const configMapClient = resourceClient<ConfigMap>(core, {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    namespaced: true,
  });
  const nodes = resourceInformer<NodeMeta>(resourceClient(core, nodeResource), {
    metadataOnly: true,
    // The label export's and the taint's records ride along; every other annotation is dropped.
    transform: keepNameLabelsAnd(isRecordAnnotation) as (o: KubeObject) => NodeMeta,
    clock,
    logger,
  });
  const configMaps = resourceInformer<ConfigMap>(configMapClient, {
    namespace: options.configMap.namespace,
    fieldSelector: `metadata.name=${options.configMap.name}`,
    clock,
    logger,
  });
  const hyperNodeResource = {
    group: HYPERNODE_GROUP,
    version: HYPERNODE_VERSION,
    resource: HYPERNODE_RESOURCE,
    namespaced: false,
  };
  const hyperNodes = resourceInformer<HyperNode>(resourceClient(volcano, hyperNodeResource), {
    clock,
    logger,
    missingHint: HYPERNODE_CRD_MISSING_HINT,
  });
  const hyperNodeClient = resourceClient<HyperNode>(volcano, hyperNodeResource);
  // Node label and taint patches share the HyperNode writes' client set, so one rate limit bounds them all.
  const nodeWriter = resourceClient<NodeMeta>(volcano, nodeResource);
  const nodeTaintClient = nodeTaints(volcano);
  const topologyObjectClient = topologyObjects(volcano);
  const secrets = resourceClient<Secret>(core, { group: '', version: 'v1', resource: 'secrets', namespaced: true });
  const eventSink = (rest: RestClient) =>
    createEventSink({
      client: resourceClient<CoreEvent>(rest, EVENT_RESOURCE),
      component: COMPONENT,
      host: deps.hostname,
      clock,
      logger,
    });

  const apiContext: ControllerContext = {
    nodes,
    hyperNodes,
    configMaps,
    hyperNodeClient: {
      create: (hn, signal) => hyperNodeClient.create(hn, signal ? { signal } : {}),
      update: (hn, signal) => hyperNodeClient.update(hn, signal ? { signal } : {}),
      updateStatus: (hn, signal) => hyperNodeClient.updateStatus(hn, signal ? { signal } : {}),
      delete: (name, preconditions, signal) =>
        hyperNodeClient.delete(name, { preconditions, ...(signal ? { signal } : {}) }),
    },
    nodeLabelClient: {
      patchMetadata: async (node, changes, signal) =>
        void (await nodeWriter.patch(node, metadataMergePatch(changes), signal ? { signal } : {})),
    },
    nodeTaintClient,
    topologyObjectClient,
    // Sources read Secrets of the controller's namespace only: the discovery ConfigMap's, which the Role covers.
    secrets: {
      namespace: options.configMap.namespace,
      get: (namespace, name, signal) => secrets.get(name, { namespace, ...(signal ? { signal } : {}) }),
    },
    // A list narrowed to the one name, as for the discovery ConfigMap: the chart's Role grants list, not get.
    configMapReader: {
      get: async (namespace, name, signal) =>
        (
          await configMapClient.list({
            namespace,
            fieldSelector: `metadata.name=${name}`,
            ...(signal ? { signal } : {}),
          })
        ).items[0],
    },
    events: configMapEventRecorder(eventSink(core), configMaps, options.configMap),
    configMap: options.configMap,
    clock,
    logger,
    registry: metrics.registry,
    queueMetrics: (name) => metrics.queue(name),
    workerErrors: workerErrorReporter(metrics, logger),
    ...(topologyState ? { topologyState } : {}),
    // health.nodes: a second, full Node watch, started and stopped by the controller; each Node is cut down to its
    // health on arrival.
    nodeHealthInformer: () =>
      resourceInformer<NodeHealth>(resourceClient(core, nodeResource), { transform: nodeHealthOf, clock, logger }),
    // Every controller write goes through the volcano client set: its rate limit and measured answer times say how many
    // to keep in flight.
    writeConcurrency: () => volcano.pace.concurrency(),
    inputPolicy: options.inputPolicy,
  };
  const context: ControllerContext = options.dryRun
    ? {
        ...apiContext,
        ...dryRunSinks({ hyperNodes, logger, registry: metrics.registry, topologyObjectClient, nodeTaintClient }),
      }
    : apiContext;
  const informers = [nodes, configMaps, hyperNodes] as unknown as SharedInformer<KubeObject>[];
  const controller = (signal: AbortSignal) =>
    runController(
      { informers, context, factory: deps.controllerFactory, setReady: (r) => readiness.set(r), logger },
      signal,
    );

  async function withLeaderElection(le: LeaderElectionConfig, signal: AbortSignal): Promise<void> {
    const rest = clientSet('hypernode-leader-election');
    const identity = newIdentity(deps.hostname);
    const election = new AbortController();
    const stopElection = () => election.abort();
    signal.addEventListener('abort', stopElection, { once: true });
    let runner: Promise<void> | undefined;
    const elector = new LeaderElector({
      lock: new LeaseLock(resourceClient<Lease>(rest, LEASE_RESOURCE), le.resourceNamespace, le.resourceName),
      identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      clock,
      ...(fence ? { fence } : {}),
      logger,
      events: eventSink(rest),
      onLeadingChanged: (leading) => metrics.leaderStatus(le.resourceName, leading),
      callbacks: {
        onStartedLeading: (leaderSignal) => {
          readiness.startedLeading();
          runner = controller(leaderSignal).finally(() => readiness.set(false));
          // A failed controller ends the election (and with it the renew loop).
          runner.catch(() => election.abort());
          return runner.catch(() => {});
        },
        onStoppedLeading: () => readiness.stoppedLeading(),
        onNewLeader: (id) => readiness.newLeader(id, identity, logger),
      },
    });
    try {
      await elector.run(election.signal);
    } finally {
      signal.removeEventListener('abort', stopElection);
    }
    if (runner !== undefined) await runner;
    if (signal.aborted) return;
    throw new Error(LOST_LEASE);
  }

  return { controller, withLeaderElection, nodes };
}

/** First SIGINT/SIGTERM stops gracefully; a second one exits 1 at once (pkg/signals). */
function installSignalHandlers(root: AbortController, logger: Logger, exit: (code: number) => void): () => void {
  const onSignal = (sig: NodeJS.Signals) => {
    if (root.signal.aborted) {
      logger.info('Received second signal, exiting immediately', { signal: sig });
      exit(EXIT_FAILURE);
      return;
    }
    logger.info('Received signal, shutting down', { signal: sig });
    root.abort(new Error(`received ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
