// `render` and `plan` with `--ibnetdiscover-capture`: the tree of a
// rail-optimised InfiniBand fabric from what the real ibnetdiscover printed
// on ibsim (tests/cmd/ibnetdiscover-capture, testing/ib-fabric.ts's
// ibExampleFabric), with every host and HCA left out named with the change
// that places it, a capture per fabric, and errors naming the flag.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { plan } from '../../src/cmd/plan.ts';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { ibExampleFabric, leafId, spineId } from '../../testing/ib-fabric.ts';
import { NS, node, seedConfigMap } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { scratchDir } from './scratch-dir.ts';

const CAPTURE = join(import.meta.dirname, 'ibnetdiscover-capture', 'compute.txt');
const NODES = ['gpu001', 'gpu002', 'gpu003', 'gpu004', 'gpu005', 'gpu006'];
const HCAS = '"^(mlx5_[01]|HCA-[12])$"';
const fabric = ibExampleFabric();
const guid = (id: string) => fabric.nodes.get(id)!.guid.toString(16).padStart(16, '0');
const firmwareGuid = `0x${guid('gpu002 mlx5_1')}`;

const scratch = scratchDir('hn-render-ib-');
const s = session(test);
const entry = (config: string) =>
  `networkTopologyDiscovery:\n  - source: ibnetdiscover\n    enabled: true\n    config:\n${config}`;
const items = (stdout: string) => (parseYaml(stdout) as { items: HyperNode[] }).items;
const shape = (hns: HyperNode[]) =>
  hns.map(
    (hn) =>
      `${hn.metadata.name} ${hn.spec!.tier} ${hn.metadata.annotations?.['volcano.sh/fabric-switches']}: ${(hn.spec!.members ?? []).map((m) => m.selector?.exactMatch?.name).join(',')}`,
  );

test('the saved output renders one leaf group per unit under the spines, and names the hosts and HCAs left out with their fixes', async () => {
  const conf = scratch.write(
    'conf.yaml',
    entry(`      fabric: compute\n      command: [ibnetdiscover, -C, mlx5_0, -P, "1"]\n      hcas: ${HCAS}\n`),
  );
  const r = await render(
    ['--config', conf, '--nodes', scratch.nodesFile(NODES), '--ibnetdiscover-capture', `compute=${CAPTURE}`],
    'x',
  );
  assert.is(r.code, 0, r.stderr);
  const leaf1 = `compute-leaf-${guid(leafId(1, 1))}`;
  const leaf2 = `compute-leaf-${guid(leafId(2, 1))}`;
  assert.equal(shape(items(r.stdout)), [
    `${leaf1} 1 LEAF-SU1-R1 +1: gpu001,gpu002,gpu003`,
    `${leaf2} 1 LEAF-SU2-R1 +1: gpu004,gpu005,gpu006`,
    `compute-spine-${guid(spineId(1))} 2 SPINE-1 +1: ${leaf1},${leaf2}`,
  ]);
  assert.equal(items(r.stdout)[0]!.metadata.labels, {
    'volcano.sh/network-topology-source': 'ibnetdiscover',
    'volcano.sh/ibnetdiscover-fabric': 'compute',
  });
  assert.equal(
    r.stderr.split('\n').filter((l) => l !== ''),
    [
      'InfiniBand hosts that match no Node are left out entry="networkTopologyDiscovery[0] (source \\"ibnetdiscover\\", line 2)" source="ibnetdiscover" fabric="compute" count=2 hosts="ubuntu,ufm-01" change="if some are Nodes, set config.hostMapping so that their names become Node names"',
      `InfiniBand HCAs without a host name are left out entry="networkTopologyDiscovery[0] (source \\"ibnetdiscover\\", line 2)" source="ibnetdiscover" fabric="compute" count=1 hosts="${firmwareGuid} (\\"MT4129 ConnectX7   Mellanox Technologies\\": its description names no host)" change="map each GUID to its Node with a \\"GUID node\\" line in config.hostGuids, or name it \\"<hostname> <device>\\" in the node-name-map config.nodeNameMap reads, or set the HCA's node description to \\"<hostname> <device>\\" (rdma-ndd does)"`,
    ],
  );
  // The change it names: the HCA's line in hostGuids, and the report is gone.
  const fixed = scratch.write(
    'fixed.yaml',
    entry(`      fabric: compute\n      hcas: ${HCAS}\n      hostGuids: |\n        ${firmwareGuid} gpu002\n`),
  );
  const again = await render(
    ['--config', fixed, '--nodes', scratch.nodesFile(NODES), '--ibnetdiscover-capture', CAPTURE],
    'x',
  );
  assert.is(again.code, 0, again.stderr);
  assert.not.match(again.stderr, 'HCAs without a host name');
  assert.equal(shape(items(again.stdout)), shape(items(r.stdout)));
});

test('without hcas the storage HCAs join both units into one leaf group, the tree a user would otherwise not see coming', async () => {
  const conf = scratch.write('conf.yaml', entry('      fabric: compute\n'));
  const r = await render(
    ['--config', conf, '--nodes', scratch.nodesFile(NODES), '--ibnetdiscover-capture', CAPTURE, '-o', 'tree'],
    'x',
  );
  assert.is(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^compute-leaf-\w+ {2}tier=1 \(leaf\) {2}nodeCount=6 {2}nodes: gpu001, gpu002 … gpu006 \(6 nodes\)\n$/,
  );
});

test('each fabric needs its capture; a missing file, another format and a bad flag are named with what to do', async () => {
  const two = scratch.write(
    'two.yaml',
    entry(
      '      fabrics:\n        - {name: compute}\n        - {name: storage, file: /var/run/ibnetdiscover/storage.txt}\n',
    ),
  );
  const nodes = scratch.nodesFile(NODES);
  const missing = await render(
    ['--config', two, '--nodes', nodes, '--ibnetdiscover-capture', `compute=${CAPTURE}`],
    'x',
  );
  assert.is(missing.code, 1);
  assert.equal(missing.stdout, '');
  assert.match(
    missing.stderr,
    'error: source "ibnetdiscover": Failed to discover InfiniBand fabric storage; keeping its 0 HyperNodes: no ibnetdiscover output for fabric storage: pass --ibnetdiscover-capture storage=FILE with what `ibnetdiscover` prints on a host of that fabric',
  );
  const none = await render(['--config', two, '--nodes', nodes], 'x');
  assert.match(none.stderr, 'no ibnetdiscover output for fabric compute: pass --ibnetdiscover-capture compute=FILE');
  const gone = await render(
    ['--config', two, '--nodes', nodes, '--ibnetdiscover-capture', scratch.path('nope.txt')],
    'x',
  );
  assert.match(gone.stderr, `cannot read the --ibnetdiscover-capture ${scratch.path('nope.txt')} (no such file)`);
  const ports = scratch.write(
    'ports.txt',
    "SW     0  1 0x0000000000200001 4x SDR - SW     0 36 0x0000000000200000 ( 'SPINE-1' - 'LEAF-1' )\n",
  );
  const wrong = await render(['--config', two, '--nodes', nodes, '--ibnetdiscover-capture', ports], 'x');
  assert.match(
    wrong.stderr,
    'the ibnetdiscover output is not usable: this is the ports report of `ibnetdiscover -p`, not its default topology format',
  );
  const flag = await render(['--config', two, '--nodes', nodes, '--ibnetdiscover-capture', 'compute='], 'x');
  assert.is(flag.code, 2);
  assert.match(flag.stderr, '--ibnetdiscover-capture compute=: want FABRIC=FILE or FILE');
  const twice = await render(
    ['--config', two, '--nodes', nodes, '--ibnetdiscover-capture', 'a.txt', '--ibnetdiscover-capture', 'b.txt'],
    'x',
  );
  assert.match(
    twice.stderr,
    '--ibnetdiscover-capture b.txt: a file for every fabric is already given (a.txt); use FABRIC=FILE for more than one',
  );
});

test('plan --ibnetdiscover-capture plans the tree as creates against a cluster, never running ibnetdiscover', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of NODES) api.store.create(node(n, {}));
  // A subnet this host has no port on (and at most a second to find that out): only the capture can make this plan
  // succeed.
  seedConfigMap(
    api,
    entry(
      `      fabric: compute\n      command: [ibnetdiscover, -C, mlx5_9]\n      timeout: 1s\n      hcas: ${HCAS}\n`,
    ),
  );
  const env = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
  const r = await plan(
    [`--kubeconfig=${kubeconfig}`, '--ibnetdiscover-capture', `compute=${CAPTURE}`, '-o', 'json'],
    'x',
    { color: false, env },
  );
  assert.is(r.code, 2, r.stderr);
  const changes = (JSON.parse(r.stdout) as { changes: { action: string; source: string; name: string }[] }).changes;
  assert.equal(
    changes.map((c) => `${c.action} ${c.source} ${c.name}`),
    [
      `create ibnetdiscover compute-leaf-${guid(leafId(1, 1))}`,
      `create ibnetdiscover compute-leaf-${guid(leafId(2, 1))}`,
      `create ibnetdiscover compute-spine-${guid(spineId(1))}`,
    ],
  );
  assert.match(r.stderr, 'InfiniBand HCAs without a host name are left out');
  // Without the capture the source stands as its HyperNodes in the cluster (none): still nothing runs.
  const without = await plan([`--kubeconfig=${kubeconfig}`], 'x', { color: false, env });
  assert.is(without.code, 0, without.stderr);
  assert.match(
    without.stderr,
    /^warning: source "ibnetdiscover" is planned from the 0 HyperNode\(s\).*plan never runs ibnetdiscover/m,
  );
  assert.not.match(without.stderr, 'cannot run');
});

test.run();
