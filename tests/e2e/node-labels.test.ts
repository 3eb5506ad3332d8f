// exports.nodeLabels end to end: the controller in this process against the
// API server stand-in, with the chart's RBAC plus the deploy/node-labels
// overlay. Every Node of the label worked example gets one label per tier
// naming its HyperNode; an unchanged round patches nothing; a Node that moves
// racks or leaves the topology is patched alone; a label someone else set
// under the same prefix is never removed; turning the option off removes
// exactly what was written; a round that would strip most Nodes is held; and
// --dry-run patches nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startControllerBinary, startControllerInProcess } from '../support/controller-process.ts';
import {
  CLUSTER,
  CONTROLLER_USER,
  NS,
  RACK,
  TOPOLOGY_A3_ENTRY,
  hyperNodes,
  node,
  seedConfigMap,
  setDiscoveryConfig,
  setNodeLabels,
} from './cluster.ts';
import { session } from './session.ts';
import { nodeLabelOverlayRules } from '../../testing/component-rbac.ts';

const s = session(test);
const PREFIX = 'topo.example.com';
const RACK_KEY = `${PREFIX}/hypernode`;
const CLUSTER_KEY = `${PREFIX}/hypercluster`;
const OWNED = 'topology.volcano.sh/owned-labels.label';

// A Node whose level labels are removed leaves at once (labelGracePeriod 0s; the label memory that would keep it in
// place a while is tested in label-blink.test.ts).
const config = (exports: string, extra = '') =>
  `health: {labelGracePeriod: 0s}\nnetworkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY.replace('    enabled: true\n', `    enabled: true\n${extra}${exports}`)}`;
const WITH_LABELS = config(`    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n`);
const WITHOUT_LABELS = config('');

type Meta = { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
const nodeMeta = (api: Parameters<typeof hyperNodes>[0], name: string) =>
  (api.store.get('nodes', name) as { metadata: Meta }).metadata;
const ourLabels = (m: Meta) =>
  Object.fromEntries(Object.entries(m.labels ?? {}).filter(([k]) => k.startsWith(`${PREFIX}/`)));
const nodePatches = (api: Parameters<typeof hyperNodes>[0]) =>
  api.requests.writes((r) => r.resource === 'nodes' && r.user === CONTROLLER_USER);

/**
 * 8 Nodes of the worked example (racks s0..s3 of two Nodes, clusters s4/s5) plus `more` Nodes in racks r0.. of cluster
 * s6.
 */
function nodes(more = 0) {
  const out = [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
    node(`node${i}`, { [RACK]: `s${i >> 1}`, [CLUSTER]: i < 4 ? 's4' : 's5' }),
  );
  for (let i = 0; i < more; i++) out.push(node(`extra${i}`, { [RACK]: `r${i >> 2}`, [CLUSTER]: 's6' }));
  return out;
}

/**
 * Every labelled Node has both keys, each value names the HyperNode holding the Node, and no other Node carries that
 * value.
 */
function labelsMatchHyperNodes(api: Parameters<typeof hyperNodes>[0], names: string[]): boolean {
  const hns = hyperNodes(api, 'label');
  if (hns.length === 0) return false;
  const holder = (n: string, tier: number) =>
    hns.find(
      (h) =>
        h.spec!.tier === tier &&
        (tier === 1
          ? h.spec!.members!.some((m) => m.selector?.exactMatch?.name === n)
          : h.spec!.members!.some((m) =>
              hns
                .find((c) => c.metadata.name === m.selector?.exactMatch?.name)
                ?.spec?.members?.some((x) => x.selector?.exactMatch?.name === n),
            )),
    )?.metadata.name;
  return names.every((n) => {
    const l = nodeMeta(api, n).labels ?? {};
    return l[RACK_KEY] === holder(n, 1) && l[CLUSTER_KEY] === holder(n, 2) && l[RACK_KEY] !== undefined;
  });
}

async function start(extraFlags: string[] = [], conf = WITH_LABELS, more = 0) {
  const { api, kubeconfig } = await s.startCluster(nodeLabelOverlayRules());
  for (const n of nodes(more)) api.store.create(n);
  // Someone else's label under our prefix, and an unrelated annotation.
  const n0 = api.store.get('nodes', 'node0') as { metadata: Meta };
  api.store.update({
    ...n0,
    metadata: {
      ...n0.metadata,
      labels: { ...n0.metadata.labels, [`${PREFIX}/owner`]: 'ops' },
      annotations: { 'example.com/note': 'keep' },
    },
  });
  seedConfigMap(api, conf);
  // Flags need the built executable; the rest runs in this process, which is faster.
  s.controller =
    extraFlags.length === 0
      ? startControllerInProcess({ kubeconfig, namespace: NS })
      : await startControllerBinary({ kubeconfig, namespace: NS, flags: extraFlags });
  return api;
}

const ALL = nodes().map((n) => n.metadata.name);

test('every Node gets one label per tier naming its HyperNode, once; an unchanged round writes nothing; a foreign label under the prefix survives', async () => {
  const api = await start();
  await s.converge(() => labelsMatchHyperNodes(api, ALL), 'every Node labelled after its HyperNodes');
  await s.converge(
    () => nodePatches(api).length === 8 && nodePatches(api).every((r) => r.code === 200),
    'eight answered Node patches',
  );
  assert.equal(
    nodePatches(api)
      .map((r) => `${r.verb} ${r.name}`)
      .sort(),
    ALL.map((n) => `patch ${n}`),
  );
  const n0 = nodeMeta(api, 'node0');
  assert.is(n0.labels![`${PREFIX}/owner`], 'ops');
  assert.is(n0.annotations!['example.com/note'], 'keep');
  assert.is(n0.annotations![OWNED], `${CLUSTER_KEY},${RACK_KEY}`);
  assert.is(Object.keys(ourLabels(nodeMeta(api, 'node1'))).length, 2, 'one label per tier, nothing else');

  // A restarted source (another interval) delivers a snapshot equal to the last: a round that patches nothing.
  const quiet = () => (s.log().match(/Node labels match the topology, nothing to write/g) ?? []).length;
  const before = quiet();
  setDiscoveryConfig(api, WITH_LABELS.replace('    enabled: true\n', '    enabled: true\n    interval: 2h\n'));
  await s.converge(() => quiet() > before, 'a label round after the unchanged snapshot');
  assert.match(
    s.log(),
    /Topology reconciliation completed source="label" discovered=6 created=0 updated=0 unchanged=6/,
  );
  assert.is(nodePatches(api).length, 8, 'no patch for an unchanged topology');
});

test('a Node moving racks is patched alone with its new value; a Node leaving the topology loses only our labels', async () => {
  const api = await start();
  await s.converge(() => labelsMatchHyperNodes(api, ALL), 'labelled');
  await s.converge(() => nodePatches(api).length === 8, 'eight patches');
  setNodeLabels(api, 'node0', { [RACK]: 's1' });
  await s.converge(
    () =>
      labelsMatchHyperNodes(api, ALL) &&
      nodeMeta(api, 'node0').labels![RACK_KEY] === nodeMeta(api, 'node2').labels![RACK_KEY]
        ? true
        : undefined,
    'node0 relabelled to the rack of node2',
  );
  assert.equal(
    nodePatches(api)
      .slice(8)
      .map((r) => r.name),
    ['node0'],
  );

  // node0 leaves the topology: its cluster label goes, so the label source drops it.
  setNodeLabels(api, 'node0', { [CLUSTER]: undefined, [RACK]: undefined });
  await s.converge(
    () => Object.keys(ourLabels(nodeMeta(api, 'node0'))).join() === `${PREFIX}/owner`,
    'node0 keeps only the foreign label',
  );
  assert.is(nodeMeta(api, 'node0').annotations?.[OWNED], undefined, 'the ownership record goes with the last label');
  assert.is(nodeMeta(api, 'node0').annotations?.['example.com/note'], 'keep');
  assert.ok(labelsMatchHyperNodes(api, ALL.slice(1)));
});

test('turning the option off removes exactly the labels written, and nothing else', async () => {
  const api = await start();
  await s.converge(() => labelsMatchHyperNodes(api, ALL), 'labelled');
  const before = Object.fromEntries(ALL.map((n) => [n, nodeMeta(api, n)]));
  setDiscoveryConfig(api, WITHOUT_LABELS);
  await s.converge(
    () => ALL.every((n) => nodeMeta(api, n).annotations?.[OWNED] === undefined),
    'every ownership record removed',
  );
  for (const n of ALL) {
    const after = nodeMeta(api, n);
    const { [RACK_KEY]: _r, [CLUSTER_KEY]: _c, ...rest } = before[n]!.labels!;
    assert.equal(after.labels, rest, `${n}: only our two labels removed`);
  }
  assert.is(nodeMeta(api, 'node0').labels![`${PREFIX}/owner`], 'ops');
});

test('a round that would strip more than maxDeletePercent of the labelled Nodes holds the removals and says how to allow them', async () => {
  const api = await start([], WITH_LABELS, 16);
  const every = [...ALL, ...Array.from({ length: 16 }, (_, i) => `extra${i}`)];
  await s.converge(() => labelsMatchHyperNodes(api, every), 'labelled');
  // 16 of 24 Nodes leave the topology (their rack label is removed): 67 % > 50 %.
  for (let i = 0; i < 16; i++) setNodeLabels(api, `extra${i}`, { [RACK]: undefined });
  await s.converge(
    () =>
      /would remove its Node labels from 16 of the 24 Nodes it labels, more than its maxDeletePercent of 50, so these removals are held; if intended, set maxDeletePercent to 67 or more/.test(
        s.log(),
      ),
    'the held removals reported',
  );
  assert.ok(
    every.every((n) => nodeMeta(api, n).labels![RACK_KEY] !== undefined),
    'every label kept',
  );
  setDiscoveryConfig(
    api,
    config(`    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n`, '    maxDeletePercent: 70\n'),
  );
  await s.converge(
    () =>
      Array.from({ length: 16 }, (_, i) => `extra${i}`).every((n) => nodeMeta(api, n).labels![RACK_KEY] === undefined),
    'the removals go through once allowed',
  );
});

test('--dry-run patches no Node and logs each patch it would send', async () => {
  const api = await start(['--dry-run']);
  await s.converge(
    () => (s.log().match(/Dry run: would patch Node labels/g) ?? []).length === 8,
    'eight logged patches',
  );
  assert.match(
    s.log(),
    /Dry run: would patch Node labels node="node0" set="topo\.example\.com\/hypercluster=hypernode-topologya3-tier2-\w{5},topo\.example\.com\/hypernode=hypernode-topologya3-tier1-\w{5}"/,
  );
  assert.equal(nodePatches(api), []);
});

test.run();
