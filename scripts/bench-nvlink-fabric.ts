// The NVLink tier at GB200 scale: a UFM fabric of 64 scalable units × 8 NVL72
// racks × 18 compute trays (9,216 hosts, 8 rails, three tiers of switches;
// testing/fat-tree.ts) served by the UFM stand-in, every tray a Node with its
// rack's `nvidia.com/gpu.clique`, polled by the built executable in UFM fabric
// mode against the API server stand-in (its writes delayed by WRITE_LATENCY_MS,
// as an etcd-backed server answers them), once without and once with
// `nvlink: domain`. For each it prints:
//   - first poll: from the spawn to the first successful discovery run (the
//     three UFM answers read, parsed, grouped and, with nvlink, the domains
//     placed), and to every HyperNode written;
//   - the controller's VmRSS and peak (VmHWM) once every write is done;
//   - the HyperNode writes until then, by verb (status writes apart);
// and with nvlink:
//   - one tray whose clique appears later: the writes and the time until it
//     sits in its rack's domain (a rebuild from the last poll, no UFM request);
//   - a rolling blink over every tray, as a GPU DRA driver upgrade rolls
//     (health.labelGracePeriod, docs/health.md): in waves of BLINK_WAVE
//     trays (one per rack), each tray's clique removed, held by the label
//     memory until its domain's TopologyLabelsPresent names it, and put
//     back; the HyperNode writes during the roll (spec writes apart from
//     status writes), the controller's CPU time and the time the roll took;
// against the targets: first poll ≤ 10 s with and without nvlink, RSS ≤ 400
// MB, a later clique in 2 writes and no UFM request, a rolling blink with no
// HyperNode spec write and no UFM request, each PASS or MISS. It prints; it
// never fails on a figure. With --stalls each round's controller runs as the
// bundle with a stall probe and a CPU profile (lib/event-loop-stalls.ts), and
// its longest event-loop stalls are printed by stage with the code that held
// the thread, against STALL_TARGET_MS while it leads.
//
// Run with: node --import tsx scripts/bench-nvlink-fabric.ts [sus=64] [racksPerSu=8] [traysPerRack=18] [--stalls]
// (build dist/ first: node scripts/build.mjs).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nvlinkHyperNodeName } from '../src/hypernode/discovery/fabric/nvlink-tier.ts';
import { BINARY as binary, BUNDLE } from '../testing/executables.ts';
import { startApiServer, type ApiServer } from '../testing/apiserver/index.ts';
import type { FatTree } from '../testing/fat-tree.ts';
import { memberNames } from '../testing/hypernode-members.ts';
import { seriesValue } from '../testing/prometheus-text.ts';
import { discoveryConfigMap } from '../testing/sample-cluster.ts';
import { TEST_CA, UfmServer } from '../testing/ufm-server.ts';
import { waitFor } from '../testing/wait.ts';
import { NAMESPACE, isControllerHyperNodeWrite, launchController, type RateLimit } from './lib/bench-launch.ts';
import {
  describeStalls,
  leaseAcquired,
  type Stage,
  type Stall,
  stallWatchedCommand,
  stopForStalls,
} from './lib/event-loop-stalls.ts';
import { describeGb200, gb200FatTree, gb200ShapeArgs, trayName } from './lib/gb200-fabric.ts';
import { seconds, verdictSummary, type Verdict } from './lib/bench-stats.ts';
import { discoverySecret } from '../testing/discovery-secret.ts';

const shape = gb200ShapeArgs(process.argv.slice(2));
const STALLS = process.argv.includes('--stalls');
const { sus, racksPerSu, traysPerRack } = shape;
const LIMIT: RateLimit = { qps: 300, burst: 600 };
/**
 * What one HyperNode write costs on a real API server (an etcd round trip and admission), added to each by the
 * stand-in.
 */
const WRITE_LATENCY_MS = 10;
const CLIQUE = 'nvidia.com/gpu.clique';
const FABRIC = 'gb200';
const TARGETS = { firstPollS: 10, rssMB: 400, laterCliqueWrites: 2, blinkSpecWrites: 0 };
/** Trays whose clique is away at once in the rolling blink: a driver upgrade with that many Nodes in parallel. */
const BLINK_WAVE = 128;
const CONVERGE_TIMEOUT_MS = 600_000;
const SCRAPE_EVERY_MS = 500;

/** Rack r of unit su: a ClusterUUID of its own. */
const rackUuid = (su: number, rack: number) =>
  `${su.toString(16).padStart(8, '0')}-${rack.toString(16).padStart(4, '0')}-4000-8000-000000000000`;
const rackOf = (n: number) => Math.ceil(n / traysPerRack);

interface Figures {
  firstPollMs: number;
  writtenMs: number;
  hyperNodes: number;
  writes: Record<string, number>;
  statusWrites: number;
  rssMB: number;
  hwmMB: number;
  laterClique?: { writes: string[]; ms: number; ufmRequests: number };
  blink?: BlinkFigures;
  stalls?: { all: Stall[]; stages: Stage[]; verdict: Verdict };
}

interface BlinkFigures {
  trays: number;
  waves: number;
  specWrites: string[];
  statusWrites: number;
  ufmRequests: number;
  cpuMs: number;
  ms: number;
}

function writesByVerb(api: ApiServer): { writes: Record<string, number>; status: number } {
  const writes: Record<string, number> = {};
  let status = 0;
  for (const r of api.requests.writes(isControllerHyperNodeWrite)) {
    if (r.subresource === 'status') status++;
    else writes[r.verb] = (writes[r.verb] ?? 0) + 1;
  }
  return { writes, status };
}

async function round(tree: FatTree, nvlink: boolean): Promise<Figures> {
  const api = await startApiServer({ namespaces: [NAMESPACE] });
  const ufm = await new UfmServer().start();
  const work = mkdtempSync(join(tmpdir(), 'bench-nvlink-'));
  let controller: Awaited<ReturnType<typeof launchController>>['controller'] | undefined;
  try {
    ufm.answer = { kind: 'fabric', fabric: tree };
    // The last tray of the first rack has no clique yet: it appears later.
    const late = trayName(1, traysPerRack);
    for (let su = 1; su <= sus; su++) {
      for (let n = 1; n <= racksPerSu * traysPerRack; n++) {
        const name = trayName(su, n);
        const labels = name === late ? {} : { [CLIQUE]: `${rackUuid(su, rackOf(n))}.1` };
        api.store.create({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
        });
      }
    }
    const secret = { username: ufm.username, password: ufm.password, 'ca.crt': TEST_CA };
    api.store.create(discoverySecret(NAMESPACE, 'ufm', secret, { endpoints: [ufm.endpoint()] }));
    const conf = `networkTopologyDiscovery:
  - source: ufm
    enabled: true
    interval: 1h
    credentials: {secretRef: {name: ufm, namespace: ${NAMESPACE}}}
    config:
      mode: fabric
      fabric: ${FABRIC}
      endpoint: "${ufm.endpoint()}"
${nvlink ? '      nvlink: domain\n' : ''}`;
    api.store.create(discoveryConfigMap(NAMESPACE, conf));
    api.latency(
      WRITE_LATENCY_MS,
      (r) => isControllerHyperNodeWrite(r) && ['create', 'update', 'delete'].includes(r.verb),
    );
    const stallDir = STALLS ? mkdtempSync(join(work, 'stalls-')) : undefined;
    const command = stallDir === undefined ? undefined : stallWatchedCommand(stallDir);
    const launched = await launchController(api, work, command?.binary ?? binary, LIMIT, {
      prefixArgs: command?.prefixArgs,
      env: command?.env,
    });
    controller = launched.controller;
    const c = controller;
    const stages: Stage[] = [];
    const metric = async (name: string) => seriesValue(await c.metrics(), name, { source: 'ufm' });
    const firstSuccess = await waitFor(
      async () => (await metric('hypernode_discovery_last_success_timestamp_seconds').catch(() => 0)) || undefined,
      {
        timeoutMs: CONVERGE_TIMEOUT_MS,
        intervalMs: SCRAPE_EVERY_MS,
        what: 'the first poll',
      },
    );
    const hyperNodes = () => api.store.list('hypernodes').length;
    await waitFor(async () => (hyperNodes() > 0 && (await metric('hypernode_managed')) === hyperNodes()) || undefined, {
      timeoutMs: CONVERGE_TIMEOUT_MS,
      intervalMs: SCRAPE_EVERY_MS,
      what: 'every HyperNode written',
    });
    const writtenMs = Date.now() - launched.spawnedAt;
    stages.push({ name: 'start to every HyperNode written', endWall: Date.now() });
    const mem = c.memory();
    const { writes, status } = writesByVerb(api);
    const figures: Figures = {
      firstPollMs: firstSuccess * 1000 - launched.spawnedAt,
      writtenMs,
      hyperNodes: hyperNodes(),
      writes,
      statusWrites: status,
      rssMB: mem.rssMB,
      hwmMB: mem.hwmMB,
    };
    if (nvlink) {
      // Let the status writes of the new tree land (every HyperNode judged at its generation), then the late tray's
      // clique appears.
      type Judged = {
        metadata: { generation?: number };
        status?: { nodeCount?: number; conditions?: { type: string; observedGeneration?: number }[] };
      };
      const judged = (hn: Judged) =>
        hn.status?.nodeCount !== undefined &&
        hn.status.conditions?.some(
          (k) => k.type === 'FabricHealthy' && k.observedGeneration === hn.metadata.generation,
        );
      await waitFor(() => (api.store.list('hypernodes') as Judged[]).every(judged) || undefined, {
        timeoutMs: CONVERGE_TIMEOUT_MS,
        intervalMs: SCRAPE_EVERY_MS,
        what: 'every status written',
      });
      await waitFor(() => api.requests.writes(isControllerHyperNodeWrite).every((r) => r.code !== 0) || undefined, {
        timeoutMs: 60_000,
        what: 'every write answered',
      });
      api.requests.clear();
      const ufmBefore = ufm.requests.length;
      const domain = nvlinkHyperNodeName(FABRIC, 'nvl-domain', rackUuid(1, 1));
      const leaf = (api.store.list('hypernodes') as { metadata: { name: string } }[]).find((hn) =>
        memberNames(hn as never).includes(late),
      )!.metadata.name;
      const node = api.store.get('nodes', late) as { metadata: { labels: Record<string, string> } };
      const started = performance.now();
      api.store.update({
        ...node,
        metadata: { ...node.metadata, labels: { ...node.metadata.labels, [CLIQUE]: `${rackUuid(1, 1)}.1` } },
      });
      const moved = () =>
        memberNames(api.store.get('hypernodes', domain) as never).includes(late) &&
        !memberNames(api.store.get('hypernodes', leaf) as never).includes(late);
      await waitFor(() => moved() || undefined, {
        timeoutMs: 60_000,
        intervalMs: 5,
        what: 'the late tray in its domain, out of its leaf group',
      });
      const ms = performance.now() - started;
      await waitFor(() => api.requests.writes(isControllerHyperNodeWrite).every((r) => r.code !== 0) || undefined, {
        timeoutMs: 60_000,
        what: 'every write answered',
      });
      figures.laterClique = {
        ms,
        writes: api.requests
          .writes((r) => isControllerHyperNodeWrite(r) && r.subresource !== 'status')
          .map((r) => `${r.verb} ${r.name}`),
        ufmRequests: ufm.requests.length - ufmBefore,
      };
      stages.push({ name: 'every status written, a later clique', endWall: Date.now() });
      figures.blink = await rollingBlink(api, c, ufm);
      stages.push({ name: 'a rolling blink', endWall: Date.now() });
    }
    if (stallDir !== undefined) figures.stalls = { ...(await stopForStalls(c, stallDir, leaseAcquired(api))), stages };
    return figures;
  } catch (err) {
    if (controller) console.error(`--- controller log tail ---\n${controller.log}`);
    throw err;
  } finally {
    await controller?.stop();
    await ufm.close();
    await api.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Every tray's clique removed and put back, BLINK_WAVE trays at a time (one per rack, the racks taken in turn), each
 * wave's labels returning once its domains' TopologyLabelsPresent count every tray of it (read from the stand-in's
 * store, so the watching costs the controller nothing); what the controller wrote and the CPU it used meanwhile.
 */
async function rollingBlink(api: ApiServer, c: { cpuMs(): number }, ufm: UfmServer): Promise<BlinkFigures> {
  const racks = sus * racksPerSu;
  const order: { tray: string; domain: string }[] = [];
  for (let t = 1; t <= traysPerRack; t++)
    for (let r = 0; r < racks; r++) {
      const su = Math.floor(r / racksPerSu) + 1;
      const tray = trayName(su, (r % racksPerSu) * traysPerRack + t);
      order.push({ tray, domain: nvlinkHyperNodeName(FABRIC, 'nvl-domain', rackUuid(su, (r % racksPerSu) + 1)) });
    }
  type Status = { status?: { conditions?: { type: string; status: string; message: string }[] } };
  /** How many Nodes a domain's TopologyLabelsPresent says it keeps in place (0 when True). */
  const heldIn = (domain: string) => {
    const c = (api.store.get('hypernodes', domain) as Status | undefined)?.status?.conditions?.find(
      (k) => k.type === 'TopologyLabelsPresent',
    );
    return c?.status === 'False' ? Number(/^(\d+) Nodes? kept in place/.exec(c.message)?.[1] ?? 0) : 0;
  };
  /** Each domain of a wave with the number of the wave's trays in it. */
  const domainsOf = (wave: readonly { domain: string }[]) => {
    const counts = new Map<string, number>();
    for (const { domain } of wave) counts.set(domain, (counts.get(domain) ?? 0) + 1);
    return [...counts];
  };
  const setClique = (name: string, value: string | undefined) => {
    const node = api.store.get('nodes', name) as { metadata: { labels: Record<string, string> } };
    const { [CLIQUE]: _, ...rest } = node.metadata.labels;
    api.store.update({
      ...node,
      metadata: { ...node.metadata, labels: value === undefined ? rest : { ...rest, [CLIQUE]: value } },
    });
  };
  api.requests.clear();
  const ufmBefore = ufm.requests.length;
  const cpuBefore = c.cpuMs();
  const started = performance.now();
  let waves = 0;
  for (let i = 0; i < order.length; i += BLINK_WAVE) {
    const wave = order.slice(i, i + BLINK_WAVE);
    const values = new Map(
      wave.map(({ tray }) => [
        tray,
        (api.store.get('nodes', tray) as { metadata: { labels: Record<string, string> } }).metadata.labels[CLIQUE],
      ]),
    );
    const domains = domainsOf(wave);
    for (const { tray } of wave) setClique(tray, undefined);
    await waitFor(() => domains.every(([domain, n]) => heldIn(domain) === n) || undefined, {
      timeoutMs: CONVERGE_TIMEOUT_MS,
      intervalMs: 20,
      what: `wave ${waves + 1} held`,
    });
    for (const { tray } of wave) setClique(tray, values.get(tray));
    await waitFor(() => domains.every(([domain]) => heldIn(domain) === 0) || undefined, {
      timeoutMs: CONVERGE_TIMEOUT_MS,
      intervalMs: 20,
      what: `wave ${waves + 1} back`,
    });
    waves++;
  }
  await waitFor(() => api.requests.writes(isControllerHyperNodeWrite).every((r) => r.code !== 0) || undefined, {
    timeoutMs: 60_000,
    what: 'every write answered',
  });
  const ms = performance.now() - started;
  const writes = api.requests.writes(isControllerHyperNodeWrite);
  return {
    trays: order.length,
    waves,
    specWrites: writes.filter((r) => r.subresource !== 'status').map((r) => `${r.verb} ${r.name}`),
    statusWrites: writes.filter((r) => r.subresource === 'status').length,
    ufmRequests: ufm.requests.length - ufmBefore,
    cpuMs: c.cpuMs() - cpuBefore,
    ms,
  };
}

async function main(): Promise<void> {
  const artifact = STALLS ? BUNDLE : binary;
  if (!existsSync(artifact)) throw new Error(`${artifact} is missing: run node scripts/build.mjs first`);
  const tree = gb200FatTree(shape);
  console.log(
    `fabric: ${describeGb200(shape, tree)}; client limit qps ${LIMIT.qps} / burst ${LIMIT.burst}, ${WRITE_LATENCY_MS} ms per HyperNode write`,
  );
  const rows: [string, Figures][] = [];
  for (const nvlink of [false, true]) {
    const f = await round(tree, nvlink);
    rows.push([nvlink ? 'nvlink: domain' : 'without nvlink', f]);
    const writes = Object.entries(f.writes)
      .map(([verb, n]) => `${n} ${verb}`)
      .join(', ');
    console.log(
      `${nvlink ? 'nvlink: domain' : 'without nvlink'}: first poll ${seconds(f.firstPollMs)} after the spawn; ${f.hyperNodes} HyperNodes written ${seconds(f.writtenMs)} after it (${writes}; ${f.statusWrites} status writes); VmRSS ${f.rssMB.toFixed(0)} MB, peak ${f.hwmMB.toFixed(0)} MB`,
    );
    if (f.laterClique)
      console.log(
        `  a tray's clique appearing later: in its domain after ${f.laterClique.ms.toFixed(0)} ms with ${f.laterClique.writes.length} writes (${f.laterClique.writes.join(', ')}) and ${f.laterClique.ufmRequests} UFM requests`,
      );
    if (f.blink)
      console.log(
        `  a rolling blink of the clique over ${f.blink.trays} trays (${f.blink.waves} waves of ${BLINK_WAVE}, each held, then back): ${f.blink.specWrites.length} HyperNode spec writes${f.blink.specWrites.length > 0 ? ` (${f.blink.specWrites.slice(0, 5).join(', ')}…)` : ''}, ${f.blink.statusWrites} status writes, ${f.blink.ufmRequests} UFM requests; controller CPU ${seconds(f.blink.cpuMs)} (${(f.blink.cpuMs / f.blink.trays).toFixed(2)} ms a tray) over ${seconds(f.blink.ms)}`,
      );
    if (f.stalls) console.log(describeStalls(f.stalls.all, f.stalls.stages));
  }
  console.log(
    `load average during the run: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );
  const verdicts: Verdict[] = rows.flatMap(([name, f]) => [
    {
      figure: `${name}: first poll`,
      measured: seconds(f.firstPollMs),
      target: `≤ ${TARGETS.firstPollS} s`,
      pass: f.firstPollMs <= TARGETS.firstPollS * 1000,
    },
    {
      figure: `${name}: peak RSS`,
      measured: `${f.hwmMB.toFixed(0)} MB`,
      target: `≤ ${TARGETS.rssMB} MB`,
      pass: f.hwmMB <= TARGETS.rssMB,
    },
  ]);
  const later = rows[1]![1].laterClique!;
  verdicts.push({
    figure: 'a later clique',
    measured: `${later.writes.length} writes, ${later.ufmRequests} UFM requests`,
    target: `${TARGETS.laterCliqueWrites} writes, 0 UFM requests`,
    pass: later.writes.length === TARGETS.laterCliqueWrites && later.ufmRequests === 0,
  });
  const blink = rows[1]![1].blink!;
  verdicts.push({
    figure: 'a rolling blink over every tray',
    measured: `${blink.specWrites.length} HyperNode spec writes, ${blink.ufmRequests} UFM requests`,
    target: `${TARGETS.blinkSpecWrites} spec writes, 0 UFM requests`,
    pass: blink.specWrites.length === TARGETS.blinkSpecWrites && blink.ufmRequests === 0,
  });
  for (const [name, f] of rows)
    if (f.stalls) verdicts.push({ ...f.stalls.verdict, figure: `${name}: ${f.stalls.verdict.figure}` });
  console.log(verdictSummary('targets:', verdicts));
}

await main();
