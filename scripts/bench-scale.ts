// How the controller's costs grow with the cluster: the built executable
// against the API server stand-in at 1,000 / 10,000 / 30,000 / 65,000 / 100,000 Nodes
// in a 4-tier label topology (zone → spine → rack → hostname; 1,000 Nodes a
// zone, 5 spines a zone, 10 racks a spine, 20 Nodes a rack), and a shape with
// ~10,000 HyperNodes for 6,000 Nodes (one Node a rack, two racks a spine).
// Per size it prints:
//   - start → /readyz 200 (leading, caches synced);
//   - label discovery CPU, cold and median, and reconciling an unchanged
//     snapshot (in this process, over informer-like caches);
//   - converge from empty: from start, and the write window (first HyperNode
//     write → converged) against the client rate limit's bound for those
//     writes (start → ready has its own column and target);
//   - HyperNode writes while nothing changes (must be 0);
//   - VmRSS at steady state (page cache state stated) and its peak (VmHWM:
//     a whole list of 100,000 Nodes is read and parsed at once at start);
//   - relabel → HyperNode members updated, p50/p99;
//   - idle CPU per minute;
// then the growth exponent of each figure against the Node count (the slope
// of a least-squares fit in log-log space over the 4-tier sizes): 1 is
// linear, above 1 grows faster than the cluster; and PASS/MISS against the
// targets at 65,000 Nodes, start → ready and RSS at 100,000 (the first Node
// list is one answer from the watch cache, as client-go asks for it), and RSS
// at 10,000.
//
// Run with: node --import tsx scripts/bench-scale.ts [sizes=1000,10000,30000,65000,100000] [relabels=20] [idle-seconds=30]
// (build dist/ first: node scripts/build.mjs). It prints; it never fails on a figure.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HYPERNODE_RESOURCE } from '../src/hypernode/model/hypernode-types.ts';
import { RACK_LABEL, SAMPLE_DISCOVERY_CONFIG, discoveryConfigMap, expectedHyperNodeCount, type SampleShape } from '../testing/sample-cluster.ts';
import { waitFor } from '../testing/wait.ts';
import { benchNodes } from './lib/bench-cluster.ts';
import { NAMESPACE, benchRound, isControllerHyperNodeWrite, launchController, rateLimitBoundMs } from './lib/bench-launch.ts';
import { measureDiscoveryCpu } from './lib/bench-discovery-cpu.ts';
import { percentile, verdictSummary, type Verdict } from './lib/bench-stats.ts';

/** Higher than the defaults (50/100) so that 65,000 Nodes converge in a minute; the bound below uses these. */
const QPS = 300;
const BURST = 600;
const RATE_LIMIT = { qps: QPS, burst: BURST };
const DISCOVERY_RUNS = 9;
const DISCOVERY_WARMUP = 3;
const CONVERGE_TIMEOUT_MS = 600_000;
const QUIET_MS = 5_000;

/** Targets at the largest size (65,000 Nodes), and RSS at 10,000 (the 10,000-Node figure before this benchmark). */
const TARGETS = { nodes: 65_000, readyMs: 5_000, discoveryCpuMs: 250, rssMB: 250, relabelP99Ms: 1_000, quietWrites: 0, boundRatio: 1.05 };
const TARGET_RSS_AT_10K = { nodes: 10_000, rssMB: 115 };
/** At 100,000 Nodes a real server took the paged lists 9.1 s to ready; one resourceVersion=0 list must do it in 5 s. */
const TARGETS_AT_100K = { nodes: 100_000, readyMs: 5_000, rssMB: 250 };

const root = fileURLToPath(new URL('..', import.meta.url));
const binary = join(root, 'dist/vc-hypernode-controller-manager');

interface Figures {
  label: string;
  nodes: number;
  hyperNodes: number;
  readyMs: number;
  discoveryColdMs: number;
  discoveryMedianMs: number;
  reconcileUnchangedMs: number;
  convergeMs: number;
  /** First HyperNode write → converged. */
  writeWindowMs: number;
  boundMs: number;
  quietWrites: number;
  rssMB: number;
  peakRssMB: number;
  relabelP50Ms: number;
  relabelP99Ms: number;
  idleCpuMsPerMin: number;
}

const fourTier = (nodes: number): SampleShape => ({ zones: Math.max(1, Math.round(nodes / 1000)), spinesPerZone: 5, racksPerSpine: 10, nodesPerRack: 20 });
/** ~6,000 Nodes, ~9,300 HyperNodes: one Node a rack, two racks a spine, as a reported Volcano cluster. */
const MANY_HYPERNODES: SampleShape = { zones: 300, spinesPerZone: 10, racksPerSpine: 2, nodesPerRack: 1 };

interface StoredHn {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { members?: Array<{ selector: { exactMatch?: { name: string } } }> };
  status?: { nodeCount?: number };
}
const members = (hn: StoredHn) => (hn.spec.members ?? []).flatMap((m) => (m.selector.exactMatch ? [m.selector.exactMatch.name] : []));

async function measure(label: string, shape: SampleShape, relabels: number, idleS: number): Promise<Figures> {
  const nodes = benchNodes(shape);
  const expected = expectedHyperNodeCount(shape);
  const discovery = await measureDiscoveryCpu(nodes, SAMPLE_DISCOVERY_CONFIG, DISCOVERY_RUNS, DISCOVERY_WARMUP);
  return benchRound('bench-scale-', async (round) => {
    const { api, work } = round;
    for (const n of nodes) api.store.create(n);
    api.store.create(discoveryConfigMap(NAMESPACE, SAMPLE_DISCOVERY_CONFIG));
    const launched = await launchController(api, work, binary, RATE_LIMIT);
    const { started, pageCacheDropped: dropped } = launched;
    const controller = (round.controller = launched.controller);
    const c = controller;
    await waitFor(async () => (await fetch(`${launched.healthUrl}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000, intervalMs: 10, what: '/readyz 200' });
    const readyMs = performance.now() - started;
    await waitFor(
      () => {
        const hns = api.store.list(HYPERNODE_RESOURCE) as unknown as StoredHn[];
        return hns.length === expected && hns.every((hn) => (hn.status?.nodeCount ?? 0) === members(hn).length);
      },
      { timeoutMs: CONVERGE_TIMEOUT_MS, intervalMs: 100, what: `${expected} HyperNodes` },
    );
    const convergeMs = performance.now() - started;
    const hyperNodeWrites = api.requests.writes(isControllerHyperNodeWrite);
    const writes = hyperNodeWrites.length;
    const firstWriteMs = hyperNodeWrites[0] ? Date.parse(hyperNodeWrites[0].time) - launched.spawnedAt : 0;

    // Nothing changes: no HyperNode write, and the idle CPU.
    await new Promise((r) => setTimeout(r, QUIET_MS));
    const writesBefore = api.requests.writes(isControllerHyperNodeWrite).length;
    const cpuBefore = c.cpuMs();
    await new Promise((r) => setTimeout(r, idleS * 1000));
    const idleCpuMsPerMin = ((c.cpuMs() - cpuBefore) / idleS) * 60;
    const quietWrites = api.requests.writes(isControllerHyperNodeWrite).length - writesBefore;
    const { rssMB, hwmMB: peakRssMB } = c.memory();

    // Relabels: a Node to the next rack of its spine, until both rack HyperNodes show it.
    const rackHn = new Map<string, string>();
    for (const hn of api.store.list(HYPERNODE_RESOURCE) as unknown as StoredHn[]) {
      const rack = hn.metadata.labels?.[RACK_LABEL];
      if (rack !== undefined) rackHn.set(rack, hn.metadata.name);
    }
    const latencies: number[] = [];
    for (let j = 0; j < relabels && shape.racksPerSpine > 1; j++) {
      const node = nodes[(j * 7919 + 13) % nodes.length]!;
      const stored = api.store.get('nodes', node.metadata.name) as typeof node;
      const from = stored.metadata.labels[RACK_LABEL]!;
      const rack = Number(from.slice('rack-'.length));
      const to = `rack-${rack - (rack % shape.racksPerSpine) + ((rack + 1) % shape.racksPerSpine)}`;
      const t = performance.now();
      api.store.update({ ...stored, metadata: { ...stored.metadata, labels: { ...stored.metadata.labels, [RACK_LABEL]: to } } });
      const get = (name: string) => api.store.get(HYPERNODE_RESOURCE, name) as unknown as StoredHn | undefined;
      // With one Node a rack, the move empties the old rack and its HyperNode goes.
      await waitFor(
        () =>
          members(get(rackHn.get(to)!) ?? { metadata: { name: '' }, spec: {} }).includes(node.metadata.name) &&
          !members(get(rackHn.get(from)!) ?? { metadata: { name: '' }, spec: {} }).includes(node.metadata.name),
        { timeoutMs: 30_000, intervalMs: 2, what: 'relabel' },
      );
      latencies.push(performance.now() - t);
    }
    console.log(`   (${label}: page cache ${dropped ? 'emptied before start' : 'NOT emptied (not root): file-backed RSS includes the freshly built binary'})`);
    return {
      label,
      nodes: nodes.length,
      hyperNodes: expected,
      readyMs,
      discoveryColdMs: discovery.coldMs,
      discoveryMedianMs: Math.max(discovery.emptyCacheMedianMs, discovery.fullCacheMedianMs),
      reconcileUnchangedMs: discovery.reconcileUnchangedMedianMs,
      convergeMs,
      writeWindowMs: convergeMs - firstWriteMs,
      boundMs: rateLimitBoundMs(writes, RATE_LIMIT),
      quietWrites,
      rssMB,
      peakRssMB,
      relabelP50Ms: percentile(latencies, 50),
      relabelP99Ms: percentile(latencies, 99),
      idleCpuMsPerMin,
    };
  });
}

/** Least-squares slope of log(y) over log(x). */
function exponent(xs: number[], ys: number[]): number {
  const lx = xs.map(Math.log);
  const ly = ys.map((y) => Math.log(Math.max(y, 1e-3)));
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < lx.length; i++) {
    num += (lx[i]! - mx) * (ly[i]! - my);
    den += (lx[i]! - mx) ** 2;
  }
  return num / den;
}

const COLUMNS: Array<[string, (f: Figures) => string, keyof Figures | undefined]> = [
  ['Nodes', (f) => String(f.nodes), undefined],
  ['HyperNodes', (f) => String(f.hyperNodes), 'hyperNodes'],
  ['ready ms', (f) => f.readyMs.toFixed(0), 'readyMs'],
  ['disc cold ms', (f) => f.discoveryColdMs.toFixed(1), 'discoveryColdMs'],
  ['disc med ms', (f) => f.discoveryMedianMs.toFixed(1), 'discoveryMedianMs'],
  ['reconcile ms', (f) => f.reconcileUnchangedMs.toFixed(1), 'reconcileUnchangedMs'],
  ['converge s', (f) => (f.convergeMs / 1000).toFixed(1), 'convergeMs'],
  // No growth exponent: the window is set by the rate limit, (writes − burst) / qps, which is what /bound compares it with.
  ['writes s', (f) => (f.writeWindowMs / 1000).toFixed(1), undefined],
  ['bound s', (f) => (f.boundMs / 1000).toFixed(1), undefined],
  ['/bound', (f) => boundRatio(f), undefined],
  ['quiet writes', (f) => String(f.quietWrites), undefined],
  ['RSS MB', (f) => f.rssMB.toFixed(1), 'rssMB'],
  ['peak MB', (f) => f.peakRssMB.toFixed(1), 'peakRssMB'],
  ['relabel p50', (f) => f.relabelP50Ms.toFixed(0), 'relabelP50Ms'],
  ['relabel p99', (f) => f.relabelP99Ms.toFixed(0), 'relabelP99Ms'],
  ['idle CPU ms/min', (f) => f.idleCpuMsPerMin.toFixed(0), 'idleCpuMsPerMin'],
];

/** The write window over the rate limit's bound; '-' when the burst alone covers the writes. */
function boundRatio(f: Figures): string {
  return f.boundMs > 0 ? (f.writeWindowMs / f.boundMs).toFixed(2) : '-';
}

function verdicts(rows: readonly Figures[]): Verdict[] {
  const out: Verdict[] = [];
  const at10k = rows.find((r) => r.nodes === TARGET_RSS_AT_10K.nodes);
  if (at10k)
    out.push({ figure: 'RSS at 10,000 Nodes', measured: `${at10k.rssMB.toFixed(1)} MB`, target: `< ${TARGET_RSS_AT_10K.rssMB} MB`, pass: at10k.rssMB < TARGET_RSS_AT_10K.rssMB });
  const at100k = rows.find((r) => r.nodes === TARGETS_AT_100K.nodes);
  if (at100k) {
    out.push(
      {
        figure: 'start → ready at 100,000 Nodes',
        measured: `${at100k.readyMs.toFixed(0)} ms`,
        target: `<= ${TARGETS_AT_100K.readyMs} ms`,
        pass: at100k.readyMs <= TARGETS_AT_100K.readyMs,
      },
      { figure: 'RSS at 100,000 Nodes', measured: `${at100k.rssMB.toFixed(1)} MB`, target: `<= ${TARGETS_AT_100K.rssMB} MB`, pass: at100k.rssMB <= TARGETS_AT_100K.rssMB },
    );
  }
  const top = rows.find((r) => r.nodes === TARGETS.nodes);
  if (!top) return out;
  const discoveryMs = Math.max(top.discoveryColdMs, top.discoveryMedianMs);
  const ratio = top.writeWindowMs / top.boundMs;
  out.push(
    { figure: 'start → ready', measured: `${top.readyMs.toFixed(0)} ms`, target: `<= ${TARGETS.readyMs} ms`, pass: top.readyMs <= TARGETS.readyMs },
    {
      figure: 'label discovery CPU, cold and median',
      measured: `${discoveryMs.toFixed(1)} ms`,
      target: `< ${TARGETS.discoveryCpuMs} ms`,
      pass: discoveryMs < TARGETS.discoveryCpuMs,
    },
    { figure: 'RSS at steady state', measured: `${top.rssMB.toFixed(1)} MB`, target: `< ${TARGETS.rssMB} MB`, pass: top.rssMB < TARGETS.rssMB },
    {
      figure: 'relabel → HyperNode updated, p99',
      measured: `${top.relabelP99Ms.toFixed(0)} ms`,
      target: `< ${TARGETS.relabelP99Ms} ms`,
      pass: top.relabelP99Ms < TARGETS.relabelP99Ms,
    },
    { figure: 'writes per unchanged round', measured: String(top.quietWrites), target: String(TARGETS.quietWrites), pass: top.quietWrites === TARGETS.quietWrites },
    { figure: 'write window / QPS bound', measured: `${ratio.toFixed(2)}x`, target: `<= ${TARGETS.boundRatio}x`, pass: ratio <= TARGETS.boundRatio },
  );
  return out;
}

function table(rows: Figures[]): string {
  const cells = [['', ...COLUMNS.map(([h]) => h)], ...rows.map((f) => [f.label, ...COLUMNS.map(([, get]) => get(f))])];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => c.padStart(widths[i]!)).join('  ')).join('\n');
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '1000,10000,30000,65000,100000').split(',').map(Number);
  const relabels = Number(process.argv[3] ?? 20);
  const idleS = Number(process.argv[4] ?? 30);
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run node scripts/build.mjs first`);
  console.log(`Scale benchmark on ${binary}, qps=${QPS} burst=${BURST}, node ${process.version} for the in-process discovery CPU.`);
  console.log('The machine is shared with other work running at the same time: wall times and CPU figures are under that load.\n');
  const rows: Figures[] = [];
  for (const n of sizes) {
    rows.push(await measure(`4-tier ${n}`, fourTier(n), relabels, idleS));
    console.log(table(rows.slice(-1)).split('\n')[1]);
  }
  const extra = await measure('~10k HyperNodes', MANY_HYPERNODES, relabels, idleS);
  console.log(`\n${table([...rows, extra])}\n`);
  if (rows.length >= 2) {
    const xs = rows.map((r) => r.nodes);
    console.log('Growth exponents against the Node count (log-log least-squares slope over the 4-tier sizes; 1 = linear):');
    for (const [name, , key] of COLUMNS) {
      if (!key) continue;
      const e = exponent(
        xs,
        rows.map((r) => r[key] as number),
      );
      console.log(`  ${name.padEnd(16)} ${e.toFixed(2)}${e > 1.1 ? '  ← above linear' : ''}`);
    }
  }
  const checked = verdicts(rows);
  if (checked.length > 0)
    console.log(
      `\n${verdictSummary(`Targets at ${TARGETS.nodes.toLocaleString('en')} Nodes (ready and RSS also at 100,000, RSS at ${TARGET_RSS_AT_10K.nodes.toLocaleString('en')}):`, checked)}`,
    );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench-scale failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
