// `render` and `plan` with `--ibnetdiscover-capture` on the files sites hold
// beside a fresh ibnetdiscover run (tests/cmd/ibnetdiscover-capture/README.md):
// ibdiagnet's copy of a Quantum-2 fabric, a capture with stderr in it, a fat
// tree with storage on a spine, and the node-name-map in each form a site
// writes it. Each renders the tree a user expects, and names what it left
// out with the change that places it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { plan } from '../../src/cmd/plan.ts';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { NS, node, seedConfigMap } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { scratchDir } from './scratch-dir.ts';

const capture = (name: string) => join(import.meta.dirname, 'ibnetdiscover-capture', name);
const IBDIAGNET = capture('ibdiagnet2.ibnetdiscover');
const NODE_NAME_MAP = capture('ib-node-name-map');
/** gpu006's mlx5_1, which kept the firmware's description in the ibdiagnet fabric. */
const FIRMWARE_HCA = '5c25730300e6767e';
const NODES = Array.from({ length: 8 }, (_, i) => `gpu00${i + 1}`);

const scratch = scratchDir('hn-render-ib-field-');
const s = session(test);
const entry = (config: string) =>
  `networkTopologyDiscovery:\n  - source: ibnetdiscover\n    enabled: true\n    config:\n      fabric: compute\n${config}`;
const items = (stdout: string) => (parseYaml(stdout) as { items: HyperNode[] }).items;
const shape = (hns: HyperNode[]) =>
  hns.map(
    (hn) =>
      `${hn.metadata.name} ${hn.spec!.tier} ${hn.metadata.annotations?.['volcano.sh/fabric-switches']}: ${(hn.spec!.members ?? []).map((m) => m.selector?.exactMatch?.name).join(',')}`,
  );
const renderWith = (config: string, file: string, nodes: readonly string[] = NODES) =>
  render(
    [
      '--config',
      scratch.write('conf.yaml', entry(config)),
      '--nodes',
      scratch.nodesFile(nodes),
      '--ibnetdiscover-capture',
      file,
    ],
    'x',
  );
const stderrLines = (stderr: string) => stderr.split('\n').filter((l) => l !== '');

const LEAF1 = 'compute-leaf-b83fd203002f1a00';
const LEAF2 = 'compute-leaf-b83fd203002f2a00';
const SPINE = 'compute-spine-fc6a1c0300e6a440';

test("ibdiagnet's ibdiagnet2.ibnetdiscover renders its Quantum-2 fabric, and names the UFM server and the firmware-described HCA", async () => {
  const r = await renderWith('', IBDIAGNET);
  assert.is(r.code, 0, r.stderr);
  // Leaves that kept the factory description are named by it; the spines by their Quantum names.
  assert.equal(shape(items(r.stdout)), [
    `${LEAF1} 1 Quantum-2 Mellanox Technologies +1: gpu001,gpu002,gpu003,gpu004`,
    `${LEAF2} 1 Quantum-2 Mellanox Technologies +1: gpu005,gpu006,gpu007,gpu008`,
    `${SPINE} 2 IB-SPINE-1 +1: ${LEAF1},${LEAF2}`,
  ]);
  const lines = stderrLines(r.stderr);
  assert.is(lines.length, 2, r.stderr);
  assert.match(lines[0]!, 'InfiniBand hosts that match no Node are left out');
  assert.match(lines[0]!, 'count=1 hosts="ufm-01"');
  assert.match(lines[1]!, 'InfiniBand HCAs without a host name are left out');
  assert.match(
    lines[1]!,
    `hosts="0x${FIRMWARE_HCA} (\\"MT4129 ConnectX7   Mellanox Technologies\\": its description names no host)"`,
  );
  assert.match(lines[1]!, 'in the node-name-map config.nodeNameMap reads');
});

test("the site's node-name-map names the leaves and places the firmware-described HCA: its names win over descriptions", async () => {
  const r = await renderWith(`      nodeNameMap: ${NODE_NAME_MAP}\n`, IBDIAGNET);
  assert.is(r.code, 0, r.stderr);
  assert.equal(shape(items(r.stdout)), [
    `${LEAF1} 1 IB-LEAF-SU1-R1 +1: gpu001,gpu002,gpu003,gpu004`,
    `${LEAF2} 1 IB-LEAF-SU2-R1 +1: gpu005,gpu006,gpu007,gpu008`,
    `${SPINE} 2 IB-SPINE-1 +1: ${LEAF1},${LEAF2}`,
  ]);
  assert.equal(items(r.stdout)[1]!.metadata.annotations?.['volcano.sh/fabric-switches'], 'IB-LEAF-SU2-R1 +1');
  assert.not.match(r.stderr, 'HCAs without a host name');
  assert.match(r.stderr, 'count=1 hosts="ufm-01"');
});

test('hostGuids places the HCA in each form a site writes: GUID node, H-<guid> node, and a line of the node-name-map', async () => {
  for (const line of [
    `0x${FIRMWARE_HCA} gpu006`,
    `H-${FIRMWARE_HCA} gpu006`,
    `0x${FIRMWARE_HCA} "gpu006 mlx5_1"   # from /etc/rdma/ib-node-name-map`,
  ]) {
    const r = await renderWith(`      hostGuids: |\n        ${line}\n`, IBDIAGNET);
    assert.is(r.code, 0, r.stderr);
    assert.not.match(r.stderr, 'HCAs without a host name', line);
    assert.equal(items(r.stdout)[1]!.spec!.members!.length, 4, line);
  }
  // The whole map pasted into hostGuids reads as the file does.
  const pasted = readFileSync(NODE_NAME_MAP, 'utf8').replaceAll(/^/gm, '        ');
  const r = await renderWith(`      hostGuids: |\n${pasted}`, IBDIAGNET);
  assert.is(r.code, 0, r.stderr);
  assert.equal(items(r.stdout)[0]!.metadata.annotations?.['volcano.sh/fabric-switches'], 'IB-LEAF-SU1-R1 +1');
  assert.not.match(r.stderr, 'HCAs without a host name');
});

test('a capture with stderr in it renders the tree of its stdout, with one warning giving the count and the first line', async () => {
  const hcas = '      hcas: "^(mlx5_[01]|HCA-[12])$"\n';
  const nodes = NODES.slice(0, 6);
  const plain = await renderWith(hcas, capture('compute.txt'), nodes);
  const r = await renderWith(hcas, capture('compute-stderr.txt'), nodes);
  assert.is(r.code, 0, r.stderr);
  assert.equal(shape(items(r.stdout)), shape(items(plain.stdout)));
  const warned = stderrLines(r.stderr).filter((l) => l.startsWith('Skipped diagnostic lines'));
  assert.equal(warned.length, 1, r.stderr);
  assert.match(warned[0]!, 'count=5 first="line 1: \\"ibwarn: [6984] sim_connect: attached as …\\" (72 bytes)"');
  // What else is left out is named as for the output alone.
  assert.equal(
    stderrLines(r.stderr).filter((l) => !l.startsWith('Skipped diagnostic lines')),
    stderrLines(plain.stderr),
  );
});

test('storage servers on a spine: the spine counts as a leaf, the other spine groups the units, and the report names the change', async () => {
  const nodes = NODES.slice(0, 6);
  const r = await renderWith('', capture('storage-on-spine.txt'), nodes);
  assert.is(r.code, 0, r.stderr);
  const leaf = (g: number) => `compute-leaf-000000000020000${g}`;
  assert.equal(shape(items(r.stdout)), [
    `${leaf(2)} 1 LEAF-SU1-R1 +1: gpu001,gpu002,gpu003`,
    `${leaf(4)} 1 LEAF-SU2-R1 +1: gpu004,gpu005,gpu006`,
    `compute-spine-0000000000200001 2 SPINE-2: ${leaf(2)},${leaf(4)}`,
  ]);
  assert.ok(
    stderrLines(r.stderr).includes(
      'warning: source "ibnetdiscover": fabric compute: 1 link(s) or host(s) join no group as cabled: switch SPINE-1 is cabled to hosts (stor01, stor02) and to 4 switches cabled to hosts (LEAF-SU1-R1, LEAF-SU1-R2, LEAF-SU2-R1, LEAF-SU2-R2): it counts as a leaf, so no tier sits over them; if it is a spine, cable its hosts to leaves',
    ),
    r.stderr,
  );
  assert.match(r.stderr, 'count=3 hosts="sm-01,stor01,stor02"');
  // Storage servers that are Nodes: their spine is a leaf HyperNode of its own, outside the tree.
  const withStorage = await renderWith('', capture('storage-on-spine.txt'), [...nodes, 'stor01', 'stor02']);
  assert.ok(shape(items(withStorage.stdout)).includes(`${leaf(0)} 1 SPINE-1: stor01,stor02`), withStorage.stdout);
});

test("plan --ibnetdiscover-capture plans ibdiagnet's fabric with the node-name-map as creates", async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of NODES) api.store.create(node(n, {}));
  seedConfigMap(api, entry(`      command: [ibnetdiscover]\n      nodeNameMap: ${NODE_NAME_MAP}\n`));
  const env = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
  const r = await plan([`--kubeconfig=${kubeconfig}`, '--ibnetdiscover-capture', IBDIAGNET, '-o', 'json'], 'x', {
    color: false,
    env,
  });
  assert.is(r.code, 2, r.stderr);
  const changes = (JSON.parse(r.stdout) as { changes: { action: string; name: string }[] }).changes;
  assert.equal(
    changes.map((c) => `${c.action} ${c.name}`),
    [`create ${LEAF1}`, `create ${LEAF2}`, `create ${SPINE}`],
  );
  assert.not.match(r.stderr, 'HCAs without a host name');
});

test.run();
