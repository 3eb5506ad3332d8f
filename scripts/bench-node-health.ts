// Node health at scale (docs/health.md): the built executable with
// `health: {nodes: true}` against the API server stand-in, 100,000 Nodes by
// default in the 4-tier label topology of bench-scale.ts (zone → spine →
// rack → hostname), each Node with a kubelet-like status (Ready and the four
// pressure conditions, addresses, capacity, allocatable, nodeInfo; no image
// list). Once per write latency of the stand-in (default 0 and 10 ms a
// write, what a real server takes) it prints, one line each:
//   - start → /readyz 200, and → every HyperNode NodesReady=True, with the
//     three figures of a write benchmark over the writes that took (the
//     first HyperNode write → the last NodesReady=True): writes a second, the
//     window against the QPS bound of the writes it needs (a create and one
//     status write, count and condition together, per HyperNode), and
//     against the latency bound of writing them one at a time;
//   - VmRSS at steady state (after the first judgement) and its peak;
//   - controller CPU per second of wall time under a Node status churn of
//     CHURN_PER_S updates a second (heartbeat times moving, as kubelets'
//     status reports do; nothing flips), and the HyperNode writes it caused;
//   - the HyperNode status writes when 1 % of the Nodes turn NotReady at
//     once, the HyperNodes that must be marked, and the time until they are;
// then PASS/MISS against the targets. It prints; it never fails on a figure.
//
// Run with: node --import tsx scripts/bench-node-health.ts [nodes=100000] [churn-seconds=30] [--write-latency-ms=0,10]
//   [--qps=300] [--burst=600]
// (build dist/ first: node scripts/build.mjs).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HYPERNODE_RESOURCE } from '../src/hypernode/model/hypernode-types.ts';
import {
  SAMPLE_DISCOVERY_CONFIG,
  discoveryConfigMap,
  expectedHyperNodeCount,
  type SampleNode,
  type SampleShape,
} from '../testing/sample-cluster.ts';
import { memberNames } from '../testing/hypernode-members.ts';
import { waitFor } from '../testing/wait.ts';
import { benchNodes } from './lib/bench-cluster.ts';
import {
  NAMESPACE,
  benchRound,
  describeWriteFigures,
  flagValue,
  isControllerHyperNodeWrite,
  launchController,
  qpsRatio,
  whenHyperNodes,
  writeFigures,
  writeLatenciesArg,
  type RateLimit,
} from './lib/bench-launch.ts';
import { verdictSummary, type Verdict } from './lib/bench-stats.ts';

/** The bench-scale rate limit: 100,000 Nodes' HyperNodes and their first conditions converge in a minute or two. */
const RATE_LIMIT = { qps: 300, burst: 600 };
/** What kubelets' five-minute status reports produce at 100,000 Nodes: 100,000 / 300 s ≈ 333 a second. */
const CHURN_PER_S = 350;
const CHURN_TICK_MS = 100;
const FLIP_SHARE = 0.01;
/** Node updates the stand-in applies between turns of its event loop during the flip. */
const FLIP_BATCH = 50;
const SETTLE_MS = 5_000;
const CONVERGE_TIMEOUT_MS = 900_000;
/** The first judgement took 124 s with two status writers meeting in 409s: within 1.3x of the QPS bound now. */
const TARGETS = { rssMB: 250, readyMs: 5_000, judgedBoundRatio: 1.3 };

const root = fileURLToPath(new URL('..', import.meta.url));
const binary = join(root, 'dist/vc-hypernode-controller-manager');
const HEALTH_CONFIG = `${SAMPLE_DISCOVERY_CONFIG}health:\n  nodes: true\n`;

const fourTier = (nodes: number): SampleShape => ({
  zones: Math.max(1, Math.round(nodes / 1000)),
  spinesPerZone: 5,
  racksPerSpine: 10,
  nodesPerRack: 20,
});

interface StoredHn {
  metadata: { name: string };
  spec: { tier: number; members?: Array<{ type: string; selector: { exactMatch?: { name: string } } }> };
  status?: { nodeCount?: number; conditions?: Array<{ type: string; status: string }> };
}
const readyStatus = (hn: StoredHn) => hn.status?.conditions?.find((c) => c.type === 'NodesReady')?.status;
const judged = (hn: StoredHn) => readyStatus(hn) === 'True' && (hn.status?.nodeCount ?? 0) === memberNames(hn).length;

/** A kubelet-like status; `heartbeat` moves with every report. */
function withStatus(n: SampleNode, ready: 'True' | 'False', heartbeat: string) {
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status,
    reason,
    message: `kubelet ${reason}`,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: '2026-12-01T00:00:00Z',
  });
  return {
    ...n,
    spec: { podCIDR: '10.0.0.0/24', providerID: `bench://${n.metadata.name}` },
    status: {
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
        condition('NetworkUnavailable', 'False', 'RouteCreated'),
        condition('Ready', ready, ready === 'True' ? 'KubeletReady' : 'KubeletNotReady'),
      ],
      addresses: [
        { type: 'InternalIP', address: '10.1.2.3' },
        { type: 'Hostname', address: n.metadata.name },
      ],
      capacity: {
        cpu: '128',
        memory: '2113632484Ki',
        'nvidia.com/gpu': '8',
        pods: '110',
        'ephemeral-storage': '7650410852Ki',
      },
      allocatable: {
        cpu: '127',
        memory: '2103146724Ki',
        'nvidia.com/gpu': '8',
        pods: '110',
        'ephemeral-storage': '7050616741684',
      },
      nodeInfo: {
        machineID: 'f0e1d2c3b4a5968778695a4b3c2d1e0f',
        systemUUID: '4c4c4544-0047-3510-8036-b4c04f4e4d32',
        bootID: '0b6c2d5e-6e8f-4b1a-9d2c-3e4f5a6b7c8d',
        kernelVersion: '6.8.0-49-generic',
        osImage: 'Ubuntu 24.04.1 LTS',
        containerRuntimeVersion: 'containerd://1.7.22',
        kubeletVersion: 'v1.31.2',
        kubeProxyVersion: 'v1.31.2',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

async function main(): Promise<void> {
  const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const flag = (name: string) => flagValue(process.argv, name);
  const count = Number(positional[0] ?? 100_000);
  const churnS = Number(positional[1] ?? 30);
  const limit: RateLimit = {
    qps: Number(flag('qps') ?? RATE_LIMIT.qps),
    burst: Number(flag('burst') ?? RATE_LIMIT.burst),
  };
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run node scripts/build.mjs first`);
  const verdicts: Verdict[] = [];
  for (const latency of writeLatenciesArg(process.argv))
    verdicts.push(...(await measure(count, churnS, limit, latency)));
  console.log(`\n${verdictSummary(`Targets at ${count.toLocaleString('en')} Nodes:`, verdicts)}`);
}

async function measure(count: number, churnS: number, limit: RateLimit, writeLatencyMs: number): Promise<Verdict[]> {
  const shape = fourTier(count);
  const nodes = benchNodes(shape);
  const expected = expectedHyperNodeCount(shape);
  const of = `(${writeLatencyMs} ms a write)`;
  console.log(
    `\nNode health benchmark on ${binary}: ${nodes.length} Nodes, ${expected} HyperNodes, health.nodes on, qps=${limit.qps} burst=${limit.burst}, ${writeLatencyMs} ms a write on the stand-in.`,
  );
  console.log(
    'The machine is shared with other work running at the same time: wall times and CPU figures are under that load.',
  );
  return benchRound(
    'bench-node-health-',
    async (round) => {
      const { api, work } = round;
      for (const n of nodes) api.store.create(withStatus(n, 'True', '2026-12-01T00:00:00Z'));
      api.store.create(discoveryConfigMap(NAMESPACE, HEALTH_CONFIG));
      const judgedAll = whenHyperNodes(api, expected, (hn) => judged(hn as unknown as StoredHn));
      const launched = await launchController(api, work, binary, limit);
      const controller = (round.controller = launched.controller);
      const c = controller;
      await waitFor(async () => (await fetch(`${launched.healthUrl}/readyz`).catch(() => undefined))?.status === 200, {
        timeoutMs: 120_000,
        intervalMs: 10,
        what: '/readyz 200',
      });
      const readyMs = performance.now() - launched.started;
      const hyperNodes = () => api.store.list(HYPERNODE_RESOURCE) as unknown as StoredHn[];
      /** Waits for `probe`, or ends the run at once (with the controller's log) when the controller exits. */
      const until = async (probe: () => boolean, what: string, intervalMs: number) => {
        await waitFor(() => c.exitCode !== null || probe(), { timeoutMs: CONVERGE_TIMEOUT_MS, intervalMs, what });
        if (c.exitCode !== null) throw new Error(`the controller exited with ${c.exitCode} while waiting for ${what}`);
      };
      await until(
        () => judgedAll.at() !== undefined,
        `${expected} HyperNodes with NodesReady=True and their nodeCount`,
        100,
      );
      judgedAll.stop();
      const judgedAt = judgedAll.at()!;
      const judgedMs = judgedAt - launched.spawnedAt;
      const firstWrites = api.requests.writes(
        (r) => isControllerHyperNodeWrite(r) && Date.parse(r.time) <= judgedAt && r.code !== 429,
      );
      const firstWriteAt = Date.parse(firstWrites[0]!.time);
      // A create and one status write (count and condition together) per HyperNode.
      const figures = writeFigures(firstWrites, judgedAt - firstWriteAt, limit, 2 * expected);
      console.log(
        `start → ready ${readyMs.toFixed(0)} ms; → every HyperNode NodesReady=True ${(judgedMs / 1000).toFixed(1)} s`,
      );
      console.log(
        `  first HyperNode write → every HyperNode judged: ${describeWriteFigures(figures, limit)} (${2 * expected} needed)`,
      );
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const steady = c.memory();
      console.log(`RSS at steady state ${steady.rssMB.toFixed(1)} MB (peak ${steady.hwmMB.toFixed(1)} MB)`);

      // Churn: heartbeats move, nothing flips.
      const writesBeforeChurn = api.requests.writes(isControllerHyperNodeWrite).length;
      const cpuBefore = c.cpuMs();
      const churnStart = performance.now();
      let updates = 0;
      let i = 0;
      while (performance.now() - churnStart < churnS * 1000) {
        const tickStart = performance.now();
        const due = Math.floor(((tickStart - churnStart) / 1000) * CHURN_PER_S) - updates;
        const heartbeat = new Date().toISOString().slice(0, 19) + 'Z';
        for (let k = 0; k < due; k++, i++)
          api.store.update(withStatus(nodes[(i * 7919) % nodes.length]!, 'True', heartbeat) as never);
        updates += Math.max(0, due);
        await new Promise((r) => setTimeout(r, Math.max(0, CHURN_TICK_MS - (performance.now() - tickStart))));
      }
      const churnWallS = (performance.now() - churnStart) / 1000;
      const churnCpuMsPerS = (c.cpuMs() - cpuBefore) / churnWallS;
      const churnWrites = api.requests.writes(isControllerHyperNodeWrite).length - writesBeforeChurn;
      const afterChurn = c.memory();
      console.log(
        `churn: ${updates} Node status updates in ${churnWallS.toFixed(1)} s (${(updates / churnWallS).toFixed(0)}/s) → controller CPU ${churnCpuMsPerS.toFixed(0)} ms/s, ${churnWrites} HyperNode writes, RSS after ${afterChurn.rssMB.toFixed(1)} MB`,
      );

      // 1 % of the Nodes turn NotReady at once.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const flipped = new Set<string>();
      for (let k = 0; flipped.size < Math.round(nodes.length * FLIP_SHARE); k++)
        flipped.add(nodes[(k * 104729 + 17) % nodes.length]!.metadata.name);
      const all = hyperNodes();
      const racks = all.filter((hn) => memberNames(hn).some((m) => flipped.has(m)));
      const marked = new Set(racks.map((hn) => hn.metadata.name));
      for (let grown = true; grown; ) {
        grown = false;
        for (const hn of all)
          if (!marked.has(hn.metadata.name) && memberNames(hn).some((m) => marked.has(m)))
            marked.add(hn.metadata.name), (grown = true);
      }
      const writesBeforeFlip = api.requests.writes(isControllerHyperNodeWrite).length;
      // Followed write by write: listing 5,600 HyperNodes every few ms would take the stand-in's CPU.
      const marking = whenHyperNodes(
        api,
        all.length,
        (hn) => readyStatus(hn as unknown as StoredHn) === (marked.has(hn.metadata.name) ? 'False' : 'True'),
      );
      const flipStartedAt = Date.now();
      const heartbeat = new Date().toISOString().slice(0, 19) + 'Z';
      // As kubelets report: all within a fraction of a second, the stand-in's event loop (the API server's) free
      // between batches.
      const toFlip = nodes.filter((n) => flipped.has(n.metadata.name));
      for (let k = 0; k < toFlip.length; k += FLIP_BATCH) {
        for (const n of toFlip.slice(k, k + FLIP_BATCH)) api.store.update(withStatus(n, 'False', heartbeat) as never);
        await new Promise((r) => setImmediate(r));
      }
      await until(() => marking.at() !== undefined, `${marked.size} HyperNodes NodesReady=False`, 50);
      marking.stop();
      const flipMs = marking.at()! - flipStartedAt;
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const flipWrites = api.requests.writes(isControllerHyperNodeWrite).slice(writesBeforeFlip);
      const statusWrites = flipWrites.filter((r) => r.subresource === 'status').length;
      console.log(
        `1 % flip: ${flipped.size} Nodes NotReady → ${marked.size} HyperNodes above them marked in ${(flipMs / 1000).toFixed(1)} s with ${statusWrites} status writes (${flipWrites.length - statusWrites} other HyperNode writes, ${(statusWrites / marked.size).toFixed(2)} per marked HyperNode)`,
      );

      const judgedRatio = qpsRatio(figures);
      return [
        {
          figure: `RSS at steady state ${of}`,
          measured: `${steady.rssMB.toFixed(1)} MB`,
          target: `<= ${TARGETS.rssMB} MB`,
          pass: steady.rssMB <= TARGETS.rssMB,
        },
        {
          figure: `start → ready ${of}`,
          measured: `${readyMs.toFixed(0)} ms`,
          target: `<= ${TARGETS.readyMs} ms`,
          pass: readyMs <= TARGETS.readyMs,
        },
        {
          figure: `every HyperNode NodesReady=True / QPS bound of the writes it needs ${of}`,
          measured: `${judgedRatio.toFixed(2)}x`,
          target: `<= ${TARGETS.judgedBoundRatio}x`,
          pass: judgedRatio <= TARGETS.judgedBoundRatio,
        },
        {
          figure: `HyperNode writes under status churn ${of}`,
          measured: String(churnWrites),
          target: '0',
          pass: churnWrites === 0,
        },
        {
          figure: `status writes per marked HyperNode (1 % flip) ${of}`,
          measured: (statusWrites / marked.size).toFixed(2),
          target: '1.00',
          pass: statusWrites === marked.size,
        },
      ];
    },
    { writeLatencyMs },
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench-node-health failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
