// The soak: replicas of the built executable against the API server and UFM
// stand-ins through a seeded schedule of faults, with the invariants checked
// from the request log as it grows, the end state compared with `render`,
// and a summary of what happened. Used by scripts/soak.ts (long runs) and
// tests/e2e/soak.test.ts (two minutes in the suite).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer, type RequestRecord } from '../apiserver/index.ts';
import type { LeaseTimings } from '../replica-process.ts';
import type { SampleShape } from '../sample-cluster.ts';
import { UfmServer } from '../ufm-server.ts';
import { waitFor } from '../wait.ts';
import { Fleet, type ReplicaProcess } from './fleet.ts';
import { NS, SoakInputs } from './inputs.ts';
import { SingleWriterCheck, isLeaderWrite, unjustifiedDeletes, type HyperNodeIdentity } from './invariants.ts';
import { compareWithRender, type RenderComparison } from './render-check.ts';
import { FAULT_KINDS, faultSchedule, seededRandom, type Fault, type FaultKind } from './schedule.ts';

const SOURCE_LABEL = 'volcano.sh/network-topology-source';
const REPLICA_USER = `system:serviceaccount:${NS}:replica-`;
const MONITOR_INTERVAL_MS = 100;
const WARM_UP_DEADLINE_MS = 120_000;
/** How long a standby may take to hold the Lease after the leader is gone: lease + retries + a loaded machine. */
const TAKEOVER_DEADLINE_MS = 40_000;
const BROKEN_CONFIG = 'networkTopologyDiscovery: [unclosed';
/** Label keys that name a label HyperNode's group. */
const GROUP_LABELS = ['topology.example.com/zone', 'volcano.sh/hypercluster', 'volcano.sh/hypernode'];

export interface SoakOptions {
  seed: number;
  shape: SampleShape;
  /** Length of the fault phase, ms; the first round (every kind once) always runs in full. */
  faultPhaseMs: number;
  gapMs: readonly [number, number];
  replicas: number;
  timings: LeaseTimings;
  relabelPercentPerMinute: number;
  rssIntervalMs: number;
  /** After the last fault, the topology must equal render's within this. */
  convergeDeadlineMs: number;
  /** Check RSS at the end against RSS at warm-up (within 10 %) for processes that lived through the run. */
  checkRss: boolean;
  progress?: (line: string) => void;
}

export interface SoakResult {
  violations: string[];
  summary: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isReplica = (r: RequestRecord) => r.user.startsWith(REPLICA_USER);

function identityOf(labels: Record<string, string> | undefined): HyperNodeIdentity {
  const key = GROUP_LABELS.find((k) => labels?.[k] !== undefined);
  return { source: labels?.[SOURCE_LABEL] ?? '?', group: key ? `${key}=${labels![key]}` : undefined };
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const progress = o.progress ?? (() => {});
  const t0 = Date.now();
  const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  const dir = mkdtempSync(join(tmpdir(), 'soak-render-'));
  const api: ApiServer = await startApiServer({ namespaces: [NS] });
  const ufm = await new UfmServer().start();
  const inputs = new SoakInputs(o.shape, ufm.endpoint(), { username: ufm.username, password: ufm.password });
  ufm.answer = { kind: 'ports', ports: inputs.ufmPorts };
  inputs.seed(api);
  const fleet = new Fleet(api, o.timings);
  const violations: string[] = [];
  const writers = new SingleWriterCheck();
  const seen = new Map<string, HyperNodeIdentity>();
  const holders: Array<{ at: number; holder: string }> = [];
  const faultCounts = new Map<FaultKind, number>();
  const failovers: Array<{ kind: FaultKind; ms: number }> = [];
  let relabels = 0;
  let scanned = 0;
  let warmedUpAt = 0;
  const random = seededRandom(o.seed ^ 0x5eed);

  const monitor = (): void => {
    for (const hn of api.store.list('hypernodes') as Array<{
      metadata: { name: string; labels?: Record<string, string> };
    }>) {
      if (!seen.has(hn.metadata.name)) seen.set(hn.metadata.name, identityOf(hn.metadata.labels));
    }
    const all = api.requests.all();
    writers.feed(all.slice(scanned).filter(isReplica));
    scanned = all.length;
    const holder = fleet.holder();
    if (holder && holder !== holders.at(-1)?.holder) holders.push({ at: Date.now(), holder });
  };
  const monitorTimer = setInterval(monitor, MONITOR_INTERVAL_MS);
  const rssTimer = setInterval(() => fleet.sampleRss(), o.rssIntervalMs);
  const relabelEveryMs = 60_000 / ((inputs.nodes.length * o.relabelPercentPerMinute) / 100);
  let relabelTimer: NodeJS.Timeout | undefined;

  const takeover = async (kind: FaultKind, signal: 'SIGKILL' | 'SIGSTOP'): Promise<void> => {
    const leader = await waitFor(() => fleet.leader(), {
      timeoutMs: TAKEOVER_DEADLINE_MS,
      what: 'a leader to fault',
    }).catch(() => undefined);
    if (!leader) return void violations.push(`${kind}: no leader for ${TAKEOVER_DEADLINE_MS} ms`);
    const identity = leader.replica.identity();
    const started = Date.now();
    fleet.kill(leader, signal);
    const ok = await waitFor(() => fleet.holder() !== identity && fleet.leader(), {
      timeoutMs: TAKEOVER_DEADLINE_MS,
      what: 'a standby taking over',
    }).catch(() => undefined);
    if (ok) failovers.push({ kind, ms: Date.now() - started });
    else violations.push(`${kind}: no standby took over within ${TAKEOVER_DEADLINE_MS} ms`);
    if (signal === 'SIGSTOP') fleet.kill(leader, 'SIGCONT');
  };

  const inject = async (f: Fault): Promise<void> => {
    switch (f.kind) {
      case 'watch-cut':
        api.cutWatches(isReplica);
        return;
      case 'burst-5xx':
        api.failNext(f.size, { code: f.pick < 0.5 ? 500 : 503, match: isReplica });
        return;
      case 'burst-429':
        api.failNext(f.size, { code: 429, retryAfterSeconds: 1, match: isReplica });
        return;
      case 'apiserver-restart':
        await api.restart({ keepData: true });
        return;
      case 'apiserver-restart-data-loss':
        await api.restart({ keepData: false });
        // Before any request can be served (no await in between): kubelets re-register, the operator restores the
        // ConfigMap and Secret.
        inputs.seed(api);
        return;
      case 'leader-kill':
        return takeover(f.kind, 'SIGKILL');
      case 'leader-freeze':
        return takeover(f.kind, 'SIGSTOP');
      case 'ufm-500':
      case 'ufm-garbage':
      case 'ufm-empty':
        ufm.answer =
          f.kind === 'ufm-500'
            ? { kind: 'status', status: 500 }
            : f.kind === 'ufm-garbage'
              ? { kind: 'raw', body: '[{"system_name": ' }
              : { kind: 'ports', ports: [] };
        await sleep(f.size);
        ufm.answer = { kind: 'ports', ports: inputs.ufmPorts };
        return;
      case 'config-reload-valid':
      case 'config-reload-broken':
        inputs.setConfig(
          api,
          f.kind === 'config-reload-broken' ? BROKEN_CONFIG : inputs.config(1 + Math.floor(f.pick * 100)),
        );
        await sleep(f.size);
        inputs.setConfig(api, inputs.config());
        return;
      case 'rack-retired':
        inputs.retireRack(api, f.pick);
        return;
    }
  };

  const aliveAtEnd = new Set<ReplicaProcess>();
  let render: RenderComparison | undefined;
  let convergedMs = -1;
  try {
    await fleet.start(o.replicas);
    await waitFor(async () => fleet.leader() && (render = await compareWithRender(api, inputs, dir)).equal, {
      timeoutMs: WARM_UP_DEADLINE_MS,
      intervalMs: 1_000,
      what: 'the first topology',
    }).catch((err: Error) => {
      throw new Error(
        `${err.message}; last difference from render:\n${render?.diff.join('\n')}\n${fleet.processes.map((p) => `--- ${p.user} ---\n${p.replica.log().slice(-3_000)}`).join('\n')}`,
      );
    });
    warmedUpAt = Date.now();
    fleet.sampleRss();
    progress(
      `[${elapsed()}] converged: ${render!.expected} HyperNodes for ${inputs.nodes.length} Nodes; faults begin (seed ${o.seed})`,
    );
    relabelTimer = setInterval(() => {
      if (inputs.relabel(api, random())) relabels++;
    }, relabelEveryMs);

    const schedule = faultSchedule({ seed: o.seed, extra: 100_000, gapMs: o.gapMs });
    const phaseEnd = Date.now() + o.faultPhaseMs;
    for (const [i, f] of schedule.entries()) {
      if (i >= FAULT_KINDS.length && Date.now() >= phaseEnd) break;
      await sleep(f.gapMs);
      progress(`[${elapsed()}] ${f.kind}${f.size ? ` (${f.size})` : ''}`);
      await inject(f);
      faultCounts.set(f.kind, (faultCounts.get(f.kind) ?? 0) + 1);
    }
    clearInterval(relabelTimer);
    const lastFault = Date.now();
    progress(`[${elapsed()}] last fault; waiting for the topology render gives`);
    await waitFor(async () => (render = await compareWithRender(api, inputs, dir)).equal, {
      timeoutMs: o.convergeDeadlineMs,
      intervalMs: 500,
      what: 'the topology render gives',
    }).then(
      () => (convergedMs = Date.now() - lastFault),
      () =>
        violations.push(
          `the topology differs from render's ${o.convergeDeadlineMs} ms after the last fault:\n${render?.diff.join('\n')}`,
        ),
    );
    fleet.sampleRss();
    monitor();
    for (const p of fleet.liveProcesses()) aliveAtEnd.add(p);
  } finally {
    clearInterval(monitorTimer);
    clearInterval(rssTimer);
    clearInterval(relabelTimer);
    await fleet.stop();
    await ufm.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const replicaRecords = api.requests.all(isReplica);
  violations.push(...writers.violations);
  violations.push(...unjustifiedDeletes(replicaRecords, seen, inputs.retiredRacks));
  violations.push(...fleet.problems);
  violations.push(...fleet.bugs());
  const rssLines = rssReport(fleet.processes, aliveAtEnd, warmedUpAt, o.checkRss, violations);

  const writes = new Map<string, number>();
  for (const r of replicaRecords.filter(isLeaderWrite)) {
    const what = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    writes.set(what, (writes.get(what) ?? 0) + 1);
  }
  const byKind = (kind: FaultKind) =>
    failovers.filter((f) => f.kind === kind).map((f) => `${(f.ms / 1000).toFixed(1)} s`);
  const summary = [
    `soak: seed ${o.seed}, ${inputs.nodes.length} Nodes, ${o.replicas} replicas, ${((Date.now() - t0) / 60_000).toFixed(1)} min in all (the machine is shared: timings are under load)`,
    `faults: ${FAULT_KINDS.map((k) => `${k} ${faultCounts.get(k) ?? 0}`).join(', ')}`,
    `inputs: ${relabels} relabels (${o.relabelPercentPerMinute} % of the Nodes a minute), racks retired: ${[...inputs.retiredRacks].join(', ') || 'none'}`,
    `writes by the replicas: ${[...writes].map(([w, n]) => `${n} ${w}`).join(', ') || 'none'}; writer handovers ${writers.handovers.length}`,
    `leadership: ${holders.length} holders in turn; failover after leader-kill ${byKind('leader-kill').join(', ') || '-'}; after leader-freeze ${byKind('leader-freeze').join(', ') || '-'}`,
    `exits: ${fleet.exits.killed} killed by the soak, ${fleet.exits.lostLease} "lost lease", ${fleet.exits.other} other; ${fleet.processes.length} processes in all`,
    `end state: ${convergedMs >= 0 ? `equal to render (${render?.expected} HyperNodes) ${(convergedMs / 1000).toFixed(1)} s after the last fault` : 'NOT equal to render'}`,
    ...rssLines,
    `invariants: ${violations.length === 0 ? 'all held' : `${violations.length} violated`}`,
  ].join('\n');
  return { violations, summary };
}

/**
 * RSS over time per process; with `check`, a process alive from warm-up to the end must end within 10 % of its RSS at
 * warm-up.
 */
function rssReport(
  processes: ReplicaProcess[],
  aliveAtEnd: ReadonlySet<ReplicaProcess>,
  warmedUpAt: number,
  check: boolean,
  violations: string[],
): string[] {
  const lines = ['RSS (MB) over time, per process (s since the process started: MB):'];
  for (const p of processes) {
    if (p.rss.length === 0) continue;
    const step = Math.max(1, Math.ceil(p.rss.length / 12));
    const samples = p.rss.filter((_, i) => i % step === 0 || i === p.rss.length - 1);
    lines.push(
      `  ${p.user.slice(REPLICA_USER.length - 'replica-'.length)}: ${samples.map((s) => `${Math.round((s.at - p.startedAt) / 1000)}:${s.mb.toFixed(0)}`).join(' ')}`,
    );
    const atWarmUp = p.rss.find((s) => s.at >= warmedUpAt);
    const last = p.rss.at(-1)!;
    if (!check || !atWarmUp || p.startedAt > warmedUpAt || !aliveAtEnd.has(p)) continue;
    const ratio = last.mb / atWarmUp.mb;
    lines.push(
      `    from warm-up to the end: ${atWarmUp.mb.toFixed(1)} → ${last.mb.toFixed(1)} MB (${((ratio - 1) * 100).toFixed(1)} %)`,
    );
    if (ratio > 1.1)
      violations.push(
        `${p.user}: RSS grew from ${atWarmUp.mb.toFixed(1)} MB after warm-up to ${last.mb.toFixed(1)} MB at the end`,
      );
  }
  return lines;
}
