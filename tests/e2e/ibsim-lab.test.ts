// The ibnetdiscover source on a real InfiniBand stack (testing/ibsim-lab.ts):
// Debian's ibsim simulates a script-built fabric and the real ibnetdiscover
// reads it through ibsim-run (the lab's script, given as --ibnetdiscover-command), as
// the source runs it on an IB host. The
// fabric has what the field has: an SM host first, rail-optimised units,
// SHARP aggregation nodes, a second plane (storage HCAs) on the same subnet,
// two parallel uplinks per leaf and spine, and one uplink out.
//
// - The text testing/ib-fabric.ts writes (the benchmark's, the unit tests')
//   is what the real ibnetdiscover prints, and so are the docs' captures.
// - The built executable, under the chart's RBAC, builds the tree; a unit
//   whose cables come in adds its leaf HyperNode and a spine member, renames,
//   recreates and deletes nothing.
// - Unlinking a host's cables keeps its membership and turns its leaf's
//   HyperNode FabricHealthy=False naming switch, port and host; ReLink turns
//   it True; each is one status write.
//
// - The Kubernetes variant's sidecar script (deploy/infiniband) saves what the
//   real ibnetdiscover prints; the controller reading it with config.file
//   builds the same tree, and once the writer stops, the file ages past
//   maxAge and the source publishes nothing, keeping every HyperNode.
// - A site's node-name-map names HCAs that kept the firmware's description
//   and leaves that kept the factory one: passed to the real ibnetdiscover as
//   `--node-name-map`, or read by the source as config.nodeNameMap, it gives
//   the same tree; a changed map is read again.
//
// Each lab has its own ibsim socket (IBSIM_SOCKNAME), so labs never meet.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import {
  addRailFabric,
  caId,
  ibExampleFabric,
  ibGb200ExampleFabric,
  IbFabric,
  ibStorageOnSpineFabric,
  leafId,
  quantumDescription,
  spineId,
  TWO_UNITS,
} from '../../testing/ib-fabric.ts';
import { ibsimLabPerTest, ibsimLabUnavailable } from '../../testing/ibsim-lab.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { testNeeding } from '../support/skip.ts';
import {
  NS,
  SOURCE_LABEL,
  answeredHyperNodeWrites,
  assertNoDeletes,
  assertNoForbidden,
  describeWrites,
  fabricHealthSettled,
  fabricHealthy,
  hyperNodes,
  node,
  nodeCountsSettled,
  seedConfigMap,
  setDiscoveryConfig,
  topologyShape,
} from './cluster.ts';
import { session } from './session.ts';
import { REPO_ROOT } from '../../testing/executables.ts';
import { waitFor } from '../../testing/wait.ts';

const FABRIC = 'lab';
const s = session(test);
const newLab = ibsimLabPerTest(test);
const withLab = testNeeding(ibsimLabUnavailable());

const hostsOf = (unit: number) => [1, 2, 3].map((h) => `su${unit}-h${h}`);
const guidOf = (fabric: IbFabric, id: string) => fabric.nodes.get(id)!.guid.toString(16).padStart(16, '0');
/** The HyperNode names of unit `unit`'s leaf group and of the spine group, as the fabric's GUIDs make them. */
const leafOf = (fabric: IbFabric, unit: number) => `${FABRIC}-leaf-${guidOf(fabric, leafId(unit, 1))}`;
const spineOf = (fabric: IbFabric) => `${FABRIC}-spine-${guidOf(fabric, spineId(1))}`;
/** Each HyperNode of the source as `name tier switches: members`, sorted: the tree a user reads. */
const treeOf = (api: Parameters<typeof hyperNodes>[0]) =>
  hyperNodes(api, 'ibnetdiscover')
    .map(
      (hn: HyperNode) =>
        `${hn.metadata.name} ${hn.spec!.tier} ${hn.metadata.annotations?.['volcano.sh/fabric-switches']}: ${memberNames(hn).join(',')}`,
    )
    .sort();

/**
 * Three rail-optimised units of three hosts on two rails (mlx5_0, mlx5_1), two spines,
 * two cables per leaf and spine, unit 2's rail-2 leaf missing spine 1, an aggregation node
 * on every switch, and each host's storage HCA (mlx5_8) on a storage leaf cabled to the spines.
 */
function labFabric(): IbFabric {
  const f = new IbFabric().addCa('sm-01', 1, 'sm-01 mlx5_0');
  addRailFabric(f, {
    units: 3,
    hostsPerUnit: 3,
    rails: 2,
    spines: 2,
    parallel: 2,
    missingUplinks: [[2, 2, 1]],
    // ibsim prints its node ids as descriptions, so each aggregation node's is made unique.
    aggregationNode: (id) => `Mellanox Technologies Aggregation Node ${id}`,
  });
  f.cable('sm-01', leafId(1, 1));
  f.addSwitch('storage-1', 64, quantumDescription('STORAGE-1'));
  for (let sp = 1; sp <= 2; sp++) f.cable('storage-1', spineId(sp));
  for (const host of [1, 2, 3].flatMap(hostsOf)) f.addCa(caId(host, 'mlx5_8')).cable(caId(host, 'mlx5_8'), 'storage-1');
  return f;
}

/** The word ibnetdiscover stands for the operator's program: the lab's script. */
const CONFIG = `networkTopologyDiscovery:
  - source: ibnetdiscover
    enabled: true
    interval: 1s
    config:
      fabric: ${FABRIC}
      command: [ibnetdiscover, -C, ibsim0, -P, "1"]
      hcas: "^mlx5_[01]$"
`;

/**
 * Blocks of an ibnetdiscover output (from the first `vendid=`), sorted: the order the real one prints depends on its
 * walk.
 */
const blocks = (text: string) =>
  text
    .split('\n\n')
    .slice(1)
    .map((b) => b.trim())
    .sort();

withLab(
  'the text testing/ib-fabric.ts writes, and the docs captures, are what the real ibnetdiscover prints',
  async () => {
    const fabric = labFabric();
    const lab = await newLab(fabric);
    assert.equal(blocks(lab.discover()), blocks(fabric.ibnetdiscoverText()));
    // The docs' captures: the InfiniBand example's (tests/cmd/ibnetdiscover-capture) and the GB200 example's.
    for (const [example, capture] of [
      [ibExampleFabric(), '../cmd/ibnetdiscover-capture/compute.txt'],
      [ibGb200ExampleFabric(), '../repo/docs-examples/gb200-ib.txt'],
      [ibStorageOnSpineFabric(), '../cmd/ibnetdiscover-capture/storage-on-spine.txt'],
    ] as const) {
      const real = (await newLab(example)).discover(['-C', 'ibsim0', '-P', '1']);
      assert.equal(blocks(real), blocks(readFileSync(join(import.meta.dirname, capture), 'utf8')), capture);
      assert.equal(blocks(real), blocks(example.ibnetdiscoverText()), `testing/ib-fabric.ts writes ${capture}`);
    }
  },
);

withLab(
  'the executable builds the tree from the real ibnetdiscover; a unit whose cables come in adds its leaf and renames nothing',
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const fabric = labFabric();
    const lab = await newLab(fabric);
    // Unit 3 is cabled later: its leaves' cables are out, so it is not on the subnet yet.
    for (let r = 1; r <= 2; r++) await lab.unlink(fabric.nodes.get(leafId(3, r))!.description);
    for (const h of [1, 2, 3].flatMap(hostsOf)) api.store.create(node(h, {}));
    seedConfigMap(api, CONFIG);
    s.controller = await startControllerBinary({
      kubeconfig,
      namespace: NS,
      flags: ['-v=3'],
      ibnetdiscoverCommand: lab.ibnetdiscover,
    });
    const leaf = (unit: number) => leafOf(fabric, unit);
    const spine = spineOf(fabric);
    const tree = () => treeOf(api);
    const twoUnits = [
      `${leaf(1)} 1 LEAF-SU1-R1 +1: ${hostsOf(1).join(',')}`,
      `${leaf(2)} 1 LEAF-SU2-R1 +1: ${hostsOf(2).join(',')}`,
      `${spine} 2 SPINE-1 +1: ${leaf(1)},${leaf(2)}`,
    ];
    await s.converge(
      () => JSON.stringify(tree()) === JSON.stringify(twoUnits) && nodeCountsSettled(api) && fabricHealthSettled(api),
      'the two-unit tree from the real ibnetdiscover',
    );
    for (const hn of hyperNodes(api, 'ibnetdiscover'))
      assert.equal(hn.metadata.labels, { [SOURCE_LABEL]: 'ibnetdiscover', 'volcano.sh/ibnetdiscover-fabric': FABRIC });
    assert.ok(
      hyperNodes(api, 'ibnetdiscover').every((hn) => fabricHealthy(hn)?.status === 'True'),
      'the missing uplink was never there: no problem',
    );

    const before = topologyShape(api, 'ibnetdiscover');
    api.requests.clear();
    for (let r = 1; r <= 2; r++) await lab.relink(fabric.nodes.get(leafId(3, r))!.description);
    const threeUnits = [
      ...twoUnits.slice(0, 2),
      `${leaf(3)} 1 LEAF-SU3-R1 +1: ${hostsOf(3).join(',')}`,
      `${spine} 2 SPINE-1 +1: ${leaf(1)},${leaf(2)},${leaf(3)}`,
    ];
    await s.converge(
      () => JSON.stringify(tree()) === JSON.stringify(threeUnits) && nodeCountsSettled(api) && fabricHealthSettled(api),
      'the third unit',
    );
    const writes = describeWrites(await answeredHyperNodeWrites(api));
    assert.equal(
      writes.filter((w) => !w.includes('/status')),
      ['create <new> → 201', `update ${spine} → 200`],
      `the new leaf created, the spine given its member: ${writes.join(', ')}`,
    );
    for (const line of before.filter((l) => !l.startsWith(spine)))
      assert.ok(topologyShape(api, 'ibnetdiscover').includes(line), `${line} kept its name, uid and members`);
    assertNoDeletes(api);
    assertNoForbidden(api);
  },
);

withLab(
  "unlinking a host's cables keeps it in its leaf and marks the leaf's FabricHealthy, naming switch, port and host; ReLink clears it",
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const fabric = labFabric();
    const lab = await newLab(fabric);
    for (const h of [1, 2, 3].flatMap(hostsOf)) api.store.create(node(h, {}));
    seedConfigMap(api, CONFIG);
    s.startInProcess(kubeconfig, { ibnetdiscoverCommand: lab.ibnetdiscover });
    const leaf1 = leafOf(fabric, 1);
    const named = () => hyperNodes(api, 'ibnetdiscover').find((hn) => hn.metadata.name === leaf1);
    await s.converge(
      () =>
        hyperNodes(api, 'ibnetdiscover').length === 4 &&
        fabricHealthy(named())?.status === 'True' &&
        nodeCountsSettled(api) &&
        fabricHealthSettled(api),
      'the tree, every HyperNode FabricHealthy=True',
    );
    const before = topologyShape(api, 'ibnetdiscover');
    // What the controller said: the fabric it runs, and ibsim's greeting on ibnetdiscover's stderr, once.
    assert.match(
      s.log(),
      `Starting InfiniBand fabric discovery source="ibnetdiscover" fabric="${FABRIC}" command="${lab.ibnetdiscover} -C ibsim0 -P 1"`,
    );
    assert.is(s.log().split('ibnetdiscover wrote to stderr').length - 1, 1, s.log());
    api.requests.clear();

    // su1-h2's two compute HCAs lose their cables, as when the host powers off.
    for (const device of ['mlx5_0', 'mlx5_1']) await lab.unlink(caId('su1-h2', device));
    assert.not.match(lab.discover(), '"su1-h2 mlx5_0"', 'ibnetdiscover no longer shows the HCA');
    const port = (rail: number) =>
      fabric.portsOf(leafId(1, rail)).find((p) => p.peer.id === caId('su1-h2', `mlx5_${rail - 1}`))!.port;
    const down = await s.converge(() => {
      const c = fabricHealthy(named());
      return c?.status === 'False' ? c : undefined;
    }, `${leaf1} FabricHealthy=False`);
    assert.is(down.reason, 'LinksDown');
    assert.is(
      down.message,
      `2 fabric problems: LEAF-SU1-R1 port ${port(1)} (link to host su1-h2 missing), LEAF-SU1-R2 port ${port(2)} (link to host su1-h2 missing).`,
    );
    assert.equal(topologyShape(api, 'ibnetdiscover'), before, 'members, names and uids unchanged');
    assert.equal(
      describeWrites(await answeredHyperNodeWrites(api)),
      [`update ${leaf1}/status → 200`],
      'one status write, on the leaf',
    );

    api.requests.clear();
    for (const device of ['mlx5_0', 'mlx5_1']) await lab.relink(caId('su1-h2', device));
    await s.converge(() => fabricHealthy(named())?.status === 'True', `${leaf1} FabricHealthy=True again`);
    assert.equal(topologyShape(api, 'ibnetdiscover'), before);
    assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [`update ${leaf1}/status → 200`]);
    assertNoDeletes(api);
    assertNoForbidden(api);
  },
);

withLab(
  "the Kubernetes variant's writer saves the real output whole; the controller reads it with config.file; a stopped writer is noticed by maxAge",
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const fabric = labFabric();
    const lab = await newLab(fabric);
    const dir = mkdtempSync(join(tmpdir(), 'ibnetdiscover-writer-'));
    const output = join(dir, 'fabric.txt');
    const writer = spawn(
      'sh',
      [join(REPO_ROOT, 'deploy/infiniband/ibnetdiscover-writer.sh'), '-C', 'ibsim0', '-P', '1'],
      {
        env: { ...process.env, OUTPUT: output, INTERVAL: '1', TIMEOUT: '20', IBNETDISCOVER: lab.ibnetdiscover },
        stdio: 'ignore',
        detached: true,
      },
    );
    const stopWriter = () => {
      try {
        process.kill(-writer.pid!, 'SIGTERM');
      } catch {
        // gone
      }
    };
    try {
      await waitFor(() => existsSync(output), { timeoutMs: 20_000, what: 'the writer saving the first output' });
      assert.equal(
        blocks(readFileSync(output, 'utf8')),
        blocks(lab.discover()),
        'the saved output is what ibnetdiscover prints',
      );
      for (const h of [1, 2, 3].flatMap(hostsOf)) api.store.create(node(h, {}));
      seedConfigMap(
        api,
        `networkTopologyDiscovery:\n  - source: ibnetdiscover\n    enabled: true\n    interval: 1s\n    config:\n      fabric: ${FABRIC}\n      file: ${output}\n      maxAge: 4s\n      hcas: "^mlx5_[01]$"\n`,
      );
      s.startInProcess(kubeconfig);
      await s.converge(
        () => hyperNodes(api, 'ibnetdiscover').length === 4 && nodeCountsSettled(api),
        'the tree from the saved output',
      );
      const before = topologyShape(api, 'ibnetdiscover');
      stopWriter();
      const failed = await s.converge(
        () =>
          (api.store.list('events', NS) as unknown as { reason: string; message: string }[]).find(
            (e) =>
              e.reason === 'DiscoveryFailed' &&
              e.message.includes('more than maxAge (4s): is the job that writes it running?'),
          ),
        'a DiscoveryFailed Event for the stale file',
      );
      assert.match(
        failed.message,
        `Failed to discover InfiniBand fabric ${FABRIC}; keeping its 4 HyperNodes: cannot use ${output}: it was written`,
      );
      assert.equal(topologyShape(api, 'ibnetdiscover'), before, 'every HyperNode kept');
      assertNoDeletes(api);
    } finally {
      stopWriter();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/**
 * Two units of three hosts on two rails under two spines, as a site where the leaves kept the factory description and
 * two HCAs the firmware's (ibsim prints node ids as descriptions, so each is made unique), with the site's node-name-map
 * for them.
 */
function unnamedFabric(): { fabric: IbFabric; map: string } {
  const firmware = new Set(['su1-h2 mlx5_1', 'su2-h3 mlx5_0']);
  const f = new IbFabric().addCa('sm-01', 1, 'sm-01 mlx5_0');
  let n = 0;
  addRailFabric(f, {
    ...TWO_UNITS,
    leafDescription: (u, r) => `Quantum-2 Mellanox Technologies ${u}${r}`,
    caDescription: (host, device) =>
      firmware.has(`${host} ${device}`) ? `MT4129 ConnectX7   Mellanox Technologies ${++n}` : `${host} ${device}`,
  });
  f.cable('sm-01', leafId(1, 1));
  const guid = (id: string) => `0x${guidOf(f, id)}`;
  const map = [
    '# /etc/rdma/ib-node-name-map',
    ...[1, 2].flatMap((u) => [1, 2].map((r) => `${guid(leafId(u, r))} "IB-LEAF-SU${u}-R${r}"`)),
    ...[...firmware].map((id) => `${guid(id)} "${id}"   # firmware description`),
  ].join('\n');
  return { fabric: f, map: `${map}\n` };
}

withLab(
  "a site's node-name-map gives the same tree passed to the real ibnetdiscover (--node-name-map) or read as config.nodeNameMap",
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const { fabric, map } = unnamedFabric();
    const lab = await newLab(fabric);
    const dir = mkdtempSync(join(tmpdir(), 'ib-node-name-map-'));
    try {
      const mapFile = join(dir, 'ib-node-name-map');
      writeFileSync(mapFile, map);
      // The real ibnetdiscover prints the map's names on the switches' lines (a CA's own header keeps its description).
      assert.match(lab.discover(['-C', 'ibsim0', '-P', '1', '--node-name-map', mapFile]), '"su1-h2 mlx5_1" lid 0');
      const hosts = [1, 2].flatMap(hostsOf).slice(0, 6);
      for (const h of hosts) api.store.create(node(h, {}));
      const entry = (config: string) =>
        `networkTopologyDiscovery:\n  - source: ibnetdiscover\n    enabled: true\n    interval: 1s\n    config:\n      fabric: ${FABRIC}\n${config}`;
      seedConfigMap(api, entry(`      command: [ibnetdiscover, -C, ibsim0, -P, "1", --node-name-map, ${mapFile}]\n`));
      s.startInProcess(kubeconfig, { ibnetdiscoverCommand: lab.ibnetdiscover });
      const leaf = (unit: number) => leafOf(fabric, unit);
      const spine = spineOf(fabric);
      const named = (first: string) => [
        `${leaf(1)} 1 ${first} +1: ${hostsOf(1).join(',')}`,
        `${leaf(2)} 1 IB-LEAF-SU2-R1 +1: ${hostsOf(2).join(',')}`,
        `${spine} 2 SPINE-1 +1: ${leaf(1)},${leaf(2)}`,
      ];
      await s.converge(
        () => JSON.stringify(treeOf(api)) === JSON.stringify(named('IB-LEAF-SU1-R1')) && nodeCountsSettled(api),
        'the tree with the names --node-name-map gave',
      );
      assert.not.match(s.log(), 'InfiniBand HCAs without a host name are left out');
      const before = topologyShape(api, 'ibnetdiscover');

      // The same map read by the source: the same tree, nothing written.
      api.requests.clear();
      setDiscoveryConfig(
        api,
        entry(`      command: [ibnetdiscover, -C, ibsim0, -P, "1"]\n      nodeNameMap: ${mapFile}\n`),
      );
      await s.converge(
        () => s.log().includes(`Read the node-name-map source="ibnetdiscover" file="${mapFile}" names=6`),
        'the map read',
      );
      await s.converge(() => {
        const since = s.log().slice(s.log().indexOf('Read the node-name-map'));
        return since.split('Topology reconciliation completed source="ibnetdiscover"').length > 2 || undefined;
      }, 'two snapshots with the map read by the source');
      assert.equal(topologyShape(api, 'ibnetdiscover'), before);
      assert.equal(
        describeWrites(await answeredHyperNodeWrites(api)).filter((w) => !w.includes('/status')),
        [],
      );

      // A changed map is read again at the next poll.
      writeFileSync(mapFile, map.replace('"IB-LEAF-SU1-R1"', '"IB-LEAF-A1"'));
      await s.converge(
        () => JSON.stringify(treeOf(api)) === JSON.stringify(named('IB-LEAF-A1')),
        'the leaf renamed by the changed map',
      );
      assert.not.match(s.log(), 'InfiniBand HCAs without a host name are left out');
      assertNoDeletes(api);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test.run();
