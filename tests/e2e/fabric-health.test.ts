// FabricHealthy end to end on the UFM stand-in (runServer in-process, chart
// RBAC; docs/health.md): a host port going down makes UFM drop its link; the
// host keeps its place in its leaf HyperNode, which turns FabricHealthy=False
// naming the leaf switch and port, and nothing else is written. The port
// coming back turns it True. Past health.linkGracePeriod the topology follows
// the fabric, as before fabric health. Legacy mode (the default, Volcano's
// leaf-hn-N/spine-hn) reports the same way from UFM's port list, where a down
// port stays listed with its peer fields N/A.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNodeCondition } from '../../src/hypernode/model/hypernode-types.ts';
import { generateFatTree } from '../../testing/fat-tree.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { TEST_CA, UfmServer } from '../../testing/ufm-server.ts';
import {
  NS,
  answeredHyperNodeWrites,
  assertNoDeletes,
  assertNoForbidden,
  describeWrites,
  fabricHealthy,
  hyperNodes,
  leafOf,
  node,
  nodeCountsSettled,
  secretObject,
  seedConfigMap,
  topologyShape,
} from './cluster.ts';
import { session } from './session.ts';

const s = session(test);
/** Two units of two hosts with one rail each, under two spines. */
const fabric = (downHostPorts: string[] = []) =>
  generateFatTree({ sus: 2, tiers: 2, nodesPerSu: 2, rails: 1, uplinks: 2, downHostPorts });
const HOSTS = ['su01-n01', 'su01-n02', 'su02-n01', 'su02-n02'];

type Mode = 'fabric' | 'legacy';

function config(ufm: UfmServer, health: string, mode: Mode): string {
  const entry =
    mode === 'fabric'
      ? `    config:
      mode: fabric
      fabrics:
        - {name: pod, endpoint: "${ufm.endpoint()}", secretRef: {name: ufm-pod, namespace: ${NS}}}`
      : `    credentials:
      secretRef: {name: ufm-pod, namespace: ${NS}}
    config:
      endpoint: "${ufm.endpoint()}"`;
  return `networkTopologyDiscovery:
  - source: ufm
    enabled: true
    interval: 1s
${entry}
${health}`;
}

const state = (api: Parameters<typeof hyperNodes>[0]) =>
  new Map(
    hyperNodes(api, 'ufm').map((hn) => [hn.metadata.name, `${fabricHealthy(hn)?.status} ${fabricHealthy(hn)?.reason}`]),
  );
const shape = (api: Parameters<typeof hyperNodes>[0]) => topologyShape(api, 'ufm');

/** su01-n02's port goes down; waits for `leaf` to turn FabricHealthy=False and returns that condition. */
async function portDown(
  api: Parameters<typeof hyperNodes>[0],
  ufm: UfmServer,
  leaf: string,
  when = '',
): Promise<HyperNodeCondition> {
  ufm.answer = { kind: 'fabric', fabric: fabric(['su01-n02/1']) };
  return s.converge(
    () => {
      const c = fabricHealthy(hyperNodes(api, 'ufm').find((hn) => hn.metadata.name === leaf));
      return c?.status === 'False' ? c : undefined;
    },
    `${leaf} FabricHealthy=False${when && ` ${when}`}`,
  );
}

/** Every port up again; waits for every ufm HyperNode to be FabricHealthy=True. */
async function portUp(api: Parameters<typeof hyperNodes>[0], ufm: UfmServer): Promise<void> {
  ufm.answer = { kind: 'fabric', fabric: fabric() };
  await s.converge(
    () => [...state(api).values()].every((r) => r === 'True LinksUp'),
    'every ufm HyperNode FabricHealthy=True again',
  );
}

async function start(health = '', mode: Mode = 'fabric') {
  const { api, kubeconfig } = await s.startCluster();
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.answer = { kind: 'fabric', fabric: fabric() };
  for (const h of HOSTS) api.store.create(node(h, {}));
  api.store.create(
    secretObject(
      'ufm-pod',
      { username: 'admin', password: 'secret', 'ca.crt': TEST_CA },
      { endpoints: [ufm.endpoint()] },
    ),
  );
  seedConfigMap(api, config(ufm, health, mode));
  s.startInProcess(kubeconfig);
  await s.converge(() => {
    const all = hyperNodes(api, 'ufm');
    return all.length === 3 && all.every((hn) => fabricHealthy(hn)?.reason === 'LinksUp') && nodeCountsSettled(api);
  }, 'three ufm HyperNodes with FabricHealthy=True');
  return { api, ufm };
}

test('a host port going down keeps the host in its leaf and marks only that leaf, naming switch and port; up again clears it', async () => {
  const { api, ufm } = await start();
  const before = shape(api);
  const healthy = state(api);
  const leaf = leafOf(api, 'ufm', 'su01-n02')!.metadata.name;
  api.requests.clear();

  const marked = await portDown(api, ufm, leaf);
  assert.is(marked.reason, 'LinksDown');
  assert.match(marked.message, /^1 fabric problem: \S+ port \d+ \(link to host su01-n02 missing\)\.$/);
  assert.equal(shape(api), before, 'members, names and uids unchanged');
  for (const [name, r] of state(api)) if (name !== leaf) assert.is(r, healthy.get(name), `${name} unchanged`);
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [`update ${leaf}/status → 200`]);

  api.requests.clear();
  await portUp(api, ufm);
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [`update ${leaf}/status → 200`]);
  assert.equal(shape(api), before);
  assertNoDeletes(api);
  assertNoForbidden(api);
});

test('past health.linkGracePeriod the host leaves its leaf (an update, no delete) and the leaf is healthy again', async () => {
  const { api, ufm } = await start('health:\n  linkGracePeriod: 3s\n');
  const leaf = leafOf(api, 'ufm', 'su01-n02')!.metadata.name;
  await portDown(api, ufm, leaf, 'within the grace period');
  await s.converge(() => {
    const hn = hyperNodes(api, 'ufm').find((h) => h.metadata.name === leaf);
    return memberNames(hn).join() === 'su01-n01' && fabricHealthy(hn)?.status === 'True';
  }, `${leaf} without su01-n02 and healthy once the grace period is over`);
  assertNoDeletes(api);
});

test('legacy mode: a host port going down keeps every leaf-hn/spine-hn byte and marks the leaf naming its switch and port', async () => {
  const { api, ufm } = await start('', 'legacy');
  // What Volcano's controller writes; a status write moves only resourceVersion and the status managedFields entry.
  const objects = () =>
    JSON.stringify(
      hyperNodes(api, 'ufm').map(
        ({ apiVersion, kind, metadata: { name, uid, labels, annotations, generation }, spec }) => ({
          apiVersion,
          kind,
          name,
          uid,
          labels,
          annotations,
          generation,
          spec,
        }),
      ),
    );
  const before = objects();
  assert.equal(
    shape(api).map((l) => l.split(' ')[0]),
    ['leaf-hn-0', 'leaf-hn-1', 'spine-hn'],
  );
  const leaf = leafOf(api, 'ufm', 'su01-n02')!.metadata.name;
  api.requests.clear();

  const marked = await portDown(api, ufm, leaf);
  assert.is(marked.reason, 'LinksDown');
  assert.match(marked.message, /^1 fabric problem: \S+ port \S+ \(link to host su01-n02 missing\)\.$/);
  assert.is(objects(), before, 'every HyperNode byte-identical outside its status: members, names, uids, labels');
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [`update ${leaf}/status → 200`]);

  api.requests.clear();
  await portUp(api, ufm);
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [`update ${leaf}/status → 200`]);
  assert.is(objects(), before);
  assertNoDeletes(api);
  assertNoForbidden(api);
});

test('legacy mode: past health.linkGracePeriod the down port counts as Volcano counts it, through the ordinary reconcile', async () => {
  const { api, ufm } = await start('health:\n  linkGracePeriod: 3s\n', 'legacy');
  const leaf = leafOf(api, 'ufm', 'su01-n02')!.metadata.name;
  await portDown(api, ufm, leaf, 'within the grace period');
  // Volcano groups a port without a peer under a leaf named N/A: su01-n02 gets a leaf of its own.
  await s.converge(
    () =>
      hyperNodes(api, 'ufm').filter((hn) => hn.spec?.tier === 1).length === 3 &&
      [...state(api).values()].every((r) => r === 'True LinksUp'),
    'three leaf HyperNodes, all healthy, once the grace period is over',
  );
  assert.equal(memberNames(leafOf(api, 'ufm', 'su01-n02')), ['su01-n02']);
});

test.run();
