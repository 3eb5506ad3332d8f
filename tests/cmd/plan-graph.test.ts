// `plan --graph-file` against the API server stand-in: a graph source whose
// configured URL is unreachable from here is planned from the local document
// instead (the URL is never asked), listing the HyperNodes the controller
// would create; without it the source stands as its HyperNodes in the cluster,
// and with --use-cluster-credentials the unreachable URL fails the plan. A
// graph in a ConfigMap key of the controller's namespace is read from the
// cluster with that flag and the read-only rights plan has.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { NS, node, seedConfigMap } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const ENV = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
const s = session(test);
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-plan-graph-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

test("plan --graph-file plans the document's tree as creates; without it nothing is asked, and asked live the unreachable URL fails the plan", async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2']) api.store.create(node(n, {}));
  // Port 9 on loopback: nothing listens, so only --graph-file can make this plan succeed.
  seedConfigMap(
    api,
    'networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    config:\n      fabric: lab\n      url: https://127.0.0.1:9/lab.yaml\n',
  );
  const file = join(dir, 'graph.json');
  writeFileSync(file, JSON.stringify(railGraphDocument({ sus: 2, rails: 1, hostsPerSu: 2, spines: 1 })));
  // The stand-in address is loopback, which plan, as the controller, refuses unless allowed.
  const allowLoopback = '--allow-url-cidr=127.0.0.1/32';
  const withFile = await plan([`--kubeconfig=${kubeconfig}`, allowLoopback, '--graph-file', file, '-o', 'json'], 'x', {
    color: false,
    env: ENV,
  });
  assert.is(withFile.code, 2, withFile.stderr);
  const changes = (JSON.parse(withFile.stdout) as { changes: { action: string; source: string; name: string }[] })
    .changes;
  assert.equal(
    changes.map((c) => `${c.action} ${c.source} ${c.name}`),
    ['create graph lab-leaf-leaf-su1-r1', 'create graph lab-leaf-leaf-su2-r1', 'create graph lab-spine-spine-1'],
  );
  const without = await plan([`--kubeconfig=${kubeconfig}`], 'x', { color: false, env: ENV });
  assert.is(without.code, 0, without.stderr);
  assert.match(without.stderr, /^warning: source "graph" is planned from the 0 HyperNode\(s\) it has in the cluster/m);
  const live = await plan([`--kubeconfig=${kubeconfig}`, '--use-cluster-credentials', allowLoopback], 'x', {
    color: false,
    env: ENV,
  });
  assert.is(live.code, 1);
  assert.match(live.stderr, /^note: plan asks https:\/\/127\.0\.0\.1:9 without credentials \(source "graph"\)$/m);
  assert.match(live.stderr, 'Failed to read the fabric graph from https://127.0.0.1:9/lab.yaml');
  const refused = await plan([`--kubeconfig=${kubeconfig}`, '--use-cluster-credentials'], 'x', {
    color: false,
    env: ENV,
  });
  assert.is(refused.code, 1);
  assert.match(refused.stderr, 'graph source: config.url is refused: 127.0.0.1 is a loopback address');
});

test("plan --use-cluster-credentials reads a graph source's ConfigMap key of the controller's namespace from the cluster", async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of ['su1-h1', 'su1-h2']) api.store.create(node(n, {}));
  api.store.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'fabric-graph', namespace: NS },
    data: { 'graph.json': JSON.stringify(railGraphDocument({ sus: 1, rails: 2, hostsPerSu: 2, spines: 1 })) },
  });
  seedConfigMap(
    api,
    `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    config:\n      configMap: {namespace: ${NS}, name: fabric-graph, key: graph.json}\n`,
  );
  const r = await plan([`--kubeconfig=${kubeconfig}`, '-o', 'json', '--use-cluster-credentials'], 'x', {
    color: false,
    env: ENV,
  });
  assert.is(r.code, 2, r.stderr);
  assert.equal(
    (JSON.parse(r.stdout) as { changes: { name: string }[] }).changes.map((c) => c.name),
    ['graph-leaf-leaf-su1-r1'],
  );
});

test.run();
