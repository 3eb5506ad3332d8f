// The process: clients, listeners, signals and the controller (under leader
// election or not), run as one group so that the first signal starts one
// ordered stop under one deadline. Mirrors Run in Volcano's
// cmd/hypernode-controller-manager/app/server.go.

import { hostname as osHostname } from 'node:os';
import type { Server } from 'node:http';
import { EXIT_FAILURE } from '../exit-codes.ts';
import { realClock, type MonotonicClock } from '../kube/clock.ts';
import { buildClientConfig, SERVICE_ACCOUNT_DIR } from '../kube/config.ts';
import { AccessReviewer } from '../kube/access-review.ts';
import { RestClient } from '../kube/rest.ts';
import { Transport } from '../kube/transport.ts';
import type { Lister } from '../kube/types.ts';
import type { Logger } from '../log.ts';
import { buildInfo } from '../version.ts';
import type { NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { newHyperNodeController } from '../hypernode/controller.ts';
import { TopologyStateRecorder, type TopologyStateView } from '../hypernode/reconcile/topology-state.ts';
import { clientUserAgent, electionOf, newClientSets, type ClientSets } from './client-sets.ts';
import { newControllerInputs, type ControllerInputs } from './controller-context.ts';
import { runController, type ControllerFactory } from './controller-runner.ts';
import { closeHttp } from './http-listen.ts';
import { leaderElectionRunnable } from './leader-election-runnable.ts';
import { createMetrics, gated, startMetricsServer, type Metrics, type MetricsListenerOptions } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';
import { startHealthServer } from './probes.ts';
import { accessReviewGate } from './request-auth.ts';
import { TOPOLOGY_PAGE_PATH, topologyPageRoute } from './topology-page.ts';
import { logStartup } from './startup.ts';
import { Readiness } from './readiness.ts';
import { runGroup, type Runnable } from '../kube/runnable-group.ts';

/** Shutdown must finish within Kubernetes' default 30 s termination grace period. */
export const SHUTDOWN_TIMEOUT_MS = 25_000;
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
  const { env, serviceAccountDir, clock, hostname, metrics } = deps;
  const transport = new Transport(buildClientConfig(options, logger, { env, serviceAccountDir, clock }));
  // Clients and informers do no I/O until they run.
  const clients = newClientSets(options, transport, { clock, metrics: metrics.rest, version: deps.version });
  const topologyState = options.topologyPage ? new TopologyStateRecorder() : undefined;
  const inputs = newControllerInputs(options, logger, clients, { clock, metrics, hostname, topologyState });
  // The topology page reads the Node cache.
  const page = topologyState ? { state: topologyState, nodes: inputs.context.nodes } : undefined;
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
        workRunnable(options, logger, deps, clients, readiness, inputs),
      ],
    },
    // The first signal starts the stop; everything after it must finish in time (docs/design.md §3.2).
    { stopDeadline: { ms: deps.shutdownTimeoutMs, clock } },
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
function workRunnable(
  options: ResolvedOptions,
  logger: Logger,
  deps: ServerDeps,
  clients: ClientSets,
  readiness: Readiness,
  { informers, context }: ControllerInputs,
): Runnable {
  const setReady = (ready: boolean) => readiness.set(ready);
  const lead = (signal: AbortSignal) =>
    runController({ informers, context, factory: deps.controllerFactory, setReady, logger }, signal);
  const election = electionOf(options);
  if (!election || !clients.leaderElection) return controllerRunnable(options, logger, lead);
  return leaderElectionRunnable({
    config: election,
    rest: clients.leaderElection,
    fence: clients.fence,
    hostname: deps.hostname,
    clock: deps.clock,
    logger,
    readiness,
    metrics: deps.metrics,
    lead,
  });
}

/** The controller without leader election, from the group's start to its stop. */
function controllerRunnable(
  options: ResolvedOptions,
  logger: Logger,
  run: (signal: AbortSignal) => Promise<void>,
): Runnable {
  let work: Promise<void> = Promise.resolve();
  return {
    name: 'controller',
    start({ stopping, failed }) {
      // A dry-run replica must never hold the Lease: it would keep the real controller from leading.
      if (options.dryRun)
        logger.info(
          'Dry run: leader election skipped and nothing is written; every HyperNode write and Event is logged and counted instead',
        );
      work = run(stopping);
      work.catch(failed);
    },
    stop: () => work.catch(() => {}),
  };
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
    userAgent: clientUserAgent(deps.version, 'auth-delegator'),
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
