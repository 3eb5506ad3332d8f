// The ibnetdiscover source on outputs in the forms production fabrics print
// (spec 12 §4): Quantum switch descriptions, hosts described `<host> mlx5_N`
// in one unit and `<host> HCA-N` in the other, one HCA with the firmware's
// default description, a SHARP aggregation node on port 65 of every switch,
// the SM server, a box named `ubuntu` and two named `localhost` on the leaves,
// a storage plane on the same subnet, two parallel uplinks per leaf and spine,
// and a leaf missing a spine. Each test checks the tree a user gets and what
// the source names as left out, with the change that places it; and that an
// output that did not change publishes its tree again without grouping it,
// while a changed output, changed Nodes or a link in its grace period group
// anew. And the files sites keep beside it: ibdiagnet's copy of the fabric as
// config.file, a capture with stderr in it, a node-name-map read again when
// it changes.

import { TEST_INPUT_POLICY } from '../../../support/input-policy.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createIbnetdiscoverDiscovererFactory,
  type IbOutputReader,
} from '../../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import type { Discoverer, DiscoveryEntry, Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { realClock } from '../../../../src/kube/clock.ts';
import type { Channel } from '../../../../src/util/channel.ts';
import { addRailFabric, IbFabric, leafId, quantumDescription, spineId } from '../../../../testing/ib-fabric.ts';
import { waitFor, within } from '../../../../testing/wait.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { FakeSecrets } from '../../../support/fake-secrets.ts';
import { RecordingMetrics } from '../../../support/recording-metrics.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { RecordingFabricHealth } from '../../../support/recording-fabric-health.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const AGGREGATION_NODE = 'Mellanox Technologies Aggregation Node';
const FIRMWARE_DEFAULT = 'MT4129 ConnectX7   Mellanox Technologies';
const NODES = ['node-a01', 'node-a02', 'node-a03', 'node-b01', 'node-b02', 'node-b03'];
/** The compute rails: mlx5_0..3 in unit 1, HCA-1..4 in unit 2; mlx5_8 and HCA-9 are the storage plane. */
const COMPUTE_HCAS = '^(mlx5_[0-3]|HCA-[1-4])$';

/** The slice of a production fabric this file reads, as ibnetdiscover prints it on Quantum-2 switches. */
function productionSlice(): IbFabric {
  const f = new IbFabric().addCa('ufm-01', 1, 'ufm-01 mlx5_0');
  addRailFabric(f, {
    units: 2,
    hostsPerUnit: 3,
    rails: 4,
    spines: 2,
    parallel: 2,
    hostName: (u, h) => `node-${u === 1 ? 'a' : 'b'}0${h}`,
    device: (r, u) => (u === 1 ? `mlx5_${r}` : `HCA-${r + 1}`),
    caDescription: (host, device) =>
      host === 'node-a02' && device === 'mlx5_2' ? FIRMWARE_DEFAULT : `${host} ${device}`,
    missingUplinks: [[2, 4, 1]],
    aggregationNode: () => AGGREGATION_NODE,
  });
  f.cable('ufm-01', leafId(1, 1));
  f.addCa('ubuntu', 1, 'ubuntu mlx5_0').cable('ubuntu', leafId(1, 2));
  f.addCa('localhost-1', 1, 'localhost mlx5_0').cable('localhost-1', leafId(1, 3));
  f.addCa('localhost-2', 1, 'localhost mlx5_0').cable('localhost-2', leafId(2, 3));
  // A storage leaf on the same subnet, cabled to the spines, with one HCA of every host.
  f.addSwitch('storage-1', 64, quantumDescription('STORAGE-1'));
  for (let s = 1; s <= 2; s++) f.cable('storage-1', spineId(s));
  for (const host of NODES) {
    const device = host.startsWith('node-a') ? 'mlx5_8' : 'HCA-9';
    f.addCa(`${host}-storage`, 1, `${host} ${device}`).cable(`${host}-storage`, 'storage-1');
  }
  return f;
}

const FABRIC = productionSlice();
const OUTPUT = FABRIC.ibnetdiscoverText({
  speed: 'NDR',
  port0: 'enhanced',
  vendorId: '0x2c9',
  switchDeviceId: '0xd2f0',
  caDeviceId: '0x1021',
});
const guidOf = (id: string) => FABRIC.nodes.get(id)!.guid.toString(16).padStart(16, '0');
const firmwareCa = `0x${guidOf('node-a02 mlx5_2')}`;

interface Rig {
  lines: string[];
  metrics: RecordingMetrics;
  problems: RecordingProblems;
  /** Link memory with a grace period (an hour unless a test says), as the controller gives every fabric source. */
  health: RecordingFabricHealth;
  /** The Nodes of the discoverer started last. */
  nodes: FakeInformer<NodeMeta>;
  start(config: Record<string, unknown>, read?: IbOutputReader, nodes?: readonly string[]): Promise<Channel<Snapshot>>;
}

async function withRig(fn: (rig: Rig) => Promise<void>, linkGraceMs = 3_600_000): Promise<void> {
  const { logger, lines } = capturingLogger({ verbosity: 4 });
  const started: Discoverer[] = [];
  const rig: Rig = {
    lines,
    metrics: new RecordingMetrics(),
    problems: new RecordingProblems(logger),
    health: new RecordingFabricHealth(linkGraceMs),
    nodes: new FakeInformer<NodeMeta>(),
    async start(config, readOutput, nodes = NODES) {
      rig.nodes = new FakeInformer<NodeMeta>({ initial: nodes.map((name) => ({ metadata: { name } })) });
      const entry: DiscoveryEntry = {
        source: 'ibnetdiscover',
        enabled: true,
        intervalMs: 1_000,
        maxDeletePercent: 50,
        config,
      };
      const d = await createIbnetdiscoverDiscovererFactory({ retryBaseMs: 20, ...(readOutput ? { readOutput } : {}) })(
        entry,
        {
          nodes: rig.nodes,
          hyperNodes: new FakeInformer({ initial: [] }),
          secrets: new FakeSecrets(),
          clock: realClock,
          logger,
          workerErrors: unexpectedWorkerError,
          problems: rig.problems,
          metrics: rig.metrics,
          fabricHealth: rig.health,
          inputPolicy: TEST_INPUT_POLICY,
        },
      );
      started.push(d);
      return d.start();
    },
  };
  try {
    await fn(rig);
  } finally {
    for (const d of started) await d.stop();
  }
}

const serve =
  (text: string): IbOutputReader =>
  async () =>
    text;
/** The next snapshot, by tier and name (the order a user reads). */
const next = (ch: Channel<Snapshot>) =>
  within(ch.recv(), 10_000, 'a snapshot').then((r) =>
    [...r.value!].sort((a, b) => a.spec.tier - b.spec.tier || a.metadata.name.localeCompare(b.metadata.name)),
  );
const members = (hn: Snapshot[number]) => hn.spec.members.map((m) => m.selector!.exactMatch!.name);
/** `name tier tierName (switches): members`, the tree a user reads. */
const shape = (s: Snapshot) =>
  s.map(
    (hn) =>
      `${hn.metadata.name} ${hn.spec.tier} ${hn.spec.tierName} (${hn.metadata.annotations?.['volcano.sh/fabric-switches']}): ${members(hn).join(',')}`,
  );
/** No snapshot within a short while (the source published nothing). */
async function nothingPublished(ch: Channel<Snapshot>): Promise<void> {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 150);
  assert.is((await ch.recv(ac.signal).catch(() => ({ value: undefined }))).value, undefined, 'no snapshot');
}
const logLine = (rig: Rig, message: string) => rig.lines.find((l) => l.startsWith(message));
/** Per poll so far, whether its output was the last one's and its tree was published again (`unchanged=`). */
const unchangedPolls = (rig: Rig) =>
  rig.lines.filter((l) => l.startsWith('Read InfiniBand fabric')).map((l) => /\bunchanged=(\w+)/.exec(l)?.[1]);

/** What the production slice prints once a unit-1 host's compute HCAs are uncabled (cables out, or the host down). */
function withoutHost(host: string): string {
  const gone = productionSlice();
  for (let r = 0; r < 4; r++) gone.uncable(`${host} mlx5_${r}`);
  return gone.ibnetdiscoverText();
}

/** A grace period a test can see end: a poll or two after a link goes missing. */
const LINK_GRACE_MS = 1_500;

const leaf1 = `compute-leaf-${guidOf(leafId(1, 1))}`;
const leaf2 = `compute-leaf-${guidOf(leafId(2, 1))}`;
const spine = `compute-spine-${guidOf(spineId(1))}`;

test('the production forms give one leaf group per unit under the spines, named by GUID, annotated with the Quantum names, labelled', () =>
  withRig(async (rig) => {
    const hostGuids = `${firmwareCa} node-a02  # kept the firmware description\n`;
    const snapshot = await next(await rig.start({ fabric: 'compute', hcas: COMPUTE_HCAS, hostGuids }, serve(OUTPUT)));
    assert.equal(shape(snapshot), [
      `${leaf1} 1 leaf (LEAF-SU1-R1 +3): node-a01,node-a02,node-a03`,
      `${leaf2} 1 leaf (LEAF-SU2-R1 +3): node-b01,node-b02,node-b03`,
      `${spine} 2 spine (SPINE-1 +1): ${leaf1},${leaf2}`,
    ]);
    assert.equal(snapshot[0]!.metadata.labels, {
      'volcano.sh/network-topology-source': 'ibnetdiscover',
      'volcano.sh/ibnetdiscover-fabric': 'compute',
    });
    // Aggregation nodes are no hosts (else every switch would be a leaf); nothing is miscabled.
    assert.equal(rig.problems.warnings, []);
    // Named once: the hosts that are no Node, with the change; the two boxes that share `localhost mlx5_0`, by GUID.
    assert.match(
      logLine(rig, 'InfiniBand hosts that match no Node are left out')!,
      'count=2 hosts="ubuntu,ufm-01" change="if some are Nodes, set config.hostMapping',
    );
    const unnamed = logLine(rig, 'InfiniBand HCAs without a host name are left out')!;
    assert.match(
      unnamed,
      `count=2 hosts="0x${guidOf('localhost-1')} (\\"localhost mlx5_0\\": its description is also that of 0x${guidOf('localhost-2')})`,
    );
    assert.match(unnamed, 'change="map each GUID to its Node with a \\"GUID node\\" line in config.hostGuids');
    assert.equal(rig.metrics.unmapped.get('compute'), 4);
    assert.equal(rig.metrics.polls.get('compute')?.answered, 11);
  }));

test('without hostGuids the firmware-default HCA is named by GUID with the hostGuids fix; its host still stands on its other rails', () =>
  withRig(async (rig) => {
    const snapshot = await next(await rig.start({ fabric: 'compute', hcas: COMPUTE_HCAS }, serve(OUTPUT)));
    assert.equal(members(snapshot[0]!), ['node-a01', 'node-a02', 'node-a03']);
    const unnamed = logLine(rig, 'InfiniBand HCAs without a host name are left out')!;
    assert.match(unnamed, 'count=3', unnamed);
    assert.match(unnamed, `${firmwareCa} (\\"${FIRMWARE_DEFAULT}\\": its description names no host)`);
    assert.equal(rig.metrics.unmapped.get('compute'), 5);
  }));

test('without hcas the storage HCAs on the same subnet merge the two units into one leaf group; hcas is what keeps them apart', () =>
  withRig(async (rig) => {
    const snapshot = await next(await rig.start({ fabric: 'compute' }, serve(OUTPUT)));
    const storage = `compute-leaf-${[guidOf(leafId(1, 1)), guidOf('storage-1')].sort()[0]}`;
    assert.equal(shape(snapshot), [`${storage} 1 leaf (LEAF-SU1-R1 +8): ${NODES.join(',')}`]);
  }));

test('hostMapping maps described host names to Nodes, and hostGuids names a Node directly', () =>
  withRig(async (rig) => {
    const nodes = NODES.map((n) => `${n}.cluster.example.com`);
    const hostGuids = `${firmwareCa} node-a02.cluster.example.com\n`;
    const config = {
      hcas: COMPUTE_HCAS,
      hostGuids,
      hostMapping: { pattern: '^(.*)$', template: '$1.cluster.example.com' },
    };
    const snapshot = await next(await rig.start(config, serve(OUTPUT), nodes));
    assert.equal(members(snapshot[1]!), [
      'node-b01.cluster.example.com',
      'node-b02.cluster.example.com',
      'node-b03.cluster.example.com',
    ]);
    assert.equal(snapshot[2]!.metadata.name, `ib-spine-${guidOf(spineId(1))}`);
  }));

test("a host whose HCAs vanish keeps its place through the grace period, its leaf's problems naming switch, port and host, then leaves though the output stays the same", () =>
  withRig(async (rig) => {
    let text = OUTPUT;
    const ch = await rig.start({ fabric: 'compute', hcas: COMPUTE_HCAS }, async () => text);
    const before = shape(await next(ch));
    text = withoutHost('node-a03');
    assert.equal(shape(await next(ch)), before);
    const problems = rig.health.reports.at(-1)!.get(leaf1)!;
    const port = (rail: number) =>
      String(FABRIC.portsOf(leafId(1, rail)).find((p) => p.peer.id === `node-a03 mlx5_${rail - 1}`)!.port);
    assert.equal(
      problems.map((p) => `${p.switch} port ${p.port}: ${p.what}`).sort(),
      [1, 2, 3, 4].map((r) => `LEAF-SU1-R${r} port ${port(r)}: link to host node-a03 missing`),
    );
    assert.equal([...rig.health.reports.at(-1)!.keys()], [leaf1]);
    // Every poll since reads the same output; each groups anew while a link is missing, so the grace period can end.
    const after = await waitFor(
      async () => {
        const snapshot = await next(ch);
        return members(snapshot[0]!).includes('node-a03') ? undefined : snapshot;
      },
      { timeoutMs: 15_000, what: 'node-a03 to leave its unit at the end of the grace period' },
    );
    assert.equal(members(after[0]!), ['node-a01', 'node-a02']);
    assert.is(rig.health.reports.at(-1)!.get(leaf1), undefined);
    assert.not.ok(unchangedPolls(rig).includes('true'));
    // Nothing is missing any more: the same output's tree is published again.
    await next(ch);
    assert.is(unchangedPolls(rig).at(-1), 'true');
  }, LINK_GRACE_MS));

test('a leaf that vanishes (powered off) keeps its unit and hosts; its cables are named on the leaf and spine HyperNodes', () =>
  withRig(async (rig) => {
    let text = OUTPUT;
    const ch = await rig.start({ fabric: 'compute', hcas: COMPUTE_HCAS }, async () => text);
    const before = shape(await next(ch));
    text = productionSlice().uncable(leafId(1, 2)).ibnetdiscoverText();
    assert.equal(shape(await next(ch)), before);
    const report = rig.health.reports.at(-1)!;
    const leafProblems = report.get(leaf1)!.map((p) => `${p.switch} port ${p.port}: ${p.what}`);
    assert.ok(
      leafProblems.includes(
        `LEAF-SU1-R2 port ${FABRIC.portsOf(leafId(1, 2)).find((p) => p.peer.id === 'node-a01 mlx5_1')!.port}: link to host node-a01 missing`,
      ),
      leafProblems.join('\n'),
    );
    // The spines lose their cables to it, 2 each (parallel uplinks), named on the spine HyperNode.
    const spineProblems = report.get(spine)!.map((p) => `${p.switch}: ${p.what}`);
    assert.is(
      spineProblems.filter((p) => /^SPINE-\d: link to switch LEAF-SU1-R2 port \d+ missing$/.test(p)).length,
      4,
      spineProblems.join('\n'),
    );
  }));

test('a miscabled host is reported once as FabricMiscabled and joins the unit holding most of its HCAs', () =>
  withRig(async (rig) => {
    const f = addRailFabric(new IbFabric(), {
      units: 2,
      hostsPerUnit: 2,
      rails: 4,
      spines: 1,
      hostName: (u, h) => `su${u}-h${h}`,
    });
    f.addCa('su1-h1 mlx5_7').cable('su1-h1 mlx5_7', leafId(2, 1));
    const ch = await rig.start({}, serve(f.ibnetdiscoverText()), ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2']);
    const snapshot = await next(ch);
    assert.equal(members(snapshot[0]!), ['su1-h1', 'su1-h2']);
    await next(ch);
    assert.is(rig.problems.warnings.length, 1);
    assert.match(
      rig.problems.warnings[0]!,
      /^FabricMiscabled: fabric ib: 1 link\(s\) or host\(s\) join no group as cabled: host su1-h1 is cabled to the leaves of 2 groups/,
    );
  }));

test("an output byte for byte the last one's publishes its tree and health again without grouping; a changed output groups anew", () =>
  withRig(async (rig) => {
    let text = OUTPUT;
    const ch = await rig.start({ fabric: 'compute', hcas: COMPUTE_HCAS }, async () => text, [...NODES, 'node-a04']);
    const first = shape(await next(ch));
    assert.equal(shape(await next(ch)), first);
    assert.equal(unchangedPolls(rig), ['false', 'true']);
    // Every poll reports the fabric's health, as a grouping would: FabricHealthy stays current.
    assert.equal(
      rig.health.reports.map((r) => r.size),
      [0, 0],
    );
    // A new host on unit 1's rail leaves changes the output: the next poll groups it into the unit.
    const grown = productionSlice();
    for (let r = 0; r < 4; r++) grown.addCa(`node-a04 mlx5_${r}`).cable(`node-a04 mlx5_${r}`, leafId(1, r + 1));
    text = grown.ibnetdiscoverText({
      speed: 'NDR',
      port0: 'enhanced',
      vendorId: '0x2c9',
      switchDeviceId: '0xd2f0',
      caDeviceId: '0x1021',
    });
    const after = await next(ch);
    assert.equal(members(after[0]!), ['node-a01', 'node-a02', 'node-a03', 'node-a04']);
    assert.equal(unchangedPolls(rig), ['false', 'true', 'false']);
  }));

test('an unchanged output groups anew when a Node its hosts map to is added or deleted', () =>
  withRig(async (rig) => {
    const ch = await rig.start({ fabric: 'compute', hcas: COMPUTE_HCAS }, serve(OUTPUT), [
      'node-a01',
      'node-a02',
      'node-b01',
      'node-b02',
      'node-b03',
    ]);
    assert.equal(members((await next(ch))[0]!), ['node-a01', 'node-a02']);
    rig.nodes.apply({ metadata: { name: 'node-a03' } });
    assert.equal(members((await next(ch))[0]!), ['node-a01', 'node-a02', 'node-a03']);
    rig.nodes.remove('node-a01');
    assert.equal(members((await next(ch))[0]!), ['node-a02', 'node-a03']);
    assert.equal(members((await next(ch))[0]!), ['node-a02', 'node-a03']);
    assert.equal(unchangedPolls(rig), ['false', 'false', 'false', 'true']);
  }));

test('a saved file larger than one read is read in chunks to the tree of the same output served whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ibnetdiscover-file-'));
  try {
    await withRig(async (rig) => {
      const big = addRailFabric(new IbFabric(), { units: 2, hostsPerUnit: 48, rails: 8, spines: 4 });
      const text = big.ibnetdiscoverText();
      assert.ok(text.length > 3 * 64 * 1024, `${text.length} bytes: several reads`);
      const file = join(dir, 'big.txt');
      writeFileSync(file, text);
      const hosts = Array.from({ length: 2 * 48 }, (_, i) => `su${Math.floor(i / 48) + 1}-h${(i % 48) + 1}`);
      const fromFile = await next(await rig.start({ fabric: 'big', file }, undefined, hosts));
      const served = await next(await rig.start({ fabric: 'big' }, serve(text), hosts));
      assert.equal(shape(fromFile), shape(served));
      assert.equal(members(fromFile[0]!).length, 48);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a wrong format, a cut output, an output without a switch or without Nodes publish nothing and say why', () =>
  withRig(async (rig) => {
    let text = "SW     0 36 0x0000000000200001 4x SDR                                    'MF0;SPINE-01:MQM9700/U1'\n";
    const ch = await rig.start({}, async () => text);
    const failed = async (pattern: string) => {
      const before = rig.problems.failures.length;
      await waitFor(() => rig.problems.failures.length > before && rig.problems.failures.at(-1), { what: pattern });
      assert.match(rig.problems.failures.at(-1)!, pattern, rig.problems.failures.at(-1));
    };
    await failed(
      'Failed to discover InfiniBand fabric ib; keeping its 0 HyperNodes: the ibnetdiscover output is not usable: this is the ports report of `ibnetdiscover -p`',
    );
    text = OUTPUT.slice(0, OUTPUT.length / 2);
    await failed('the ibnetdiscover output is not usable: the output');
    const lone = new IbFabric().addCa('a', 1, 'a mlx5_0').addCa('b', 1, 'b mlx5_0');
    lone.cable('a', 'b');
    text = lone.ibnetdiscoverText();
    await failed(
      'the output shows no switch (2 nodes): run ibnetdiscover on a host whose HCA port is cabled to the fabric',
    );
    text = OUTPUT.replaceAll('node-', 'other-');
    await failed(
      'none of the 11 hosts is a Kubernetes Node (8 named, 3 HCAs without a host name): check config.hostMapping and config.hostGuids',
    );
    await nothingPublished(ch);
    assert.is(rig.problems.recoveries, 0);
  }));

test('a saved file is read at every poll; a missing or stale file publishes nothing and says which and why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ibnetdiscover-file-'));
  try {
    await withRig(async (rig) => {
      const file = join(dir, 'compute.txt');
      const ch = await rig.start({ fabric: 'compute', file, maxAge: '1h', hcas: COMPUTE_HCAS });
      await waitFor(() => rig.problems.failures.length > 0, { what: 'the missing file reported' });
      assert.match(
        rig.problems.failures[0]!,
        `cannot use ${file}: no such file (is the job that writes it running, and its directory mounted here?)`,
      );
      writeFileSync(file, OUTPUT);
      assert.is((await next(ch)).length, 3);
      const { utimesSync } = await import('node:fs');
      const old = new Date(Date.now() - 2 * 3600_000);
      utimesSync(file, old, old);
      await waitFor(
        () =>
          rig.problems.failures.some((f) =>
            /it was written 72\d\ds ago, more than maxAge \(3600s\): is the job that writes it running\?/.test(f),
          ),
        {
          what: 'the stale file reported',
        },
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A file of tests/cmd/ibnetdiscover-capture (see its README). */
const siteFile = (name: string) => join(import.meta.dirname, '..', '..', '..', 'cmd', 'ibnetdiscover-capture', name);
const SITE_NODES = Array.from({ length: 8 }, (_, i) => `gpu00${i + 1}`);

test("ibdiagnet's copy of the fabric as config.file gives the tree, and a node-name-map's names win over descriptions", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ibnetdiscover-file-'));
  try {
    await withRig(async (rig) => {
      const nodeNameMap = join(dir, 'ib-node-name-map');
      writeFileSync(nodeNameMap, readFileSync(siteFile('ib-node-name-map')));
      // Files are read under the allowed directories only: the site's copy as its sidecar would leave it there.
      const file = join(dir, 'ibdiagnet2.ibnetdiscover');
      writeFileSync(file, readFileSync(siteFile('ibdiagnet2.ibnetdiscover')));
      const ch = await rig.start({ fabric: 'compute', file, nodeNameMap }, undefined, SITE_NODES);
      const leaf1 = 'compute-leaf-b83fd203002f1a00';
      const leaf2 = 'compute-leaf-b83fd203002f2a00';
      assert.equal(shape(await next(ch)), [
        `${leaf1} 1 leaf (IB-LEAF-SU1-R1 +1): gpu001,gpu002,gpu003,gpu004`,
        `${leaf2} 1 leaf (IB-LEAF-SU2-R1 +1): gpu005,gpu006,gpu007,gpu008`,
        `compute-spine-fc6a1c0300e6a440 2 spine (IB-SPINE-1 +1): ${leaf1},${leaf2}`,
      ]);
      // The map names gpu006's firmware-described HCA: no HCA is left without a host name.
      assert.is(logLine(rig, 'InfiniBand HCAs without a host name are left out'), undefined);
      assert.match(logLine(rig, 'Read the node-name-map')!, `file="${nodeNameMap}" names=7`);
      // An unchanged map and output publish the tree again; a changed map is read again and groups anew.
      await next(ch);
      writeFileSync(nodeNameMap, '0xb83fd203002f1a00 "LEAF-A"\n');
      await waitFor(
        async () => {
          const snapshot = await next(ch);
          return snapshot[0]!.metadata.annotations?.['volcano.sh/fabric-switches'] === 'LEAF-A +1' || undefined;
        },
        { timeoutMs: 10_000, what: 'the changed map read' },
      );
      assert.equal(unchangedPolls(rig).slice(0, 3), ['false', 'true', 'false']);
      assert.match(
        logLine(rig, 'InfiniBand HCAs without a host name are left out')!,
        'count=1 hosts="0x5c25730300e6767e',
      );
      // A map that stops being readable, or breaks, publishes nothing and says which line.
      writeFileSync(nodeNameMap, '0xb83fd203002f1a00 "LEAF-A"\nLEAF-B\n');
      await waitFor(() => rig.problems.failures.length > 0, { what: 'the broken map reported' });
      assert.match(
        rig.problems.failures[0]!,
        `Failed to discover InfiniBand fabric compute; keeping its 3 HyperNodes: config.nodeNameMap ${nodeNameMap} line 2 is not`,
      );
      rmSync(nodeNameMap);
      await waitFor(
        () =>
          rig.problems.failures.some((f) => f.includes(`config.nodeNameMap: cannot use ${nodeNameMap}: no such file`)),
        {
          what: 'the missing map reported',
        },
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a capture holding diagnostics gives the tree of its stdout and one warning, with their count and the first cut short', () =>
  withRig(async (rig) => {
    const capture = readFileSync(siteFile('compute-stderr.txt'), 'utf8');
    const ch = await rig.start(
      { fabric: 'compute', hcas: '^(mlx5_[01]|HCA-[12])$' },
      serve(capture),
      SITE_NODES.slice(0, 6),
    );
    assert.equal(shape(await next(ch)), [
      'compute-leaf-0000000000200002 1 leaf (LEAF-SU1-R1 +1): gpu001,gpu002,gpu003',
      'compute-leaf-0000000000200004 1 leaf (LEAF-SU2-R1 +1): gpu004,gpu005,gpu006',
      'compute-spine-0000000000200000 2 spine (SPINE-1 +1): compute-leaf-0000000000200002,compute-leaf-0000000000200004',
    ]);
    await next(ch);
    const warned = rig.lines.filter((l) => l.startsWith('Skipped diagnostic lines in the InfiniBand output'));
    assert.equal(warned, [
      'Skipped diagnostic lines in the InfiniBand output source="ibnetdiscover" fabric="compute" count=5 first="line 1: \\"ibwarn: [6984] sim_connect: attached as …\\" (72 bytes)"',
    ]);
  }));

test.run();
