// A cluster with no Nodes, no HyperNodes and no ConfigMap, as a new cluster
// (or one whose hosts have not joined yet) is: a real API server answers the
// controller's metadata-only Node list there with `"items": null`. Every entry
// point copes: the executable becomes ready (also with --dry-run) and lists
// Nodes once, from the watch cache; the UFM source writes its HyperNodes
// before any Node exists; label HyperNodes appear as Nodes join; `plan`
// plans on it. The empty-cache rule still holds: an empty Node list while
// label HyperNodes exist deletes nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import type { PlannedChange } from '../../src/hypernode/preview/cluster-plan.ts';
import { call } from '../../testing/apiserver-client.ts';
import { UfmServer } from '../../testing/ufm-server.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import {
  NS,
  RACK,
  SOURCE_LABEL,
  TOPOLOGY_A3_CONFIG,
  UFM_WORKED_EXAMPLE,
  assertNoDeletes,
  assertNoForbidden,
  hyperNodeWrites,
  hyperNodes,
  node,
  nodeCount,
  seedConfigMap,
  seedUfmSecret,
  ufmEntry,
  ufmTree,
  workedExampleConverged,
  workedExampleNodes,
  workedExamplePorts,
} from './cluster.ts';
import { session } from './session.ts';

const META_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

const s = session(test);
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-empty-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The controller's Node lists: a metadata-only list of an empty cluster is what a real server answers with items: null.
 */
const nodeLists = (api: Parameters<typeof hyperNodeWrites>[0]) =>
  api.requests.all({ verb: 'list', resource: 'nodes' }).filter((r) => r.user !== 'admin');

test('the stand-in answers an empty metadata-only Node list with items: null, as a real API server does', async () => {
  const { api } = await s.startCluster();
  const r = await call(api, 'GET', '/api/v1/nodes?limit=500', { headers: { accept: META_LIST } });
  assert.is(r.status, 200);
  assert.is(r.body.items, null);
});

for (const flags of [[], ['--dry-run']]) {
  test(`the executable${flags.length ? ' with --dry-run' : ''} on a cluster with no Nodes, HyperNodes or ConfigMap becomes ready, lists Nodes once from the watch cache, writes no HyperNode`, async () => {
    const { api, kubeconfig } = await s.startCluster();
    // Returns once /readyz answers 200 (bounded): never, before empty lists were read as empty.
    const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags }));
    assert.not.match(controller.log(), /Failed to list/);
    const lists = nodeLists(api);
    assert.equal(
      lists.map((r) => r.query),
      [{ limit: '500', resourceVersion: '0' }],
      'one Node list, answered whole by the watch cache',
    );
    assert.equal(hyperNodeWrites(api), []);
    assertNoForbidden(api);
  });
}

test('label source on an empty cluster: ready with nothing to do, then label HyperNodes appear as Nodes join', async () => {
  const { api, kubeconfig } = await s.startCluster();
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  assert.equal(hyperNodes(api), []);
  // Hosts join through the API, as kubelets register them.
  const joining = workedExampleNodes();
  for (const n of joining.slice(0, 2)) assert.is((await call(api, 'POST', '/api/v1/nodes', { body: n })).status, 201);
  await s.converge(
    () => hyperNodes(api, 'label').some((hn) => hn.metadata.labels?.[RACK] === 's0' && nodeCount(hn) === 2),
    'the rack of the first two Nodes',
  );
  for (const n of joining.slice(2)) assert.is((await call(api, 'POST', '/api/v1/nodes', { body: n })).status, 201);
  await s.converge(() => workedExampleConverged(api), 'the six HyperNodes of the label worked example');
  assert.not.match(controller.log(), /Failed to list|refusing to delete/);
  assertNoDeletes(api);
  assertNoForbidden(api);
});

/** A UFM answering the worked example's ports and its credentials Secret; returns the source's entry. */
async function startUfm(api: Parameters<typeof seedUfmSecret>[0]): Promise<string> {
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
  seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
  return ufmEntry(ufm.endpoint(), { insecureSkipVerify: true });
}

test('UFM source on a cluster without Nodes writes its HyperNodes; their nodeCount follows as Nodes join', async () => {
  const { api, kubeconfig } = await s.startCluster();
  seedConfigMap(api, `networkTopologyDiscovery:\n${await startUfm(api)}`);
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await s.converge(
    () => JSON.stringify(ufmTree(api)) === JSON.stringify(UFM_WORKED_EXAMPLE) && ufmTree(api),
    'the three ufm HyperNodes with no Node in the cluster',
  );
  for (const n of workedExampleNodes()) api.store.create(n);
  await s.converge(
    () => hyperNodes(api, 'ufm').every((hn) => nodeCount(hn) > 0),
    'nodeCount of every ufm HyperNode once Nodes joined',
  );
  assert.not.match(controller.log(), /Failed to list/);
  assertNoForbidden(api);
});

test('plan on an empty cluster: the UFM HyperNodes as creates, nothing for the label source, no error', async () => {
  const { api, kubeconfig } = await s.startCluster();
  // No ConfigMap in the cluster: the configuration is tried from a file.
  const conf = join(dir, 'conf.yaml');
  writeFileSync(conf, `${TOPOLOGY_A3_CONFIG}${await startUfm(api)}`);
  const result = await plan(
    // The UFM stand-in listens on loopback, which plan asks only when allowed.
    [
      `--kubeconfig=${kubeconfig}`,
      '--allow-url-cidr=127.0.0.1/32',
      '--config',
      conf,
      '-o',
      'json',
      '--use-cluster-credentials',
    ],
    'vc-hypernode-controller-manager',
    {
      color: false,
      env: { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' },
    },
  );
  assert.is(result.code, 2, result.stderr);
  const changes = (JSON.parse(result.stdout) as { changes: PlannedChange[] }).changes;
  assert.equal(
    changes.map((c) => `${c.action} ${c.source} ${c.name}`).sort(),
    Object.keys(UFM_WORKED_EXAMPLE)
      .map((name) => `create ufm ${name}`)
      .sort(),
  );
  assert.not.match(result.stderr, /items|malformed/);
});

test('the empty-cache rule holds: no Nodes while label HyperNodes exist deletes nothing, is logged and retried', async () => {
  const { api, kubeconfig } = await s.startCluster();
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  api.store.create({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name: 'hypernode-topologya3-tier1-kept1', labels: { [SOURCE_LABEL]: 'label', [RACK]: 's0' } },
    spec: { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'node0' } } }] },
  });
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await s.converge(
    () =>
      /the Node cache is empty while 1 label HyperNodes exist; refusing to delete them all, will retry/.test(
        controller.log(),
      ),
    'the refusal in the log',
  );
  assert.equal(
    hyperNodes(api).map((hn) => hn.metadata.name),
    ['hypernode-topologya3-tier1-kept1'],
  );
  assertNoDeletes(api);
  // A Node joining ends the refusal: the rack is then reconciled as usual.
  api.store.create(node('node0', { [RACK]: 's0', 'volcano.sh/hypercluster': 's4' }));
  await s.converge(
    () => nodeCount(hyperNodes(api).find((hn) => hn.metadata.labels?.[RACK] === 's0')) === 1,
    'the rack counting its Node',
  );
});

test.run();
