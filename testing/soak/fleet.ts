// The soak test's replicas: a fixed number of slots, each running one process
// of the built executable at a time (testing/replica-process.ts). Every
// process gets its own ServiceAccount user, so the request log tells
// processes apart, including a slot's restarted process from its
// predecessor. A process that exits is restarted after a pause, as kubelet
// restarts a container; every exit is classified (killed by the soak, or
// "lost lease", exit 1), and any other is reported.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../src/kube/types.ts';
import { hypernodeControllerRbac, type ApiServer } from '../apiserver/index.ts';
import { procMemory } from '../proc-stats.ts';
import { killReplicas, startReplica, type LeaseTimings, type Replica } from '../replica-process.ts';
import { bugLines } from './invariants.ts';
import { LEASE, NS } from './inputs.ts';

/** kubelet's first back-off before restarting a container is longer; a second keeps the soak busy. */
const RESTART_PAUSE_MS = 1_000;
const SIGKILL_EXIT = 128 + 9;
const LOST_LEASE_EXIT = 1;

export interface ReplicaProcess {
  slot: number;
  user: string;
  replica: Replica;
  startedAt: number;
  killedBySoak: boolean;
  /** VmRSS samples, MB. */
  rss: Array<{ at: number; mb: number }>;
}

export class Fleet {
  readonly processes: ReplicaProcess[] = [];
  readonly problems: string[] = [];
  readonly exits = { killed: 0, lostLease: 0, other: 0 };
  private readonly live = new Map<number, ReplicaProcess>();
  private readonly dir = mkdtempSync(join(tmpdir(), 'soak-'));
  private stopping = false;
  private readonly restarts = new Set<Promise<void>>();

  constructor(
    private readonly api: ApiServer,
    private readonly timings: LeaseTimings,
  ) {}

  async start(slots: number): Promise<void> {
    for (let slot = 0; slot < slots; slot++) await this.spawn(slot);
  }

  private async spawn(slot: number): Promise<void> {
    const generation = this.processes.filter((p) => p.slot === slot).length;
    const user = `system:serviceaccount:${NS}:replica-${slot}-${generation}`;
    const token = this.api.addUser(user, hypernodeControllerRbac(NS, LEASE));
    const kubeconfig = this.api.writeKubeconfig(this.dir, {
      token,
      fileName: `replica-${slot}-${generation}.kubeconfig`,
    });
    const replica = await startReplica({ kubeconfig, namespace: NS, leaseName: LEASE, timings: this.timings });
    const p: ReplicaProcess = { slot, user, replica, startedAt: Date.now(), killedBySoak: false, rss: [] };
    this.processes.push(p);
    this.live.set(slot, p);
    void replica.exit.then((code) => this.exited(p, code));
  }

  private exited(p: ReplicaProcess, code: number): void {
    if (this.live.get(p.slot) === p) this.live.delete(p.slot);
    if (this.stopping) return;
    if (p.killedBySoak && code === SIGKILL_EXIT) this.exits.killed++;
    else if (code === LOST_LEASE_EXIT && /^lost lease$/m.test(p.replica.log())) this.exits.lostLease++;
    else {
      this.exits.other++;
      this.problems.push(`${p.user} exited ${code} unexpectedly; log tail:\n${p.replica.log().slice(-2_000)}`);
    }
    const restart = new Promise<void>((r) => setTimeout(r, RESTART_PAUSE_MS)).then(() =>
      this.stopping ? undefined : this.spawn(p.slot),
    );
    this.restarts.add(restart);
    void restart.finally(() => this.restarts.delete(restart));
  }

  /** The Lease holder's identity ('' when none). */
  holder(): string {
    const lease = this.api.store.get('leases', LEASE, NS) as
      | (KubeObject & { spec?: { holderIdentity?: string } })
      | undefined;
    return lease?.spec?.holderIdentity ?? '';
  }

  /** The live process holding the Lease, if any. */
  leader(): ReplicaProcess | undefined {
    const holder = this.holder();
    return holder ? [...this.live.values()].find((p) => p.replica.identity() === holder) : undefined;
  }

  liveProcesses(): ReplicaProcess[] {
    return [...this.live.values()];
  }

  sampleRss(): void {
    for (const p of this.live.values()) {
      if (!p.replica.running() || p.replica.child.pid === undefined) continue;
      try {
        p.rss.push({ at: Date.now(), mb: procMemory(p.replica.child.pid).rssMB });
      } catch {
        // Exited between the check and the read.
      }
    }
  }

  kill(p: ReplicaProcess, signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT'): void {
    if (signal === 'SIGKILL') p.killedBySoak = true;
    p.replica.child.kill(signal);
  }

  /** Bug lines (panics, unhandled rejections, TypeErrors...) in any process's log. */
  bugs(): string[] {
    return this.processes.flatMap((p) => bugLines(p.replica.log()).map((line) => `${p.user}: ${line}`));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.restarts]);
    await killReplicas(this.processes.map((p) => p.replica));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
