// The graph source with the built executable against the API server stand-in
// under the chart's RBAC: a fabric graph served over HTTPS with a bearer
// token and a private CA from the entry's Secret gives its tree; a new unit
// adds HyperNodes and renames none; a broken document and an unreachable
// server write nothing (no HyperNode is deleted) and say why in the log;
// the token never appears in the log at -v=10. A graph in a ConfigMap key is
// read under the same RBAC (a list narrowed to the name) and an edit of the
// key publishes the new tree. An upgrade from a version that wrote no switch
// names updates each fabric HyperNode once to add them, renaming nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startControllerBinary } from '../support/controller-process.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { GraphServer, railGraphDocument } from '../../testing/graph-server.ts';
import { TEST_CA } from '../../testing/ufm-server.ts';
import {
  NS,
  answeredHyperNodeWrites,
  assertNoForbidden,
  describeWrites,
  fabricHealthSettled,
  hyperNodes,
  node,
  nodeCountsSettled,
  secretObject,
  seedConfigMap,
} from './cluster.ts';
import { session } from './session.ts';

const TOKEN = 'e2e-inventory-token-51b9';

const s = session(test);
const converge = s.converge.bind(s);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));
/** The inventory stand-in, closed after the controller has stopped. */
let server: GraphServer | undefined;
test.after.each(async () => {
  await server?.close();
  server = undefined;
});

/** The discovery document: one graph entry polling every second, fabric "lab", reading from `where`. */
const graphEntry = (where: string, credentials = '') =>
  `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n${credentials ? `    ${credentials}\n` : ''}    config:\n      fabric: lab\n      ${where}\n`;
const graph = (sus: number) => JSON.stringify(railGraphDocument({ sus, rails: 2, hostsPerSu: 2, spines: 2 }));
/** name → "tier tierName: members" of the graph source's HyperNodes. */
const tree = (api: Parameters<typeof hyperNodes>[0]) =>
  Object.fromEntries(
    hyperNodes(api, 'graph')
      .map(
        (hn) =>
          [
            hn.metadata.name,
            `${hn.spec!.tier} ${hn.spec!.tierName}: ${(memberNames(hn) as string[]).sort().join(',')}`,
          ] as const,
      )
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );

test('graph source (the executable, chart RBAC, -v=10): the served graph gives its tree; a new unit renames nothing; a broken document and a dead server delete nothing', async () => {
  const { api, kubeconfig } = await s.startCluster();
  server = await new GraphServer().start();
  server.token = TOKEN;
  server.answer = { status: 200, body: graph(2) };
  for (let su = 1; su <= 3; su++) for (let h = 1; h <= 2; h++) api.store.create(node(`su${su}-h${h}`, {}));
  api.store.create(secretObject('inventory', { token: TOKEN, 'ca.crt': TEST_CA }, { endpoints: [server.url()] }));
  seedConfigMap(
    api,
    graphEntry(`url: "${server.url()}"`, `credentials:\n      secretRef: {name: inventory, namespace: ${NS}}`),
  );
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=10'] }));

  // 1. Two units of two rails under one spine group.
  const two = {
    'lab-leaf-leaf-su1-r1': '1 leaf: su1-h1,su1-h2',
    'lab-leaf-leaf-su2-r1': '1 leaf: su2-h1,su2-h2',
    'lab-spine-spine-1': '2 spine: lab-leaf-leaf-su1-r1,lab-leaf-leaf-su2-r1',
  };
  await converge(() => JSON.stringify(tree(api)) === JSON.stringify(two) || undefined, 'the two-unit tree');
  assert.ok(
    server.authorizations.every((a) => a === `Bearer ${TOKEN}`),
    'the token from the Secret as a bearer token',
  );

  // 2. A third unit: a create for its leaf group and an update of the spine group; nothing renamed or deleted.
  const uids = new Map(hyperNodes(api, 'graph').map((hn) => [hn.metadata.name, hn.metadata.uid]));
  api.requests.clear();
  server.answer = { status: 200, body: graph(3) };
  const three = {
    'lab-leaf-leaf-su1-r1': '1 leaf: su1-h1,su1-h2',
    'lab-leaf-leaf-su2-r1': '1 leaf: su2-h1,su2-h2',
    'lab-leaf-leaf-su3-r1': '1 leaf: su3-h1,su3-h2',
    'lab-spine-spine-1': '2 spine: lab-leaf-leaf-su1-r1,lab-leaf-leaf-su2-r1,lab-leaf-leaf-su3-r1',
  };
  await converge(() => JSON.stringify(tree(api)) === JSON.stringify(three) || undefined, 'the three-unit tree');
  const grown = describeWrites(await answeredHyperNodeWrites(api)).filter((w) => !w.includes('/status'));
  assert.equal(grown.sort(), ['create <new> → 201', 'update lab-spine-spine-1 → 200']);
  for (const hn of hyperNodes(api, 'graph'))
    if (uids.has(hn.metadata.name)) assert.is(hn.metadata.uid, uids.get(hn.metadata.name), `${hn.metadata.name} kept`);

  // 3. A broken document, then a server that answers 503: no HyperNode write, the reason in the log.
  for (const [answer, reason] of [
    [
      { status: 200, body: 'switches: [leaf-1]\nlinks: [{a: {host: su1-h1}, b: {switch: leaf-7}}]\n' },
      'links[0].b.switch \\"leaf-7\\" is not in switches',
    ],
    [{ status: 503, body: '' }, 'unexpected status code 503'],
  ] as const) {
    await converge(
      () => (nodeCountsSettled(api) && fabricHealthSettled(api)) || undefined,
      'every nodeCount and FabricHealthy caught up with the tree',
    );
    await answeredHyperNodeWrites(api);
    api.requests.clear();
    const mark = controller.log().length;
    const asked = server.authorizations.length;
    server.answer = answer;
    await converge(
      () => (server!.authorizations.length >= asked + 2 && controller.log().slice(mark).includes(reason)) || undefined,
      `two polls and "${reason}" in the log`,
    );
    assert.equal(tree(api), three, 'the tree is unchanged');
    assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [], 'no HyperNode write');
  }
  assert.not.ok(controller.log().includes(TOKEN), 'the token is never logged');
  assertNoForbidden(api);
});

test('graph source from a ConfigMap key (the executable, chart RBAC): the tree, an edit of the key grows it, a missing key deletes nothing', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (let su = 1; su <= 3; su++) for (let h = 1; h <= 2; h++) api.store.create(node(`su${su}-h${h}`, {}));
  const configMap = (data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'fabric-graph', namespace: NS },
    data,
  });
  api.store.create(configMap({ 'graph.json': graph(2) }));
  seedConfigMap(api, graphEntry(`configMap: {namespace: ${NS}, name: fabric-graph, key: graph.json}`));
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await converge(() => Object.keys(tree(api)).length === 3 || undefined, 'the two-unit tree');
  const edit = (data: Record<string, string>) => {
    const cm = api.store.get('configmaps', 'fabric-graph', NS) as { metadata: object };
    api.store.update({ ...cm, data });
  };
  edit({ 'graph.json': graph(3) });
  await converge(
    () => tree(api)['lab-leaf-leaf-su3-r1'] === '1 leaf: su3-h1,su3-h2' || undefined,
    'the third unit from the edited key',
  );
  await converge(
    () => (nodeCountsSettled(api) && fabricHealthSettled(api)) || undefined,
    'every nodeCount and FabricHealthy caught up with the tree',
  );
  await answeredHyperNodeWrites(api);
  api.requests.clear();
  const before = tree(api);
  const mark = controller.log().length;
  edit({ 'graph.yaml': graph(1) });
  await converge(
    () => controller.log().slice(mark).includes('has no key \\"graph.json\\"') || undefined,
    'the missing key in the log',
  );
  assert.equal(tree(api), before, 'the tree is unchanged');
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [], 'no HyperNode write');
  assertNoForbidden(api);
});

test('upgrade (the executable): HyperNodes written without switch names are each updated once to add them; names, uids and other annotations kept', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (let su = 1; su <= 2; su++) for (let h = 1; h <= 2; h++) api.store.create(node(`su${su}-h${h}`, {}));
  api.store.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'fabric-graph', namespace: NS },
    data: { 'graph.json': graph(2) },
  });
  // The two-unit tree as the previous version wrote it: no switch names; one annotated by someone else.
  const members = (type: 'Node' | 'HyperNode', names: string[]) =>
    names.map((name) => ({ type, selector: { exactMatch: { name } } }));
  const previous = (
    name: string,
    tier: number,
    tierName: string,
    type: 'Node' | 'HyperNode',
    names: string[],
    annotations?: Record<string, string>,
  ) =>
    api.store.create({
      apiVersion: 'topology.volcano.sh/v1alpha1',
      kind: 'HyperNode',
      metadata: {
        name,
        labels: { 'volcano.sh/network-topology-source': 'graph' },
        ...(annotations ? { annotations } : {}),
      },
      spec: { tier, tierName, members: members(type, names) },
    });
  previous('lab-leaf-leaf-su1-r1', 1, 'leaf', 'Node', ['su1-h1', 'su1-h2'], { 'example.com/owner': 'network-team' });
  previous('lab-leaf-leaf-su2-r1', 1, 'leaf', 'Node', ['su2-h1', 'su2-h2']);
  previous('lab-spine-spine-1', 2, 'spine', 'HyperNode', ['lab-leaf-leaf-su1-r1', 'lab-leaf-leaf-su2-r1']);
  const uids = new Map(hyperNodes(api, 'graph').map((hn) => [hn.metadata.name, hn.metadata.uid]));
  seedConfigMap(api, graphEntry(`configMap: {namespace: ${NS}, name: fabric-graph, key: graph.json}`));
  s.controller = await startControllerBinary({ kubeconfig, namespace: NS });

  const switchNames = () =>
    Object.fromEntries(
      hyperNodes(api, 'graph').map((hn) => [hn.metadata.name, hn.metadata.annotations?.['volcano.sh/fabric-switches']]),
    );
  const named = {
    'lab-leaf-leaf-su1-r1': 'LEAF-SU1-R1 +1',
    'lab-leaf-leaf-su2-r1': 'LEAF-SU2-R1 +1',
    'lab-spine-spine-1': 'SPINE-1 +1',
  };
  await converge(
    () => JSON.stringify(switchNames()) === JSON.stringify(named) || undefined,
    'every graph HyperNode names its switches',
  );
  await converge(
    () => (nodeCountsSettled(api) && fabricHealthSettled(api)) || undefined,
    'every nodeCount and FabricHealthy caught up with the tree',
  );
  // The conditions writer stamps the same adopted HyperNodes at start-up, so a spec update can lose the
  // resourceVersion race once (409) and is retried from the watched object, as client-go callers do.
  const writes = describeWrites(await answeredHyperNodeWrites(api)).filter(
    (w) => !w.includes('/status') && !w.endsWith('→ 409'),
  );
  assert.equal(writes.sort(), [
    'update lab-leaf-leaf-su1-r1 → 200',
    'update lab-leaf-leaf-su2-r1 → 200',
    'update lab-spine-spine-1 → 200',
  ]);
  for (const hn of hyperNodes(api, 'graph'))
    assert.is(hn.metadata.uid, uids.get(hn.metadata.name), `${hn.metadata.name} kept`);
  const annotated = hyperNodes(api, 'graph').find((hn) => hn.metadata.name === 'lab-leaf-leaf-su1-r1')!;
  assert.is(annotated.metadata.annotations?.['example.com/owner'], 'network-team', "another tool's annotation is kept");
  assertNoForbidden(api);
});

test.run();
