// The metrics registry and the /metrics server (docs/metrics.md; Volcano's
// util.PromHandler with client-go's restclient and workqueue providers):
// Node.js process/runtime defaults, rest_client_*, workqueue_*, the worker
// errors, leader_election_master_status and whatever the controller registers.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RestMetrics } from '../kube/rest.ts';
import { createRestMetrics } from '../kube/rest-metrics.ts';
import type { QueueMetrics } from '../kube/rate-limiting-queue.ts';
import { logFatal, type Logger } from '../log.ts';
import { BUILT, GIT_SHA, goPlatform, runtimeVersion, VERSION } from '../version.ts';
import { listenHttp, type ListenAddress } from './http-listen.ts';
import type { RequestGate } from './request-auth.ts';
import { requestPath, sendText } from './probes.ts';
import { errorMessage } from '../util/error-message.ts';

export const BUILD_INFO_METRIC = 'hypernode_controller_manager_build_info';
/** Throws of each queue's worker, by queue name: controller-runtime's controller_runtime_reconcile_errors_total. */
export const WORKER_ERRORS_METRIC = 'hypernode_worker_errors_total';

/** client-go's workqueue latency buckets: 10 ns … 10 s, ×10. */
const QUEUE_BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

export interface Metrics {
  readonly registry: Registry;
  readonly rest: RestMetrics;
  /** workqueue_* for the queue called `name`. */
  queue(name: string): QueueMetrics;
  /** Counts one throw of the worker of the queue `name` (its series starts at 0 when this is called). */
  workerErrors(name: string): () => void;
  /** leader_election_master_status{name}. */
  leaderStatus(name: string, leading: boolean): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  try {
    collectDefaultMetrics({ register: registry });
  } catch {
    // Without /proc some collectors cannot even initialise; the rest still work.
  }
  const reg = { registers: [registry], labelNames: ['name'] as const };
  const depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', ...reg });
  const adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', ...reg });
  const queued = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested.',
    buckets: QUEUE_BUCKETS,
    ...reg,
  });
  const worked = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    buckets: QUEUE_BUCKETS,
    ...reg,
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    ...reg,
  });
  // client-go updates these two every 500 ms; read at scrape time here, from each queue's in-flight keys.
  const inFlight = new Map<string, () => number[]>();
  const agesByQueue = () => [...inFlight].map(([name, ages]) => ({ name, ages: ages() }));
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    ...reg,
    collect() {
      for (const { name, ages } of agesByQueue()) this.set({ name }, ages.reduce((sum, ms) => sum + ms, 0) / 1000);
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    ...reg,
    collect() {
      for (const { name, ages } of agesByQueue()) this.set({ name }, Math.max(0, ...ages) / 1000);
    },
  });
  const workerErrors = new Counter({
    name: WORKER_ERRORS_METRIC,
    help: 'Total number of errors a work queue\'s worker threw; each is logged as "Reconciler error" and its key retried with backoff',
    ...reg,
  });
  const leader = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    ...reg,
  });
  new Gauge({
    name: BUILD_INFO_METRIC,
    help: 'A metric with a constant value of 1, labelled by the version, git commit, build date and JavaScript runtime the controller was built and runs with.',
    labelNames: ['version', 'git_commit', 'build_date', 'runtime', 'platform'],
    registers: [registry],
  }).set(
    { version: VERSION, git_commit: GIT_SHA, build_date: BUILT, runtime: runtimeVersion(), platform: goPlatform() },
    1,
  );
  return {
    registry,
    rest: createRestMetrics(registry),
    queue: (name) => ({
      added: () => adds.inc({ name }),
      depth: (n) => depth.set({ name }, n),
      queued: (ms) => queued.observe({ name }, ms / 1000),
      worked: (ms) => worked.observe({ name }, ms / 1000),
      retried: () => retries.inc({ name }),
      // A queue made again under the same name (a restarted discoverer) replaces the old one's reading.
      inFlight: (ages) => void inFlight.set(name, ages),
    }),
    workerErrors: (name) => {
      // At 0 from the first scrape, so increase() sees the first error.
      workerErrors.inc({ name }, 0);
      return () => workerErrors.inc({ name });
    },
    leaderStatus: (name, leading) => leader.set({ name }, leading ? 1 : 0),
  };
}

/** A 200 with `text`, gzipped when the client accepts it (scrapes, the topology page); a HEAD gets the headers only. */
export function sendOk(req: IncomingMessage, res: ServerResponse, text: string, headers: Record<string, string>): void {
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? gzipSync(text) : Buffer.from(text);
  res.writeHead(200, { ...headers, 'Content-Length': body.length, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function metricsHandler(registry: Registry) {
  const requests = new Counter({
    name: 'promhttp_metric_handler_requests_total',
    help: 'Total number of scrapes by HTTP status code.',
    labelNames: ['code'],
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'promhttp_metric_handler_requests_in_flight',
    help: 'Current number of scrapes being served.',
    registers: [registry],
  });
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    inFlight.inc();
    try {
      const text = await registry.metrics();
      requests.inc({ code: '200' });
      sendOk(req, res, text, { 'Content-Type': registry.contentType });
    } catch (err) {
      requests.inc({ code: '500' });
      sendText(res, 500, `An error has occurred while serving metrics:\n\n${errorMessage(err)}\n`);
    } finally {
      inFlight.dec();
    }
  };
}

/** A handler on the metrics listener; it answers every request it is given. */
export type ListenerRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface MetricsListenerOptions {
  /** Asked before every scrape (--secure-metrics). */
  readonly metricsGate?: RequestGate;
  /** Further exact paths served on the listener (e.g. /debug/topology), each guarding itself. */
  readonly routes?: ReadonlyMap<string, ListenerRoute>;
}

/** Runs `route` only for requests `gate` lets through. */
export function gated(gate: RequestGate, route: ListenerRoute): ListenerRoute {
  return async (req, res) => {
    if (await gate(req, res)) await route(req, res);
  };
}

/**
 * Starts the metrics server in the background. A bind error is fatal: logged
 * and the process exits with 255, as Go's klog.Fatal does.
 */
export function startMetricsServer(
  address: ListenAddress,
  registry: Registry,
  logger: Logger,
  exit: (code: number) => void,
  options: MetricsListenerOptions = {},
): Promise<Server | undefined> {
  const scrape = metricsHandler(registry);
  const routes = new Map<string, ListenerRoute>([
    ['/metrics', options.metricsGate ? gated(options.metricsGate, scrape) : scrape],
    ...(options.routes ?? []),
  ]);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req);
    const route = routes.get(path);
    if (!route) return sendText(res, 404, '404 page not found\n');
    route(req, res).catch((err: unknown) => {
      logger.error('Failed to serve a request on the metrics listener', { path, err });
      if (!res.headersSent) sendText(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
  };
  return listenHttp(address, handler).catch((err: Error) => {
    // Tests pass an exit that returns; the process one never does.
    logFatal(logger, `Failed to start metrics server: ${err.message}`, undefined, exit as (code: number) => never);
    return undefined;
  });
}
