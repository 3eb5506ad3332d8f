// Replicas of the built executable for the leader-election scenarios (fail
// over, fencing): each with its own kubeconfig (so the stand-in's request log
// tells replicas apart by user), short lease timings, health and metrics
// listeners on free ports, and its log captured. A replica that is stopped
// (SIGSTOP) or still running when the test ends is resumed and killed, even if
// the test process exits abruptly, so none outlives the test. A replica
// cluster adds the API server stand-in they share, with a kubeconfig and the
// chart's RBAC per user.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../src/kube/types.ts';
import { BINARY, BUNDLE, REPO_ROOT } from './executables.ts';
import { hypernodeControllerRbac, startApiServer, type ApiServer, type PolicyRule } from './apiserver/index.ts';
import { freePorts } from './ports.ts';

export interface LeaseTimings {
  /** Go durations, as passed to the flags. */
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
}

interface ReplicaOptions {
  kubeconfig: string;
  /** KUBE_POD_NAMESPACE and the Lease namespace. */
  namespace: string;
  leaseName: string;
  timings: LeaseTimings;
}

export interface Replica {
  readonly child: ChildProcess;
  readonly health: number;
  readonly metrics: number;
  /** stdout and stderr so far (klog lines and the final error). */
  log(): string;
  /** The exit code, or 128 + signal number when killed by a signal. */
  readonly exit: Promise<number>;
  running(): boolean;
  /** The leader-election identity it logged, once it started campaigning. */
  identity(): string | undefined;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

/** Starts dist/vc-hypernode-controller-manager (the SEA, else the bundle on this Node) with leader election on. */
export async function startReplica(opts: ReplicaOptions): Promise<Replica> {
  const [health, metrics] = await freePorts(2);
  const flags = [
    `--kubeconfig=${opts.kubeconfig}`,
    '--enable-healthz=true',
    '--enable-metrics=true',
    `--healthz-address=127.0.0.1:${health}`,
    `--listen-address=127.0.0.1:${metrics}`,
    '--leader-elect=true',
    `--leader-elect-resource-namespace=${opts.namespace}`,
    `--leader-elect-resource-name=${opts.leaseName}`,
    `--leader-elect-lease-duration=${opts.timings.leaseDuration}`,
    `--leader-elect-renew-deadline=${opts.timings.renewDeadline}`,
    `--leader-elect-retry-period=${opts.timings.retryPeriod}`,
    // The UFM stand-in listens on loopback, which the executable asks only when allowed.
    '--allow-url-cidr=127.0.0.1/32',
    '-v=2',
  ];
  if (!existsSync(BINARY) && !existsSync(BUNDLE))
    throw new Error(`${BINARY} is missing: run \`node scripts/build.mjs\` first`);
  const [cmd, args] = existsSync(BINARY) ? [BINARY, flags] : [process.execPath, [BUNDLE, ...flags]];
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    KUBE_POD_NAMESPACE: opts.namespace,
    HELM_RELEASE_NAME: 'volcano',
  };
  const child = spawn(cmd, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  // 'close', not 'exit': only then has everything the process wrote been read.
  const exit = new Promise<number>((resolve) => {
    child.on('close', (code, signal) => {
      live.delete(child);
      resolve(code ?? 128 + (signal ? osConstants.signals[signal] : 0));
    });
  });
  return {
    child,
    health,
    metrics,
    log: () => log,
    exit,
    running: () => child.exitCode === null && child.signalCode === null,
    identity: () => /identity="([^"]+)"/.exec(log)?.[1],
  };
}

/** Resumes and kills every replica still running, and waits for the exits. */
export async function killReplicas(replicas: readonly Replica[]): Promise<void> {
  for (const r of replicas) {
    if (!r.running()) continue;
    r.child.kill('SIGCONT');
    r.child.kill('SIGKILL');
  }
  await Promise.all(replicas.map((r) => r.exit));
}

export interface ReplicaClusterOptions {
  /** KUBE_POD_NAMESPACE and the Lease namespace. */
  namespace: string;
  leaseName: string;
  timings: LeaseTimings;
  /** Grants beyond the chart's for every replica (an opt-in manifest overlay). */
  extraRules?: PolicyRule[];
}

/** The API server stand-in and the replicas started against it. */
export interface ReplicaCluster {
  readonly api: ApiServer;
  /** In start order. */
  readonly replicas: readonly Replica[];
  /**
   * Starts a replica authenticating as `user` with the chart's RBAC for the
   * namespace and Lease; replicas of one user share its kubeconfig, as the
   * pods of one Deployment share a ServiceAccount.
   */
  start(user: string): Promise<Replica>;
  /** The Lease's holderIdentity; '' while there is none or after a release. */
  holder(): string;
  /** Kills every replica still running, stops the API server and removes the kubeconfigs. */
  close(): Promise<void>;
}

export async function startReplicaCluster(opts: ReplicaClusterOptions): Promise<ReplicaCluster> {
  const api = await startApiServer({ namespaces: [opts.namespace] });
  const dir = mkdtempSync(join(tmpdir(), 'replicas-'));
  const replicas: Replica[] = [];
  const kubeconfigs = new Map<string, string>();
  const kubeconfigOf = (user: string): string => {
    let path = kubeconfigs.get(user);
    if (path === undefined) {
      path = api.writeKubeconfig(dir, {
        token: api.addUser(user, [
          ...hypernodeControllerRbac(opts.namespace, opts.leaseName),
          ...(opts.extraRules ?? []),
        ]),
      });
      kubeconfigs.set(user, path);
    }
    return path;
  };
  return {
    api,
    replicas,
    async start(user) {
      const replica = await startReplica({
        kubeconfig: kubeconfigOf(user),
        namespace: opts.namespace,
        leaseName: opts.leaseName,
        timings: opts.timings,
      });
      replicas.push(replica);
      return replica;
    },
    holder() {
      const lease = api.store.get('leases', opts.leaseName, opts.namespace) as
        | (KubeObject & { spec?: { holderIdentity?: string } })
        | undefined;
      return lease?.spec?.holderIdentity ?? '';
    },
    async close() {
      await killReplicas(replicas);
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
