// The ibnetdiscover source at the size of a large InfiniBand fabric: 2,048
// switches (1,024 leaves, 768 spines, 256 cores in 16 pods) and 65,536 HCAs
// (8,192 hosts with one HCA on each of 8 rails, 64 hosts a unit), as the
// real ibnetdiscover prints it (testing/ib-fabric.ts writes its default
// format byte for byte; tests/e2e/ibsim-lab.test.ts holds that to the real
// one). Prints:
//   - the output's size;
//   - `render --ibnetdiscover-capture` of the built executable on it: the CPU
//     time (user + system) and peak RSS of reading and grouping it, the worst
//     of `runs` runs;
//   - the executable running as the controller against the API server
//     stand-in with 8,192 Nodes, `--ibnetdiscover-command="cat <output>"` every
//     interval: its CPU over one interval of an unchanged fabric (the poll and
//     an idle wait), its peak RSS (VmHWM), and its HyperNode writes over
//     unchanged polls;
// against the targets: ≤ 2 s CPU, ≤ 250 MB RSS, 0 writes, each PASS or MISS.
//
// Run with: node --import tsx scripts/bench-ibnetdiscover.ts [runs=3]
// (build dist/ first: node scripts/build.mjs). It prints; it never fails on a figure.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../testing/apiserver/index.ts';
import { BINARY as binary } from '../testing/executables.ts';
import { IbFabric } from '../testing/ib-fabric.ts';
import { seriesValue } from '../testing/prometheus-text.ts';
import { discoveryConfigMap } from '../testing/sample-cluster.ts';
import { waitFor } from '../testing/wait.ts';
import { NAMESPACE, launchController, quietPolls } from './lib/bench-launch.ts';
// @ts-expect-error: a plain JavaScript module of the benchmarks
import { timedRender } from './lib/bench-render-child.mjs';

const TARGETS = { cpuMs: 2_000, rssMB: 250, quietWrites: 0 };
const RAILS = 8;
const HOSTS_PER_UNIT = 64;
const UNITS = 128;
const UNITS_PER_POD = 8;
const SPINES_PER_POD = 48;
const CORES = 256;
/** Cores each spine is cabled to: spine j of every pod reaches core group j mod 16. */
const CORES_PER_SPINE = 16;
const INTERVAL_S = 20;
const QUIET_POLLS = 2;
const CONVERGE_TIMEOUT_MS = 300_000;
const SCRAPE_EVERY_MS = 500;
/** Between two polls of the unchanged fabric, once the next one is due. */
const QUIET_SCRAPE_EVERY_MS = 1_000;

/** The fabric; hosts are Node names. */
function benchFabric(): { fabric: IbFabric; hosts: string[] } {
  const f = new IbFabric();
  const hosts: string[] = [];
  const pods = UNITS / UNITS_PER_POD;
  for (let c = 0; c < CORES; c++) f.addSwitch(`core-${c}`, 128, `MF0;IBCORE-${c}:MQM9700/U1`);
  for (let p = 0; p < pods; p++) {
    for (let j = 0; j < SPINES_PER_POD; j++) {
      const spine = `spine-${p}-${j}`;
      f.addSwitch(spine, 128, `MF0;IBSPINE-${p}-${j}:MQM9700/U1`);
      const group = j % (CORES / CORES_PER_SPINE);
      for (let k = 0; k < CORES_PER_SPINE; k++) f.cable(spine, `core-${group * CORES_PER_SPINE + k}`);
    }
  }
  for (let u = 0; u < UNITS; u++) {
    const pod = Math.floor(u / UNITS_PER_POD);
    for (let r = 0; r < RAILS; r++) {
      const leaf = `leaf-${u}-${r}`;
      f.addSwitch(leaf, 128, `MF0;IBLEAF-${r}-${u}:MQM9700/U1`);
      for (let j = 0; j < SPINES_PER_POD; j++) f.cable(leaf, `spine-${pod}-${j}`);
    }
    for (let h = 0; h < HOSTS_PER_UNIT; h++) {
      const host = `node-${String(u).padStart(3, '0')}-${String(h).padStart(2, '0')}`;
      hosts.push(host);
      for (let r = 0; r < RAILS; r++) {
        f.addCa(`${host} mlx5_${r}`);
        f.cable(`${host} mlx5_${r}`, `leaf-${u}-${r}`);
      }
    }
  }
  return { fabric: f, hosts };
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const work = mkdtempSync(join(tmpdir(), 'bench-ibnetdiscover-'));
  try {
    const { fabric, hosts } = benchFabric();
    const text = fabric.ibnetdiscoverText({ speed: 'NDR', port0: 'enhanced', vendorId: '0x2c9' });
    const output = join(work, 'fabric.txt');
    writeFileSync(output, text);
    const switches = [...fabric.nodes.values()].filter((n) => n.kind === 'switch').length;
    console.log(
      `fabric: ${switches} switches, ${fabric.nodes.size - switches} HCAs (${hosts.length} hosts, ${RAILS} rails), ${fabric.cables.length} cables; output ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB, ${text.split('\n').length} lines`,
    );
    // The program is the operator's flag (here `cat` of the saved output); the ConfigMap names only ibnetdiscover.
    const conf = `networkTopologyDiscovery:
  - source: ibnetdiscover
    enabled: true
    interval: ${INTERVAL_S}s
    config:
      fabric: bench
      command: [ibnetdiscover]
      hcas: "^mlx5_[0-7]$"
`;
    const confFile = join(work, 'conf.yaml');
    writeFileSync(confFile, conf);
    const nodesFile = join(work, 'nodes.json');
    writeFileSync(
      nodesFile,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: hosts.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })),
      }),
    );

    // 1. Read and group, in a render of the executable.
    const renders: { cpuMs: number; rssMb: number }[] = [];
    for (let i = 0; i < runs; i++) {
      const { hyperNodes, cpuMs, rssMb } = timedRender(binary, [
        '--config',
        confFile,
        '--nodes',
        nodesFile,
        '--ibnetdiscover-capture',
        `bench=${output}`,
      ]);
      const tiers = [...new Set((hyperNodes as { spec: { tier: number } }[]).map((h) => h.spec.tier))].join(',');
      renders.push({ cpuMs, rssMb });
      console.log(
        `render ${i + 1}: ${hyperNodes.length} HyperNodes (tiers ${tiers}), CPU ${cpuMs} ms, peak RSS ${rssMb} MB`,
      );
    }
    const render = { cpuMs: Math.max(...renders.map((r) => r.cpuMs)), rssMb: Math.max(...renders.map((r) => r.rssMb)) };

    // 2. The controller polling the unchanged fabric.
    const api = await startApiServer({ namespaces: [NAMESPACE] });
    try {
      for (const name of hosts) api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
      api.store.create(discoveryConfigMap(NAMESPACE, conf));
      const { controller } = await launchController(
        api,
        work,
        binary,
        { qps: 300, burst: 600 },
        { flags: { 'ibnetdiscover-command': `cat ${output}` } },
      );
      try {
        /** A series of the controller's metrics, 0 while it is not there yet. */
        const metric = async (name: string, labels: Record<string, string>) => {
          try {
            return seriesValue(await controller.metrics(), name, labels);
          } catch {
            return 0;
          }
        };
        const lastSuccess = () =>
          metric('hypernode_discovery_last_success_timestamp_seconds', { source: 'ibnetdiscover' });
        const managed = () => metric('hypernode_managed', { source: 'ibnetdiscover' });
        await waitFor(async () => (await lastSuccess()) > 0 || undefined, {
          timeoutMs: CONVERGE_TIMEOUT_MS,
          intervalMs: SCRAPE_EVERY_MS,
          what: 'the first poll',
        });
        const written = () => api.store.list('hypernodes').length;
        await waitFor(async () => (written() > 0 && (await managed()) === written()) || undefined, {
          timeoutMs: CONVERGE_TIMEOUT_MS,
          intervalMs: SCRAPE_EVERY_MS,
          what: 'every HyperNode written',
        });
        const pollS = await metric('hypernode_fabric_poll_duration_seconds', {
          source: 'ibnetdiscover',
          fabric: 'bench',
        });
        console.log(
          `controller: ${written()} HyperNodes written; a poll (run, read, group) takes ${pollS.toFixed(2)} s of wall time`,
        );
        const { intervalCpuMs, quietWrites } = await quietPolls(api, controller, {
          source: 'ibnetdiscover',
          intervalS: INTERVAL_S,
          polls: QUIET_POLLS,
          scrapeEveryMs: QUIET_SCRAPE_EVERY_MS,
        });
        const mem = controller.memory();
        console.log(
          `controller CPU over one ${INTERVAL_S} s interval of the unchanged fabric (a poll and an idle wait): ${intervalCpuMs} ms`,
        );
        console.log(`controller VmRSS ${mem.rssMB.toFixed(0)} MB (peak VmHWM ${mem.hwmMB.toFixed(0)} MB)`);
        console.log(`HyperNode writes over ${QUIET_POLLS} unchanged polls: ${quietWrites}`);
        console.log(
          `load average: ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')} on ${cpus().length} cores`,
        );
        console.log(
          `targets: read and group (render) ≤ ${TARGETS.cpuMs} ms CPU ${verdict(render.cpuMs <= TARGETS.cpuMs)} (${render.cpuMs} ms); render peak RSS ≤ ${TARGETS.rssMB} MB ${verdict(render.rssMb <= TARGETS.rssMB)} (${render.rssMb} MB); controller quiet interval ≤ ${TARGETS.cpuMs} ms CPU ${verdict(intervalCpuMs <= TARGETS.cpuMs)} (${intervalCpuMs} ms); controller peak RSS ≤ ${TARGETS.rssMB} MB ${verdict(mem.hwmMB <= TARGETS.rssMB)} (${mem.hwmMB.toFixed(0)} MB); writes on an unchanged poll = ${TARGETS.quietWrites} ${verdict(quietWrites === TARGETS.quietWrites)} (${quietWrites})`,
        );
      } catch (err) {
        console.error(`--- controller log tail ---\n${controller.log}`);
        throw err;
      } finally {
        await controller.stop();
      }
    } finally {
      await api.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
