// Starting the built executable for a benchmark as a Deployment runs it: a
// least-privilege service-account token (so kube-apiserver's in-flight limit
// applies to it, as it does to a ServiceAccount), leader election, probes and
// metrics on free ports, an explicit client rate limit (the bound on converge
// time is computed from it), and optionally an empty page cache first; the
// stand-in optionally as slow to write as a real server; and the three
// figures every write benchmark prints.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HYPERNODE_RESOURCE } from '../../src/hypernode/model/hypernode-types.ts';
import {
  hypernodeControllerRbac,
  isWriteRequest,
  startApiServer,
  type ApiServer,
  type Obj,
  type PolicyRule,
  type RequestRecord,
} from '../../testing/apiserver/index.ts';
import { percentile } from './bench-stats.ts';
import { freePorts } from '../../testing/ports.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import { waitFor } from '../../testing/wait.ts';
import { ControllerProcess } from './bench-controller-process.ts';

export const NAMESPACE = 'volcano-system';
export const LEASE = 'vc-hypernode-controller-manager';
export const SERVICE_ACCOUNT = `system:serviceaccount:${NAMESPACE}:volcano-hypernode-controller`;

export interface RateLimit {
  qps: number;
  burst: number;
}

/** A HyperNode write the controller sent (the benchmark's own writes are another user). */
export const isControllerHyperNodeWrite = (r: RequestRecord): boolean =>
  r.user === SERVICE_ACCOUNT && r.resource === HYPERNODE_RESOURCE;

/** Milliseconds the token bucket needs for `requests` when it starts full: max(0, n − burst) / qps. */
export function rateLimitBoundMs(requests: number, limit: RateLimit): number {
  return (Math.max(0, requests - limit.burst) / limit.qps) * 1000;
}

/**
 * What a real kube-apiserver takes to answer a write, give or take: ~11 ms a
 * HyperNode create was measured at 100,000 Nodes. Every write benchmark runs
 * with and without it (`--write-latency-ms`).
 */
export const REAL_WRITE_LATENCY_MS = 10;
export const DEFAULT_WRITE_LATENCIES_MS: readonly number[] = [0, REAL_WRITE_LATENCY_MS];

/** The value of `--name=value` among a benchmark's arguments, undefined when absent. */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** `--write-latency-ms=0,10` (default both): the latencies per write to run a benchmark with. */
export function writeLatenciesArg(argv: readonly string[]): number[] {
  return flagValue(argv, 'write-latency-ms')?.split(',').map(Number) ?? [...DEFAULT_WRITE_LATENCIES_MS];
}

/** The three figures of a write benchmark. */
export interface WriteFigures {
  readonly writes: number;
  readonly windowMs: number;
  readonly perSecond: number;
  /** The token bucket's bound for the writes (rateLimitBoundMs). */
  readonly qpsBoundMs: number;
  /** The median time the stand-in took to answer one of them (its latency, if any, included). */
  readonly medianAnswerMs: number;
  /** Writing them one at a time: writes × the median answer time. */
  readonly latencyBoundMs: number;
}

/**
 * `writes` went out in `windowMs`: writes a second, the window against the
 * QPS bound of those writes (1 = as fast as the client's rate limit allows;
 * `needed` counts the writes the work needs when the bound is to be taken
 * of those), and against the latency bound of writing them one at a time
 * (below 1 = faster than one at a time could ever be).
 */
export function writeFigures(
  writes: readonly RequestRecord[],
  windowMs: number,
  limit: RateLimit,
  needed = writes.length,
): WriteFigures {
  const medianAnswerMs = percentile(
    writes.map((r) => r.durationMs),
    50,
  );
  return {
    writes: writes.length,
    windowMs,
    perSecond: writes.length / Math.max(windowMs / 1000, 0.001),
    qpsBoundMs: rateLimitBoundMs(needed, limit),
    medianAnswerMs,
    latencyBoundMs: needed * medianAnswerMs,
  };
}

export const qpsRatio = (f: WriteFigures): number => f.windowMs / f.qpsBoundMs;
export const latencyRatio = (f: WriteFigures): number => f.windowMs / f.latencyBoundMs;

/** One line with the three figures. */
export function describeWriteFigures(f: WriteFigures, limit: RateLimit): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const ratio = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '-');
  return (
    `${f.writes} writes in ${s(f.windowMs)} s = ${f.perSecond.toFixed(0)} writes/s; ` +
    `÷ QPS bound (qps=${limit.qps} burst=${limit.burst}: ${s(f.qpsBoundMs)} s) = ${ratio(qpsRatio(f))}; ` +
    `÷ latency bound of one at a time (× ${f.medianAnswerMs.toFixed(2)} ms median answer: ${s(f.latencyBoundMs)} s) = ${ratio(latencyRatio(f))}`
  );
}

/**
 * Empties the kernel's page cache (root only) so that the executable starts as
 * it does on a node after a reboot or a while after install. A binary written
 * moments before (a fresh build) sits wholly in the page cache, and the
 * kernel's fault-around then maps ~30 MB more of its code and read-only data
 * into the process: counted in VmRSS as file-backed pages, though shared and
 * reclaimable. Returns whether it could.
 */
export function dropPageCache(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    spawnSync('sync');
    writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}

export interface Launched {
  controller: ControllerProcess;
  healthUrl: string;
  /** Whether the launch started with an empty page cache (see dropPageCache). */
  pageCacheDropped: boolean;
  /** Date.now() and performance.now() just before the spawn. */
  spawnedAt: number;
  started: number;
}

export interface LaunchExtras {
  /** Grants beyond the chart's (an opt-in manifest overlay). */
  rules?: PolicyRule[];
  /** More flags, e.g. a log verbosity. */
  flags?: Record<string, string | number | boolean>;
  /** Arguments before the flags (a Node running the bundle: its options and the bundle), and more environment. */
  prefixArgs?: string[];
  env?: Record<string, string>;
}

export async function launchController(
  api: ApiServer,
  work: string,
  binary: string,
  limit: RateLimit,
  extras: LaunchExtras = {},
): Promise<Launched> {
  const pageCacheDropped = dropPageCache();
  const token = api.addUser(SERVICE_ACCOUNT, [...hypernodeControllerRbac(NAMESPACE, LEASE), ...(extras.rules ?? [])]);
  const [healthPort, metricsPort] = await freePorts(2);
  const flags: Record<string, string | number | boolean> = {
    kubeconfig: api.writeKubeconfig(work, { token }),
    'kube-api-qps': limit.qps,
    'kube-api-burst': limit.burst,
    'leader-elect': true,
    'leader-elect-resource-namespace': NAMESPACE,
    'leader-elect-resource-name': LEASE,
    'enable-healthz': true,
    'healthz-address': `127.0.0.1:${healthPort}`,
    'enable-metrics': true,
    'listen-address': `127.0.0.1:${metricsPort}`,
    // The UFM stand-ins listen on loopback, which the executable asks only when allowed.
    'allow-url-cidr': '127.0.0.1/32',
    ...extras.flags,
  };
  const args = [...(extras.prefixArgs ?? []), ...Object.entries(flags).map(([name, value]) => `--${name}=${value}`)];
  const env = { KUBE_POD_NAMESPACE: NAMESPACE, HELM_RELEASE_NAME: 'volcano', ...extras.env };
  const spawnedAt = Date.now();
  const started = performance.now();
  const controller = new ControllerProcess(binary, args, env, `http://127.0.0.1:${metricsPort}/metrics`);
  return { controller, healthUrl: `http://127.0.0.1:${healthPort}`, pageCacheDropped, spawnedAt, started };
}

/**
 * Follows the stand-in's HyperNodes write by write as the store changes (no
 * listing, which would take the stand-in's own CPU): `at()` is the wall time
 * (Date.now()) at which it first held `expected` HyperNodes that all satisfy
 * `done`, undefined until then.
 */
export function whenHyperNodes(
  api: ApiServer,
  expected: number,
  done: (hn: Obj) => boolean,
): { at: () => number | undefined; stop: () => void } {
  const state = new Map<string, boolean>();
  let satisfied = 0;
  let reachedAt: number | undefined;
  const see = (hn: Obj, deleted: boolean) => {
    const name = hn.metadata.name;
    if (state.get(name)) satisfied--;
    const now = !deleted && done(hn);
    if (deleted) state.delete(name);
    else state.set(name, now);
    if (now) satisfied++;
    if (reachedAt === undefined && state.size === expected && satisfied === expected) reachedAt = Date.now();
  };
  for (const hn of api.store.list(HYPERNODE_RESOURCE)) see(hn as Obj, false);
  const stop = api.onStoreChange(HYPERNODE_RESOURCE, see);
  return { at: () => reachedAt, stop };
}

/**
 * A stand-in for a benchmark: every write (the Lease's and Events' too) answered after `writeLatencyMs`, in its
 * in-flight seat.
 */
export function benchApiServer(writeLatencyMs: number): Promise<ApiServer> {
  return startApiServer({
    namespaces: [NAMESPACE],
    ...(writeLatencyMs > 0 ? { latency: { ms: writeLatencyMs, match: isWriteRequest } } : {}),
  });
}

/** One benchmark round's stand-in, work directory and, once launched, controller. */
export interface BenchRound {
  readonly api: ApiServer;
  readonly work: string;
  controller?: ControllerProcess;
}

/**
 * Runs one benchmark round against a fresh API server stand-in: prints the
 * controller's log when the round fails, and always stops the controller and
 * the stand-in and removes the work directory.
 */
export async function benchRound<T>(
  workPrefix: string,
  body: (round: BenchRound) => Promise<T>,
  o: { writeLatencyMs?: number } = {},
): Promise<T> {
  const round: BenchRound = {
    api: await benchApiServer(o.writeLatencyMs ?? 0),
    work: mkdtempSync(join(tmpdir(), workPrefix)),
  };
  try {
    return await body(round);
  } catch (err) {
    if (round.controller) console.error(`controller log tail:\n${round.controller.log}`);
    throw err;
  } finally {
    await round.controller?.stop();
    await round.api.close();
    rmSync(round.work, { recursive: true, force: true });
  }
}

/** What a polling source's controller costs while its fabric does not change. */
export interface QuietPolls {
  /** hypernode_discovery_last_success_timestamp_seconds when the quiet polls began. */
  readonly firstSuccess: number;
  /** Controller CPU over the last interval: one poll and the idle wait after it. */
  readonly intervalCpuMs: number;
  /** HyperNode writes over the quiet polls (0 when nothing changed). */
  readonly quietWrites: number;
}

/**
 * Lets one poll pass (the status writes of a new tree land by then), then measures `polls` more. Each
 * /metrics scrape costs the controller CPU the figures should not include, so the next poll is asked
 * for only once it is due (the last success + the interval).
 */
export async function quietPolls(
  api: ApiServer,
  controller: ControllerProcess,
  o: { source: string; intervalS: number; polls: number; scrapeEveryMs: number },
): Promise<QuietPolls> {
  const lastSuccess = async () => {
    const text = await controller.metrics();
    return seriesValue(text, 'hypernode_discovery_last_success_timestamp_seconds', { source: o.source });
  };
  const nextPoll = async (what: string) => {
    const at = await lastSuccess();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, (at + o.intervalS) * 1000 - Date.now())));
    await waitFor(async () => (await lastSuccess()) > at || undefined, {
      timeoutMs: (o.intervalS + 60) * 1000,
      intervalMs: o.scrapeEveryMs,
      what,
    });
  };
  await nextPoll('the poll after converging');
  const writesBefore = api.requests.writes(isControllerHyperNodeWrite).length;
  const firstSuccess = await lastSuccess();
  let intervalCpuMs = 0;
  for (let i = 1; i <= o.polls; i++) {
    const cpuBefore = controller.cpuMs();
    await nextPoll(`quiet poll ${i}`);
    intervalCpuMs = controller.cpuMs() - cpuBefore;
  }
  return {
    firstSuccess,
    intervalCpuMs,
    quietWrites: api.requests.writes(isControllerHyperNodeWrite).length - writesBefore,
  };
}
