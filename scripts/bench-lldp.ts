// The lldp source at the scale docs/running.md reports: a 64-unit, 8-rail, three-tier
// fabric (scripts/bench-lldp-fabric.ts; 8,192 hosts, 1,280 switches) whose
// switches are served by the SNMP stand-in (one UDP agent per switch on
// 127.0.0.1, SNMPv2c) in a process of its own (scripts/bench-lldp-stand-in.ts),
// polled by the built executable running as the controller against the API
// server stand-in with 8,192 Nodes. Prints:
//   - poll + snapshot of the first poll, wall (hypernode_fabric_poll_duration_seconds:
//     the walks, the graph and the HyperNodes) and the controller's CPU from its
//     start to the end of that poll;
//   - the same for a later poll of the unchanged fabric (CPU over one interval,
//     which is that poll and an idle wait);
//   - the controller's VmRSS and peak (VmHWM) at steady state;
//   - HyperNode writes during the next polls of the unchanged fabric (must be 0);
// against the targets: poll + snapshot ≤ 10 s, RSS ≤ 300 MB, 0 writes, each
// marked PASS or MISS. The wall times depend on the machine's load (printed):
// the CPU figures say what the controller itself spent.
//
// Run with: node --import tsx scripts/bench-lldp.ts [sus=64] [concurrency=32]
// (build dist/ first: node scripts/build.mjs). It prints; it never fails on a figure.

import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BINARY as binary } from '../testing/executables.ts';
import { startApiServer } from '../testing/apiserver/index.ts';
import { seriesValue } from '../testing/prometheus-text.ts';
import { discoveryConfigMap } from '../testing/sample-cluster.ts';
import { waitFor } from '../testing/wait.ts';
import { benchFabric } from './bench-lldp-fabric.ts';
import { NAMESPACE, launchController, quietPolls } from './lib/bench-launch.ts';
import { discoverySecret, switchHosts } from '../testing/discovery-secret.ts';

const TARGETS = { pollAndSnapshotS: 10, rssMB: 300, quietWrites: 0 };
const COMMUNITY = 'bench-community';
const QUIET_POLLS = 2;
const INTERVAL_S = 30;
const CONVERGE_TIMEOUT_MS = 300_000;
/** Between /metrics scrapes: each scrape costs the controller CPU, which the figures should not include. */
const SCRAPE_EVERY_MS = 500;
const STAND_IN_START_TIMEOUT_MS = 120_000;

const [sus = 64, concurrency = 32] = process.argv.slice(2).map(Number);

async function main(): Promise<void> {
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run node scripts/build.mjs first`);
  const tree = benchFabric(sus);
  const work = mkdtempSync(join(tmpdir(), 'bench-lldp-'));
  const standIn = fork(fileURLToPath(new URL('./bench-lldp-stand-in.ts', import.meta.url)), [String(sus), COMMUNITY], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const api = await startApiServer({ namespaces: [NAMESPACE] }).catch((err) => {
    standIn.disconnect();
    throw err;
  });
  try {
    const agents = await new Promise<{ addresses: string[] }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the SNMP stand-in process did not start in time')),
        STAND_IN_START_TIMEOUT_MS,
      );
      standIn.once('message', (m) => {
        clearTimeout(timer);
        resolve(m as { addresses: string[] });
      });
      standIn.once('exit', (code) => reject(new Error(`the SNMP stand-in process exited (${code})`)));
    });
    const switchCount = agents.addresses.length;
    for (const name of tree.hosts) api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    api.store.create(
      discoverySecret(NAMESPACE, 'lldp-snmp', { community: COMMUNITY }, { hosts: switchHosts(agents.addresses) }),
    );
    const conf = `networkTopologyDiscovery:
  - source: lldp
    enabled: true
    interval: ${INTERVAL_S}s
    credentials:
      secretRef: {name: lldp-snmp, namespace: ${NAMESPACE}}
    config:
      snmp: {concurrency: ${concurrency}}
      fabric: bench
      switches: [${agents.addresses.map((a) => `"${a}"`).join(', ')}]
`;
    api.store.create(discoveryConfigMap(NAMESPACE, conf));
    console.log(
      `fabric: ${sus} SUs, ${tree.hosts.length} hosts, ${switchCount} switches; SNMPv2c, concurrency ${concurrency}; SNMP stand-in in its own process`,
    );
    const launched = await launchController(api, work, binary, { qps: 300, burst: 600 });
    const { controller } = launched;
    try {
      const poll = async (name: string, labels: Record<string, string> = {}) =>
        seriesValue(await controller.metrics(), name, { source: 'lldp', fabric: 'bench', ...labels });
      await waitFor(
        async () => (await poll('hypernode_fabric_switches', { state: 'answered' }).catch(() => 0)) === switchCount,
        {
          timeoutMs: CONVERGE_TIMEOUT_MS,
          intervalMs: SCRAPE_EVERY_MS,
          what: 'the first full poll',
        },
      );
      const pollS = await poll('hypernode_fabric_poll_duration_seconds');
      const pollCpuMs = controller.cpuMs();
      const hyperNodes = () => api.store.list('hypernodes').length;
      const managed = async () => seriesValue(await controller.metrics(), 'hypernode_managed', { source: 'lldp' });
      await waitFor(async () => (hyperNodes() > 0 && (await managed()) === hyperNodes()) || undefined, {
        timeoutMs: CONVERGE_TIMEOUT_MS,
        intervalMs: SCRAPE_EVERY_MS,
        what: 'every HyperNode written',
      });
      const convergedS = (performance.now() - launched.started) / 1000;
      console.log(
        `first poll + snapshot: ${pollS.toFixed(2)} s wall for ${switchCount} switches; controller CPU from start to the end of that poll: ${(pollCpuMs / 1000).toFixed(1)} s; start → ${hyperNodes()} HyperNodes written: ${convergedS.toFixed(1)} s`,
      );
      const { firstSuccess, intervalCpuMs, quietWrites } = await quietPolls(api, controller, {
        source: 'lldp',
        intervalS: INTERVAL_S,
        polls: QUIET_POLLS,
        scrapeEveryMs: SCRAPE_EVERY_MS,
      });
      const quietPollS = await poll('hypernode_fabric_poll_duration_seconds');
      const mem = controller.memory();
      console.log(
        `later poll + snapshot: ${quietPollS.toFixed(2)} s wall; controller CPU over that ${INTERVAL_S} s interval (the poll and an idle wait): ${(intervalCpuMs / 1000).toFixed(1)} s`,
      );
      console.log(
        `HyperNode writes over ${QUIET_POLLS} unchanged polls after ${new Date(firstSuccess * 1000).toISOString()}: ${quietWrites}`,
      );
      console.log(
        `load average during the run: ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')} on ${cpus().length} cores`,
      );
      console.log(`controller VmRSS ${mem.rssMB.toFixed(0)} MB (peak VmHWM ${mem.hwmMB.toFixed(0)} MB)`);
      const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
      console.log(
        `targets: first poll + snapshot ≤ ${TARGETS.pollAndSnapshotS} s ${verdict(pollS <= TARGETS.pollAndSnapshotS)}; later poll + snapshot ≤ ${TARGETS.pollAndSnapshotS} s ${verdict(quietPollS <= TARGETS.pollAndSnapshotS)}; peak RSS ≤ ${TARGETS.rssMB} MB ${verdict(mem.hwmMB <= TARGETS.rssMB)}; quiet writes = 0 ${verdict(quietWrites === TARGETS.quietWrites)}`,
      );
    } catch (err) {
      console.error(`--- controller log tail ---\n${controller.log}`);
      throw err;
    } finally {
      await controller.stop();
    }
  } finally {
    await api.close();
    if (standIn.connected) standIn.disconnect();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
