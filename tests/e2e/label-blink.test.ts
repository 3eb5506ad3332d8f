// Labels that blink, on the label source, end to end against the API server
// stand-in with the chart's RBAC and the Node-label overlay, the Kueue and
// KAI Topology CRDs served, and every export on (Node labels, both Topology
// kinds), the controller in this process:
// - a rolling blink of the NVLink clique under a preset (a GPU DRA driver
//   upgrade), and of a plain level label: only status conditions are written;
// - a clique that stays away past health.labelGracePeriod: exactly the
//   writes of that Node's move;
// - a controller restarted while a Node is held: nothing moves, and the
//   grace period is not restarted;
// - a level added before any Node carries its label: the source's tree is
//   empty, the mass-delete guard keeps the HyperNodes, and in every sampled
//   state the HyperNodes, the Node labels and both Topology objects hold
//   their old levels; once the labels arrive, both objects are replaced at once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { nodeLabelOverlayRules } from '../../testing/component-rbac.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import {
  CLUSTER,
  NS,
  RACK,
  answeredHyperNodeWrites,
  hyperNodes,
  node,
  seedConfigMap,
  setDiscoveryConfig,
  setNodeLabels,
} from './cluster.ts';
import { session } from './session.ts';
import { BOTH_EXPORTS, CURRENT, HOST, KAI, KUEUE, PREFIX, config, levels, topo } from './topology-cluster.ts';
import { assertOnlyConditions, controllerWrites, heldOn, rollingBlink, settled } from './label-blink.ts';

const s = session(test);
const CLIQUE = 'nvidia.com/gpu.clique';
const LEAF = 'fabric.topograph.run/tier-0';
const SPINE = 'fabric.topograph.run/tier-1';
const RACK_A = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';
const RACK_B = '52c0ab5e-1f0e-4a3c-9d6b-2f8e7a1c0b93';
const TRAYS = Array.from({ length: 8 }, (_, i) => `tray-${i}`);
const EXPORTS = `    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n${BOTH_EXPORTS}`;

/** The GB200 preset: trays 0–3 in rack A under leaf S-1, 4–7 in rack B under leaf S-2, one spine. */
const presetConfig = (health = '') =>
  `${health}networkTopologyDiscovery:\n  - source: label\n    enabled: true\n${EXPORTS}    config:\n      networkTopologyTypes:\n        gb200: {preset: topograph, nvlink: domain}\n`;

/** The cluster with `nodes`, the document `conf` and the controller in this process. */
async function start(conf: string, nodes: ReturnType<typeof node>[]): Promise<ApiServer> {
  const { api, kubeconfig } = await s.startCluster(nodeLabelOverlayRules());
  for (const f of CURRENT) api.installCrd(f);
  for (const n of nodes) api.store.create(n);
  seedConfigMap(api, conf);
  s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  return api;
}

const trays = () =>
  TRAYS.map((name, i) =>
    node(name, { [CLIQUE]: `${i < 4 ? RACK_A : RACK_B}.1`, [LEAF]: i < 4 ? 'S-1' : 'S-2', [SPINE]: 'P-1' }),
  );

/** Every Node carries the export's label of its lowest level, and both Topology objects exist. */
const exported = (api: ApiServer, key: string) => () =>
  api.store.list('nodes').every((n) => n.metadata.labels?.[`${PREFIX}/${key}`] !== undefined) &&
  topo(api, KUEUE) !== undefined &&
  topo(api, KAI) !== undefined;

/** The label HyperNode holding `name` directly. */
const holderOf = (api: ApiServer, name: string) =>
  hyperNodes(api, 'label').find((hn) => memberNames(hn).includes(name))!.metadata.name;

test('a rolling blink of the NVLink clique over every tray of a preset (a GPU DRA driver upgrade): no HyperNode spec write, no Node label patch, no Topology write, only conditions', async () => {
  const api = await start(presetConfig(), trays());
  await settled(s, api, 'label', exported(api, 'nvl-domain'));
  const before = hyperNodes(api, 'label').map((hn) => `${hn.metadata.name} ${memberNames(hn).join(',')}`);
  api.requests.clear();
  await rollingBlink(s, api, TRAYS, CLIQUE);
  assertOnlyConditions(api, 'the rolling blink');
  assert.equal(
    hyperNodes(api, 'label').map((hn) => `${hn.metadata.name} ${memberNames(hn).join(',')}`),
    before,
  );
});

test('a rolling blink of a plain level label (the rack of the list form): only conditions', async () => {
  const nodes = Array.from({ length: 8 }, (_, i) =>
    node(`node${i}`, { [RACK]: `s${i >> 1}`, [CLUSTER]: i < 4 ? 's4' : 's5' }),
  );
  const api = await start(config(BOTH_EXPORTS), nodes);
  await settled(s, api, 'label', exported(api, 'hypernode'));
  api.requests.clear();
  await rollingBlink(
    s,
    api,
    nodes.map((n) => n.metadata.name),
    RACK,
  );
  assertOnlyConditions(api, 'the rolling blink');
});

test('a clique away past labelGracePeriod: held until then, and then exactly the writes of its move', async () => {
  const api = await start(presetConfig('health: {labelGracePeriod: 4s}\n'), trays());
  await settled(s, api, 'label', exported(api, 'nvl-domain'));
  const domain = holderOf(api, 'tray-0');
  const leaf = hyperNodes(api, 'label').find((hn) => memberNames(hn).includes(domain))!.metadata.name;
  api.requests.clear();
  setNodeLabels(api, 'tray-0', { [CLIQUE]: undefined });
  const held = await s.converge(() => heldOn(api, 'tray-0'), 'tray-0 kept in its domain');
  assert.is(held.metadata.name, domain);
  assert.equal(controllerWrites(api).spec, [], 'nothing moves within the grace period');
  await s.converge(
    () => holderOf(api, 'tray-0') === leaf || undefined,
    'tray-0 moved to its leaf once the grace period ended',
  );
  await settled(s, api, 'label', () => !heldOn(api, 'tray-0'));
  assert.match(
    s.log(),
    /A label is still missing at the end of its grace period; the Node moves source="label" node="tray-0" key="nvidia\.com\/gpu\.clique"/,
  );
  const w = controllerWrites(api);
  // The Node keeps its nvl-domain export label: a live Topology names that level, and Kueue skips a Node lacking one.
  assert.equal(
    { spec: w.spec, nodePatches: w.nodePatches, topologies: w.topologies },
    { spec: [`update ${domain}`, `update ${leaf}`].sort(), nodePatches: [], topologies: [] },
    'exactly the move',
  );
});

test('a controller restarted while a tray is held moves nothing and keeps the grace period it recorded', async () => {
  const api = await start(presetConfig(), trays());
  await settled(s, api, 'label', exported(api, 'nvl-domain'));
  setNodeLabels(api, 'tray-5', { [CLIQUE]: undefined });
  const message = (await s.converge(() => heldOn(api, 'tray-5'), 'tray-5 held')).status!.conditions!.find(
    (c) => c.type === 'TopologyLabelsPresent',
  )!.message;
  assert.is(await s.controller!.stop(), 0);
  api.requests.clear();
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  await s.converge(
    () => /Topology reconciliation completed source="label"/.test(s.log()) || undefined,
    'the restarted controller reconciled the label source',
  );
  await settled(s, api, 'label', () => heldOn(api, 'tray-5') !== undefined);
  assert.is(
    heldOn(api, 'tray-5')!.status!.conditions!.find((c) => c.type === 'TopologyLabelsPresent')!.message,
    message,
    'the same hold, until the same time',
  );
  assert.equal(controllerWrites(api).spec, [], 'the restart moved nothing');
  setNodeLabels(api, 'tray-5', { [CLIQUE]: `${RACK_B}.1` });
  await s.converge(() => !heldOn(api, 'tray-5'), 'tray-5 back');
  await settled(s, api, 'label');
  assertOnlyConditions(api, 'the restart and the return');
});

test('a level added before any Node carries its label: HyperNodes, Node labels and both Topology objects keep their old levels in every sampled state; once the labels arrive both are replaced at once', async () => {
  const BLOCK = 'example.com/block';
  // 16 Nodes, two a rack, two racks a cluster: 8 racks and 4 clusters, enough for the guard to hold them all.
  const nodes = Array.from({ length: 16 }, (_, i) =>
    node(`node${String(i).padStart(2, '0')}`, { [RACK]: `r${i >> 1}`, [CLUSTER]: `c${i >> 2}` }),
  );
  const api = await start(config(BOTH_EXPORTS), nodes);
  api.startKueueTopologyController();
  await settled(s, api, 'label', exported(api, 'hypernode'));
  const OLD = [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`, HOST].join();
  await s.converge(
    () => levels(api, KUEUE)?.join() === OLD && levels(api, KAI)?.join() === OLD,
    'both Topology objects',
  );
  const shape = () =>
    hyperNodes(api, 'label')
      .map((hn) => `${hn.metadata.name} ${memberNames(hn).join(',')}`)
      .sort()
      .join('\n');
  const exportLabels = () =>
    JSON.stringify(
      api.store
        .list('nodes')
        .map((n) => Object.entries(n.metadata.labels ?? {}).filter(([k]) => k.startsWith(`${PREFIX}/`)))
        .sort(),
    );
  const oldShape = shape();
  const oldLabels = exportLabels();
  const samples: { shape: boolean; labels: boolean; kueue?: string; kai?: string }[] = [];
  const take = () =>
    samples.push({
      shape: shape() === oldShape,
      labels: exportLabels() === oldLabels,
      kueue: levels(api, KUEUE)?.join(),
      kai: levels(api, KAI)?.join(),
    });
  const stops = ['nodes', 'hypernodes', KUEUE, KAI, 'configmaps', 'events'].map((r) => api.onStoreChange(r, take));
  try {
    const from = s.log().length;
    setDiscoveryConfig(api, config(BOTH_EXPORTS, [CLUSTER, RACK, BLOCK]));
    // The source's empty tree reconciled (its deletes held), then the label worker's pass over the tree as kept.
    await s.converge(
      () =>
        /Holding HyperNode deletes of a discovery run source="label" held=12[\s\S]*Node labels match the topology/.test(
          s.log().slice(from),
        ),
      'the deletes held, and the labels decided on the tree as kept',
    );
    await answeredHyperNodeWrites(api);
    assert.ok(samples.length > 0, 'states sampled');
    assert.equal(
      samples.filter((x) => !x.shape || !x.labels || x.kueue !== OLD || x.kai !== OLD),
      [],
      'every sampled state holds the old HyperNodes, Node labels and Topology levels',
    );
    for (const n of nodes) setNodeLabels(api, n.metadata.name, { [BLOCK]: `b${n.metadata.name.slice(4)}` });
    const NEW = [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`, `${PREFIX}/block`, HOST].join();
    await s.converge(() => levels(api, KUEUE)?.join() === NEW && levels(api, KAI)?.join() === NEW, 'both replaced');
  } finally {
    for (const stop of stops) stop();
  }
  for (const kind of [KUEUE, KAI]) {
    const absent = samples
      .map((x, i) => ((kind === KUEUE ? x.kueue : x.kai) === undefined ? i : -1))
      .filter((i) => i >= 0);
    assert.ok(
      absent.every((i, j) => j === 0 || i === absent[j - 1]! + 1),
      `${kind}: absent in one run of states only, the replacement (${absent.join(',')})`,
    );
  }
});

test.run();
