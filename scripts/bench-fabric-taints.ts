// The fabric taint (health.taint, docs/health.md "Node taint") at GB200
// scale: the UFM fabric of 64 scalable units × 8 NVL72 racks × 18 compute
// trays (9,216 trays on 8 rails; scripts/lib/gb200-fabric.ts) served by the
// UFM stand-in, every tray a Node, polled by the built executable in UFM
// fabric mode with the taint on (`after` and the poll interval below,
// maxTaintPercent 10) against the API server stand-in, every write of which
// (Node patches and HyperNode writes alike) takes 10 ms, as an etcd-backed
// server answers it. The controller runs under the chart's RBAC and
// deploy/node-taints. Three faults, each made by taking links out of UFM's
// /resources/links and putting them back:
//   - one leaf switch lost (rail 1 of unit 1): every tray keeps its other 7
//     rails, so no Node may be written; the status writes that mark it;
//   - a unit's 8 rail leaves lost (power to its leaf row): its 144 trays are
//     cut off, 1.6 % of the fabric, within maxTaintPercent: the Node writes
//     (one each way a tray) and the wall-clock time to taint and untaint,
//     from the poll that first read the links without them (or with them
//     again) to the last Node write answered; which poll made the writes
//     (the taint: the first at least `after` later; the untaint: that one),
//     the window of those writes, and the controller's CPU time over the
//     whole fault;
//   - the leaves of enough units lost to pass maxTaintPercent: no Node
//     written, the FabricTaintsHeld Event and the gauges.
// Each figure is checked against its target (PASS or MISS); it prints, it
// never fails on a figure. With --stalls the controller runs as the bundle on
// the pinned Node with a stall probe and a CPU profile
// (lib/event-loop-stalls.ts), and the longest event-loop stalls of each stage
// (start to every HyperNode judged, then each fault) are printed with the
// code that held the thread, against the target of STALL_TARGET_MS while
// the controller leads.
//
// Run with: node --import tsx scripts/bench-fabric-taints.ts [sus=64] [racksPerSu=8] [traysPerRack=18]
//   [--interval=10s] [--after=15s] [--stalls]
// (build dist/ first: node scripts/build.mjs).

import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { FABRIC_TAINT_KEY } from '../src/hypernode/model/hypernode-labels.ts';
import { durationToMs, parseDuration } from '../src/util/go-duration.ts';
import type { ApiServer, RequestRecord } from '../testing/apiserver/index.ts';
import { nodeTaintOverlayRules } from '../testing/component-rbac.ts';
import { discoverySecret } from '../testing/discovery-secret.ts';
import type { FatTree } from '../testing/fat-tree.ts';
import { BINARY as binary, BUNDLE } from '../testing/executables.ts';
import { seriesValue } from '../testing/prometheus-text.ts';
import { discoveryConfigMap } from '../testing/sample-cluster.ts';
import { TEST_CA, UfmServer } from '../testing/ufm-server.ts';
import { waitFor } from '../testing/wait.ts';
import type { ControllerProcess } from './lib/bench-controller-process.ts';
import {
  NAMESPACE,
  REAL_WRITE_LATENCY_MS,
  SERVICE_ACCOUNT,
  benchRound,
  flagValue,
  launchController,
  type RateLimit,
} from './lib/bench-launch.ts';
import { percentile, seconds, verdictSummary, type Verdict } from './lib/bench-stats.ts';
import {
  describeStalls,
  leaseAcquired,
  type Stage,
  stallWatchedCommand,
  stopForStalls,
} from './lib/event-loop-stalls.ts';
import { describeGb200, GB200_RAILS, gb200FatTree, gb200ShapeArgs, trayName } from './lib/gb200-fabric.ts';

const argv = process.argv.slice(2);
const shape = gb200ShapeArgs(argv);
const INTERVAL = flagValue(argv, 'interval') ?? '10s';
/** Not a multiple of the interval: a poll exactly `after` past the loss would be judged either way by jitter. */
const AFTER = flagValue(argv, 'after') ?? '15s';
const AFTER_MS = durationToMs(parseDuration(AFTER));
const MAX_TAINT_PERCENT = 10;
const LIMIT: RateLimit = { qps: 300, burst: 600 };
const FABRIC = 'gb200';
const CONVERGE_TIMEOUT_MS = 600_000;
const SCRAPE_EVERY_MS = 500;
const TARGETS = { leafNodeWrites: 0, unitWritesEachWay: 1, heldNodeWrites: 0 };
const STALLS = argv.includes('--stalls');

interface Fault {
  /** Taken out of the fabric. */
  readonly leaves: ReadonlySet<string>;
  /** The trays it cuts off. */
  readonly trays: readonly string[];
}

/** The leaves of `rails` (1-based) of units `sus`, and the trays whose every rail they carry. */
function fault(tree: FatTree, sus: readonly number[], rails: readonly number[]): Fault {
  const leaves = new Set(sus.flatMap((su) => rails.map((r) => tree.leafGuids[su - 1]![r - 1]!)));
  const perSu = shape.racksPerSu * shape.traysPerRack;
  const trays =
    rails.length === GB200_RAILS
      ? sus.flatMap((su) => Array.from({ length: perSu }, (_, i) => trayName(su, i + 1)))
      : [];
  return { leaves, trays };
}

/** The fabric without the links of the fault's leaves, as UFM lists them once the switches are gone. */
function without(tree: FatTree, f: Fault): FatTree {
  const touches = (guid: unknown) => typeof guid === 'string' && f.leaves.has(guid);
  return { ...tree, links: tree.links.filter((l) => !touches(l.source_guid) && !touches(l.destination_guid)) };
}

const nodeWrites = (api: ApiServer): RequestRecord[] =>
  api.requests.writes((r) => r.user === SERVICE_ACCOUNT && r.resource === 'nodes');
const statusWrites = (api: ApiServer): number =>
  api.requests.count((r) => r.user === SERVICE_ACCOUNT && r.resource === 'hypernodes' && r.subresource === 'status');
const tainted = (api: ApiServer, name: string): boolean =>
  ((api.store.get('nodes', name) as { spec?: { taints?: { key: string }[] } } | undefined)?.spec?.taints ?? []).some(
    (t) => t.key === FABRIC_TAINT_KEY,
  );
const answeredAt = (r: RequestRecord) => Date.parse(r.time) + r.durationMs;

/** When each poll read /resources/links (Date.now()), from `from` on. */
const linkReads = (ufm: UfmServer, from: number): number[] =>
  ufm.requests.filter((r) => r.path.includes('/resources/links') && r.at >= from).map((r) => r.at);

/** The controller under test, once launched: a wait ends at once when it has exited (a lost Lease, a crash). */
let running: ControllerProcess | undefined;

async function waitUntil(what: string, probe: () => boolean | Promise<boolean>, intervalMs = 20): Promise<void> {
  const exited = () => running !== undefined && running.exitCode !== null;
  const outcome = await waitFor(async () => (exited() ? 'exited' : (await probe()) && 'done'), {
    timeoutMs: CONVERGE_TIMEOUT_MS,
    intervalMs,
    what,
  });
  if (outcome === 'exited') throw new Error(`the controller exited (${running!.exitCode}) while waiting for ${what}`);
}

/** Waits until every write the controller sent has been answered. */
const writesAnswered = (api: ApiServer) =>
  waitUntil('every write answered', () =>
    api.requests.writes((r) => r.user === SERVICE_ACCOUNT).every((r) => r.code !== 0),
  );

/** Changes the fabric UFM answers with, and returns when the first poll read its links afterwards. */
async function change(ufm: UfmServer, tree: FatTree, what: string): Promise<number> {
  const at = Date.now();
  ufm.answer = { kind: 'fabric', fabric: tree };
  await waitUntil(`a poll reading the links ${what}`, () => linkReads(ufm, at).length > 0);
  return linkReads(ufm, at)[0]!;
}

/** The median time between two polls' reads of the links, over the run so far. */
function pollPeriod(ufm: UfmServer): number {
  const reads = linkReads(ufm, 0);
  return percentile(
    reads.slice(1).map((at, i) => at - reads[i]!),
    50,
  );
}

/** Waits until `n` more polls have read the links after `from`. */
const pollsAfter = (ufm: UfmServer, from: number, n: number) =>
  waitUntil(`${n} polls after ${new Date(from).toISOString()}`, () => linkReads(ufm, from + 1).length >= n);

interface Way {
  writes: number;
  codes: string;
  /** From the poll that first read the change to the last Node write answered. */
  ms: number;
  /** From the first Node write sent to the last answered. */
  windowMs: number;
  /** The poll whose writes they are, counted from the one that first read the change (0). */
  poll: number;
}

interface UnitFigures {
  trays: number;
  taint: Way;
  untaint: Way;
  statusWrites: number;
  cpuMs: number;
}

function way(api: ApiServer, ufm: UfmServer, seenAt: number): Way {
  const writes = nodeWrites(api);
  const codes = new Map<number, number>();
  for (const r of writes) codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
  const first = Math.min(...writes.map((r) => Date.parse(r.time)));
  return {
    writes: writes.length,
    codes: [...codes].map(([code, n]) => `${n} → ${code}`).join(', '),
    ms: Math.max(...writes.map(answeredAt)) - seenAt,
    windowMs: Math.max(...writes.map(answeredAt)) - first,
    // A poll is built in less than the interval, so the writes follow the last poll that read the links before them.
    poll: linkReads(ufm, seenAt).filter((at) => at < first).length - 1,
  };
}

async function leafLost(
  api: ApiServer,
  ufm: UfmServer,
  tree: FatTree,
): Promise<{ nodeWrites: number; statusWrites: number }> {
  const f = fault(tree, [1], [1]);
  api.requests.clear();
  const seen = await change(ufm, without(tree, f), 'without the leaf');
  // Past `after` and one more poll: a taint would have been written by then.
  await waitUntil('a poll past taint.after', () => linkReads(ufm, seen + AFTER_MS).length >= 2);
  await writesAnswered(api);
  const lost = { nodeWrites: nodeWrites(api).length, statusWrites: statusWrites(api) };
  const back = await change(ufm, tree, 'with the leaf again');
  await pollsAfter(ufm, back, 1);
  await writesAnswered(api);
  return lost;
}

async function unitLost(api: ApiServer, ufm: UfmServer, tree: FatTree, c: ControllerProcess): Promise<UnitFigures> {
  const f = fault(
    tree,
    [1],
    Array.from({ length: GB200_RAILS }, (_, i) => i + 1),
  );
  api.requests.clear();
  const cpuBefore = c.cpuMs();
  const seen = await change(ufm, without(tree, f), "without the unit's leaves");
  await waitUntil(`${f.trays.length} trays tainted`, () => f.trays.every((t) => tainted(api, t)));
  await writesAnswered(api);
  const taint = way(api, ufm, seen);
  const lostStatus = statusWrites(api);
  api.requests.clear();
  const back = await change(ufm, tree, "with the unit's leaves again");
  await waitUntil(`${f.trays.length} trays untainted`, () => f.trays.every((t) => !tainted(api, t)));
  await writesAnswered(api);
  const untaint = way(api, ufm, back);
  return {
    trays: f.trays.length,
    taint,
    untaint,
    statusWrites: lostStatus + statusWrites(api),
    cpuMs: c.cpuMs() - cpuBefore,
  };
}

async function pastTheGuard(
  api: ApiServer,
  ufm: UfmServer,
  tree: FatTree,
  c: ControllerProcess,
): Promise<{ trays: number; nodeWrites: number; event: string; held: number; needed: number }> {
  const units = Math.floor((shape.sus * MAX_TAINT_PERCENT) / 100) + 1;
  const f = fault(
    tree,
    Array.from({ length: units }, (_, i) => i + 1),
    Array.from({ length: GB200_RAILS }, (_, i) => i + 1),
  );
  api.requests.clear();
  const seen = await change(ufm, without(tree, f), `without the leaves of ${units} units`);
  const event = () =>
    (api.store.list('events', NAMESPACE) as { reason: string; message: string }[]).find(
      (e) => e.reason === 'FabricTaintsHeld',
    )?.message;
  await waitUntil('the FabricTaintsHeld Event', () => event() !== undefined);
  await pollsAfter(ufm, Math.max(seen + AFTER_MS, Date.now()), 1);
  await writesAnswered(api);
  const metrics = await c.metrics();
  const figures = {
    trays: f.trays.length,
    nodeWrites: nodeWrites(api).length,
    event: event()!,
    held: seriesValue(metrics, 'hypernode_fabric_taints_held', { source: 'ufm' }),
    needed: seriesValue(metrics, 'hypernode_fabric_taint_percent_needed', { source: 'ufm' }),
  };
  await change(ufm, tree, 'with every leaf again');
  await waitUntil(
    'the hold over',
    async () => seriesValue(await c.metrics(), 'hypernode_fabric_taints_held', { source: 'ufm' }) === 0,
    SCRAPE_EVERY_MS,
  );
  return figures;
}

async function main(): Promise<void> {
  const artifact = STALLS ? BUNDLE : binary;
  if (!existsSync(artifact)) throw new Error(`${artifact} is missing: run node scripts/build.mjs first`);
  const tree = gb200FatTree(shape);
  const unitShare = (100 * shape.racksPerSu * shape.traysPerRack) / tree.hosts.length;
  if (unitShare > MAX_TAINT_PERCENT)
    throw new Error(
      `one unit is ${unitShare.toFixed(1)} % of this fabric, more than maxTaintPercent ${MAX_TAINT_PERCENT}: give it at least ${Math.ceil(100 / MAX_TAINT_PERCENT)} units`,
    );
  console.log(
    `fabric: ${describeGb200(shape, tree)}; UFM fabric mode polled every ${INTERVAL}, health.taint.after ${AFTER}, maxTaintPercent ${MAX_TAINT_PERCENT}; client limit qps ${LIMIT.qps} / burst ${LIMIT.burst}, ${REAL_WRITE_LATENCY_MS} ms a write`,
  );
  const ufm = await new UfmServer().start();
  try {
    await benchRound(
      'bench-fabric-taints-',
      async (round) => {
        const { api } = round;
        ufm.answer = { kind: 'fabric', fabric: tree };
        for (const name of tree.hosts)
          api.store.create({
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name, labels: { 'kubernetes.io/hostname': name } },
          });
        const secret = { username: ufm.username, password: ufm.password, 'ca.crt': TEST_CA };
        api.store.create(discoverySecret(NAMESPACE, 'ufm', secret, { endpoints: [ufm.endpoint()] }));
        const conf = `health:
  taint: {after: ${AFTER}}
  maxTaintPercent: ${MAX_TAINT_PERCENT}
networkTopologyDiscovery:
  - source: ufm
    enabled: true
    interval: ${INTERVAL}
    credentials: {secretRef: {name: ufm, namespace: ${NAMESPACE}}}
    config:
      mode: fabric
      fabric: ${FABRIC}
      endpoint: "${ufm.endpoint()}"
`;
        api.store.create(discoveryConfigMap(NAMESPACE, conf));
        const stallDir = STALLS ? mkdtempSync(join(round.work, 'stalls-')) : undefined;
        const command = stallDir === undefined ? undefined : stallWatchedCommand(stallDir);
        const launched = await launchController(api, round.work, command?.binary ?? binary, LIMIT, {
          rules: nodeTaintOverlayRules(),
          prefixArgs: command?.prefixArgs,
          env: command?.env,
        });
        const c = (round.controller = running = launched.controller);
        const stages: Stage[] = [];
        type Judged = {
          metadata: { generation?: number };
          status?: { conditions?: { type: string; observedGeneration?: number }[] };
        };
        await waitUntil(
          'every HyperNode written and judged',
          async () => {
            const all = api.store.list('hypernodes') as Judged[];
            const managed = seriesValue(await c.metrics().catch(() => ''), 'hypernode_managed', { source: 'ufm' });
            return (
              all.length > 0 &&
              managed === all.length &&
              all.every((hn) =>
                hn.status?.conditions?.some(
                  (k) => k.type === 'FabricHealthy' && k.observedGeneration === hn.metadata.generation,
                ),
              )
            );
          },
          SCRAPE_EVERY_MS,
        );
        await writesAnswered(api);
        console.log(
          `ready: ${api.store.list('hypernodes').length} HyperNodes written and judged ${seconds(Date.now() - launched.spawnedAt)} after the spawn`,
        );
        stages.push({ name: 'start to every HyperNode written and judged', endWall: Date.now() });

        const leaf = await leafLost(api, ufm, tree);
        stages.push({ name: 'one leaf lost and back', endWall: Date.now() });
        console.log(
          `one leaf switch lost (rail 1 of unit 1) and back: ${leaf.nodeWrites} Node writes (every tray keeps ${GB200_RAILS - 1} rails); ${leaf.statusWrites} HyperNode status writes marking it`,
        );
        const unit = await unitLost(api, ufm, tree, c);
        stages.push({ name: "a unit's leaves lost and back", endWall: Date.now() });
        const share = ((unit.trays * 100) / tree.hosts.length).toFixed(1);
        const period = pollPeriod(ufm);
        const taintPoll = Math.ceil(AFTER_MS / period);
        console.log(
          `a unit's ${GB200_RAILS} rail leaves lost and back (${unit.trays} trays, ${share} % of the fabric):\n` +
            `  taint:   ${unit.taint.writes} Node writes (${unit.taint.codes}) in ${seconds(unit.taint.windowMs)}, made by poll ${unit.taint.poll} after the one that saw the loss; the last answered ${seconds(unit.taint.ms)} after the one that saw the loss (taint.after ${AFTER})\n` +
            `  untaint: ${unit.untaint.writes} Node writes (${unit.untaint.codes}) in ${seconds(unit.untaint.windowMs)}, made by poll ${unit.untaint.poll} after the one that saw the links again; the last answered ${seconds(unit.untaint.ms)} after it\n` +
            `  ${unit.statusWrites} HyperNode status writes both ways; controller CPU ${seconds(unit.cpuMs)} over the fault; polls ${seconds(period)} apart (median)`,
        );
        const guard = await pastTheGuard(api, ufm, tree, c);
        stages.push({ name: 'past maxTaintPercent and back', endWall: Date.now() });
        console.log(
          `the leaves of ${guard.trays / (shape.racksPerSu * shape.traysPerRack)} units lost (${guard.trays} trays): ${guard.nodeWrites} Node writes; hypernode_fabric_taints_held ${guard.held}, hypernode_fabric_taint_percent_needed ${guard.needed}; FabricTaintsHeld: ${guard.event}`,
        );
        const mem = c.memory();
        console.log(`controller VmRSS ${mem.rssMB.toFixed(0)} MB, peak ${mem.hwmMB.toFixed(0)} MB`);
        console.log(
          `load average during the run: ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')} on ${cpus().length} cores`,
        );
        const verdicts: Verdict[] = [
          {
            figure: 'one leaf lost: Node writes',
            measured: String(leaf.nodeWrites),
            target: String(TARGETS.leafNodeWrites),
            pass: leaf.nodeWrites === TARGETS.leafNodeWrites,
          },
          {
            figure: 'a unit lost: Node writes each way',
            measured: `${unit.taint.writes} and ${unit.untaint.writes} for ${unit.trays} trays`,
            target: `${TARGETS.unitWritesEachWay} a tray`,
            pass: unit.taint.writes === unit.trays && unit.untaint.writes === unit.trays,
          },
          {
            // The first poll at least `after` past the one that saw the loss: a poll later is a poll of delay.
            figure: 'a unit lost: tainted by the first poll past taint.after',
            measured: `poll ${unit.taint.poll}, ${seconds(unit.taint.ms)}`,
            target: `poll ${taintPoll}`,
            pass: unit.taint.poll === taintPoll,
          },
          {
            figure: 'a unit back: untainted by the poll that saw a link',
            measured: `poll ${unit.untaint.poll}, ${seconds(unit.untaint.ms)}`,
            target: 'poll 0',
            pass: unit.untaint.poll === 0,
          },
          {
            figure: 'past maxTaintPercent: Node writes',
            measured: String(guard.nodeWrites),
            target: String(TARGETS.heldNodeWrites),
            pass: guard.nodeWrites === TARGETS.heldNodeWrites,
          },
        ];
        if (stallDir !== undefined) {
          const stalls = await stopForStalls(c, stallDir, leaseAcquired(api));
          console.log(describeStalls(stalls.all, stages));
          verdicts.push(stalls.verdict);
        }
        console.log(verdictSummary('targets:', verdicts));
      },
      { writeLatencyMs: REAL_WRITE_LATENCY_MS },
    );
  } finally {
    await ufm.close();
  }
}

await main();
