// Starting the built executable for a benchmark as a Deployment runs it: a
// least-privilege service-account token, leader election, probes and metrics
// on free ports, an explicit client rate limit (the bound on converge time is
// computed from it), and optionally an empty page cache first.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HYPERNODE_RESOURCE } from '../../src/hypernode/model/hypernode-types.ts';
import { hypernodeControllerRbac, startApiServer, type ApiServer, type PolicyRule, type RequestRecord } from '../../testing/apiserver/index.ts';
import { freePorts } from '../../testing/ports.ts';
import { ControllerProcess } from './bench-controller-process.ts';

export const NAMESPACE = 'volcano-system';
export const LEASE = 'vc-hypernode-controller-manager';
export const SERVICE_ACCOUNT = `system:serviceaccount:${NAMESPACE}:volcano-hypernode-controller`;

export interface RateLimit {
  qps: number;
  burst: number;
}

/** A HyperNode write the controller sent (the benchmark's own writes are another user). */
export const isControllerHyperNodeWrite = (r: RequestRecord): boolean => r.user === SERVICE_ACCOUNT && r.resource === HYPERNODE_RESOURCE;

/** Milliseconds the token bucket needs for `requests` when it starts full: max(0, n − burst) / qps. */
export function rateLimitBoundMs(requests: number, limit: RateLimit): number {
  return (Math.max(0, requests - limit.burst) / limit.qps) * 1000;
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
}

export async function launchController(api: ApiServer, work: string, binary: string, limit: RateLimit, extras: LaunchExtras = {}): Promise<Launched> {
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
    ...extras.flags,
  };
  const args = Object.entries(flags).map(([name, value]) => `--${name}=${value}`);
  const env = { KUBE_POD_NAMESPACE: NAMESPACE, HELM_RELEASE_NAME: 'volcano' };
  const spawnedAt = Date.now();
  const started = performance.now();
  const controller = new ControllerProcess(binary, args, env, `http://127.0.0.1:${metricsPort}/metrics`);
  return { controller, healthUrl: `http://127.0.0.1:${healthPort}`, pageCacheDropped, spawnedAt, started };
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
export async function benchRound<T>(workPrefix: string, body: (round: BenchRound) => Promise<T>): Promise<T> {
  const round: BenchRound = { api: await startApiServer({ namespaces: [NAMESPACE] }), work: mkdtempSync(join(tmpdir(), workPrefix)) };
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
