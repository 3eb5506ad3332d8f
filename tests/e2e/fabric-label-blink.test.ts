// The NVLink label blinking on fabric sources with `nvlink: domain`, end to
// end with every export on (Node labels, Kueue and KAI Topology objects),
// the controller in this process: UFM fabric mode (the UFM stand-in) and the
// ibnetdiscover source on the ibsim lab (the real ibnetdiscover through
// ibsim-run). A rolling blink of nvidia.com/gpu.clique over every Node (a
// GPU DRA driver upgrade) writes status conditions only; on UFM, a
// controller restarted while a Node is held moves nothing, and a clique
// away past health.labelGracePeriod gives exactly the writes of its move.
// Polls are an hour apart: every change is a rebuild from the last poll.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addRailFabric, IbFabric, leafId } from '../../testing/ib-fabric.ts';
import { ibsimLabPerTest, ibsimLabUnavailable } from '../../testing/ibsim-lab.ts';
import { nodeLabelOverlayRules } from '../../testing/component-rbac.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { TEST_CA, UfmServer } from '../../testing/ufm-server.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import { testNeeding } from '../support/skip.ts';
import { NS, UFM_SECRET, hyperNodes, node, secretObject, seedConfigMap, setNodeLabels } from './cluster.ts';
import { twoUnitUfmFabric } from './nvlink-scenario.ts';
import { session } from './session.ts';
import { BOTH_EXPORTS, CURRENT, KAI, KUEUE, PREFIX, topo } from './topology-cluster.ts';
import { assertOnlyConditions, controllerWrites, heldOn, rollingBlink, settled } from './label-blink.ts';

const s = session(test);
const newLab = ibsimLabPerTest(test);
const withLab = testNeeding(ibsimLabUnavailable());
const CLIQUE = 'nvidia.com/gpu.clique';
const RACKS = ['7b968a6d-c8aa-45e1-9e07-e1e51be99c31', '52c0ab5e-1f0e-4a3c-9d6b-2f8e7a1c0b93'];
const EXPORTS = `    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n${BOTH_EXPORTS}`;

/** The cluster with the Node-label overlay and both Topology CRDs, the hosts as Nodes (unit u's in rack u). */
async function cluster(units: readonly (readonly string[])[]) {
  const c = await s.startCluster(nodeLabelOverlayRules());
  for (const f of CURRENT) c.api.installCrd(f);
  units.forEach((hosts, u) => {
    for (const h of hosts) c.api.store.create(node(h, { [CLIQUE]: `${RACKS[u]}.1` }));
  });
  return c;
}

/** Every Node carries its nvl-domain export label, and both Topology objects of `source` exist. */
const exported = (api: ApiServer, source: string) => () =>
  api.store.list('nodes').every((n) => n.metadata.labels?.[`${PREFIX}/nvl-domain`] !== undefined) &&
  topo(api, KUEUE, `hypernode-${source}`) !== undefined &&
  topo(api, KAI, `hypernode-${source}`) !== undefined;

/** Two units of four GB200 trays on a two-tier UFM fabric, the UFM stand-in serving it, and its Secret. */
async function ufmCluster(health = '') {
  const fabric = twoUnitUfmFabric();
  const units = [fabric.hosts.slice(0, 4), fabric.hosts.slice(4)];
  const { api, kubeconfig } = await cluster(units);
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.answer = { kind: 'fabric', fabric };
  api.store.apply(
    secretObject(
      UFM_SECRET,
      { username: ufm.username, password: ufm.password, 'ca.crt': TEST_CA },
      { endpoints: [ufm.endpoint()] },
    ),
  );
  seedConfigMap(
    api,
    `${health}networkTopologyDiscovery:
  - source: ufm
    enabled: true
    interval: 1h
    credentials:
      secretRef: {name: ${UFM_SECRET}, namespace: ${NS}}
${EXPORTS}    config:
      mode: fabric
      fabric: gb200
      endpoint: "${ufm.endpoint()}"
      nvlink: domain
`,
  );
  s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  await settled(s, api, 'ufm', exported(api, 'ufm'));
  return { api, ufm, hosts: units.flat() };
}

test('UFM fabric mode with nvlink: domain: a rolling blink of the clique over every Node writes only conditions, and reads UFM no more', async () => {
  const { api, ufm, hosts } = await ufmCluster();
  const reads = ufm.requests.length;
  api.requests.clear();
  await rollingBlink(s, api, hosts, CLIQUE);
  assertOnlyConditions(api, 'the rolling blink');
  assert.is(ufm.requests.length, reads, 'no poll of the fabric');
});

test('UFM fabric mode: a controller restarted while a Node is held moves nothing; its clique away past the grace period moves it once', async () => {
  const { api, hosts } = await ufmCluster('health: {labelGracePeriod: 20s}\n');
  const [tray] = hosts;
  const domain = hyperNodes(api, 'ufm').find((hn) => memberNames(hn).includes(tray!))!.metadata.name;
  const leaf = hyperNodes(api, 'ufm').find((hn) => memberNames(hn).includes(domain))!.metadata.name;
  api.requests.clear();
  setNodeLabels(api, tray!, { [CLIQUE]: undefined });
  await s.converge(() => heldOn(api, tray!), `${tray} kept in its domain`);
  assert.is(await s.controller!.stop(), 0);
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  await s.converge(
    () => /Topology reconciliation completed source="ufm"/.test(s.log()) || undefined,
    'the restarted controller reconciled its first poll',
  );
  assert.equal(controllerWrites(api).spec, [], 'the restart moved nothing');
  assert.is(heldOn(api, tray!)?.metadata.name, domain, 'still held in its domain');
  // The grace period recorded before the restart ends: the tray moves to its leaf group, once.
  await s.converge(
    () => hyperNodes(api, 'ufm').find((hn) => hn.metadata.name === leaf && memberNames(hn).includes(tray!)),
    `${tray} in its leaf group once the grace period ended`,
  );
  await settled(s, api, 'ufm', () => !heldOn(api, tray!));
  const w = controllerWrites(api);
  assert.equal(
    { spec: w.spec, nodePatches: w.nodePatches, topologies: w.topologies },
    { spec: [`update ${domain}`, `update ${leaf}`].sort(), nodePatches: [], topologies: [] },
    'exactly the move',
  );
});

withLab(
  'ibnetdiscover on the ibsim lab with nvlink: domain: a rolling blink of the clique over every Node writes only conditions and runs ibnetdiscover no more',
  async () => {
    const fabric = new IbFabric().addCa('sm-01', 1, 'sm-01 mlx5_0');
    addRailFabric(fabric, { units: 2, hostsPerUnit: 4, rails: 2, spines: 2, parallel: 2 });
    fabric.cable('sm-01', leafId(1, 1));
    const lab = await newLab(fabric);
    // A wrapper that counts each run of ibnetdiscover, so a blink that ran it would be seen.
    const counted = lab.countedIbnetdiscover();
    const units = [1, 2].map((u) => [1, 2, 3, 4].map((h) => `su${u}-h${h}`));
    const { api, kubeconfig } = await cluster(units);
    seedConfigMap(
      api,
      `networkTopologyDiscovery:
  - source: ibnetdiscover
    enabled: true
    interval: 1h
${EXPORTS}    config:
      fabric: lab
      command: [ibnetdiscover, -C, ibsim0, -P, "1"]
      hcas: "^mlx5_[01]$"
      nvlink: domain
`,
    );
    s.controller = startControllerInProcess({ kubeconfig, namespace: NS, ibnetdiscoverCommand: counted.command });
    await settled(s, api, 'ibnetdiscover', exported(api, 'ibnetdiscover'));
    const ran = counted.runs();
    api.requests.clear();
    await rollingBlink(s, api, units.flat(), CLIQUE);
    assertOnlyConditions(api, 'the rolling blink');
    assert.is(counted.runs(), ran, 'ibnetdiscover not run again');
  },
);

test.run();
