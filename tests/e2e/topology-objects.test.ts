// exports.kueueTopology / kaiTopology end to end: the controller in this
// process against the API server stand-in serving the Kueue and KAI Topology
// test schemas, with the chart's RBAC plus the deploy/node-labels overlay.
// From the label worked example it writes one Topology of each kind whose
// levels are the Node label keys, highest tier first and
// kubernetes.io/hostname last; an unchanged round writes nothing; a change
// of levels (immutable in both) is a delete and a create; turning one export
// off deletes only that kind's object; without a CRD it logs once and
// writes nothing until the CRD is served; and a tree of more than 8 levels
// is refused with a line saying why; --dry-run only logs; an object of
// the same name that is not ours is left alone. `plan` lists the creates and the
// replace (as delete + create) beside the other changes, and still plans
// when its user may not read Topology objects.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import { KAI_TOPOLOGY_CRD_FILE, KUEUE_TOPOLOGY_CRD_FILE, type ApiServer } from '../../testing/apiserver/index.ts';
import { nodeLabelOverlayRules } from '../../testing/node-label-overlay.ts';
import { startControllerBinary, startControllerInProcess } from '../support/controller-process.ts';
import { CLUSTER, CONTROLLER_USER, NS, RACK, node, seedConfigMap, setDiscoveryConfig } from './cluster.ts';
import { session } from './session.ts';

const s = session(test);
const PREFIX = 'topo.example.com';
const HOST = 'kubernetes.io/hostname';
const KUEUE = 'topologies.kueue.x-k8s.io';
const KAI = 'topologies.kai.scheduler';

/** The label source over `keys` (highest first) with the given exports. */
function config(exports: string, keys: string[] = [CLUSTER, RACK]): string {
  const levels = [...keys, HOST].map((k) => `          - nodeLabel: ${k}\n`).join('');
  return `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n${exports}    config:\n      networkTopologyTypes:\n        topologyA3:\n${levels}`;
}
const BOTH = config('      kueueTopology: true\n      kaiTopology: true\n');

type Topo = { metadata: { name: string; uid: string; labels?: Record<string, string> }; spec: { levels: Array<{ nodeLabel: string }> } };
const levels = (api: ApiServer, resource: string, name = 'hypernode-label') => (api.store.get(resource, name) as Topo | undefined)?.spec.levels.map((l) => l.nodeLabel);
const topologyWrites = (api: ApiServer) => api.requests.writes((r) => r.resource === 'topologies' && r.user === CONTROLLER_USER);

async function start(conf: string, crds = true, extraLabels: Record<string, string> = {}, run = true) {
  const { api, kubeconfig } = await s.startCluster(nodeLabelOverlayRules());
  if (crds) for (const f of [KUEUE_TOPOLOGY_CRD_FILE, KAI_TOPOLOGY_CRD_FILE]) api.installCrd(f);
  for (let i = 0; i < 8; i++) api.store.create(node(`node${i}`, { [RACK]: `s${i >> 1}`, [CLUSTER]: i < 4 ? 's4' : 's5', ...extraLabels }));
  seedConfigMap(api, conf);
  if (run) s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  return api;
}

test('one Kueue and one KAI Topology, levels from the label keys with the hostname last; an unchanged round writes nothing', async () => {
  const api = await start(BOTH);
  const want = [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`, HOST];
  await s.converge(() => levels(api, KUEUE)?.join() === want.join() && levels(api, KAI)?.join() === want.join(), 'both Topology objects written');
  assert.is((api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.labels!['volcano.sh/network-topology-source'], 'label');
  assert.equal(
    topologyWrites(api).map((r) => `${r.verb} ${r.code}`),
    ['create 201', 'create 201'],
  );
  assert.match(
    s.log(),
    /Created Kueue Topology name="hypernode-label" source="label" levels="topo\.example\.com\/hypercluster,topo\.example\.com\/hypernode,kubernetes\.io\/hostname"/,
  );

  const rounds = () => (s.log().match(/Topology reconciliation completed source="label"/g) ?? []).length;
  const before = rounds();
  setDiscoveryConfig(api, BOTH.replace('    enabled: true\n', '    enabled: true\n    interval: 2h\n'));
  await s.converge(() => rounds() > before, 'another round of the same snapshot');
  await s.converge(() => api.requests.all().filter((r) => r.resource === 'topologies' && r.verb === 'list').length >= 4, 'the Topology objects listed again');
  assert.is(topologyWrites(api).length, 2, 'nothing written for an unchanged topology');
});

test('a change of levels replaces the objects (delete, then create); turning one export off deletes only its kind', async () => {
  const api = await start(BOTH);
  await s.converge(() => levels(api, KUEUE)?.length === 3 && levels(api, KAI)?.length === 3, 'written');
  const uid = (api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.uid;
  setDiscoveryConfig(api, config('      kueueTopology: true\n      kaiTopology: true\n', [RACK]));
  await s.converge(() => levels(api, KUEUE)?.join() === `${PREFIX}/hypernode,${HOST}` && levels(api, KAI)?.length === 2, 'both replaced with two levels');
  assert.is.not((api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.uid, uid, 'a new object, not an update');
  assert.equal(
    topologyWrites(api)
      .slice(2)
      .map((r) => r.verb),
    ['delete', 'create', 'delete', 'create'],
  );
  assert.match(
    s.log(),
    /Replaced Kueue Topology name="hypernode-label" source="label" levels="topo\.example\.com\/hypernode,kubernetes\.io\/hostname" reason="levels changed; levels are immutable"/,
  );

  setDiscoveryConfig(api, config('      kaiTopology: true\n', [RACK]));
  await s.converge(() => levels(api, KUEUE) === undefined, 'the Kueue Topology deleted');
  assert.equal(levels(api, KAI), [`${PREFIX}/hypernode`, HOST], 'the KAI Topology kept');
});

test('without the CRDs: one log line per kind and no write; once served, the next trigger writes them', async () => {
  const api = await start(BOTH, false);
  await s.converge(
    () => /The Kueue Topology CRD \(kueue\.x-k8s\.io, versions v1beta2, v1beta1, v1alpha1\) is not served; no Kueue Topology is written until it is/.test(s.log()),
    'the missing Kueue CRD said',
  );
  await s.converge(() => /The KAI Topology CRD \(kai\.scheduler, versions v1alpha1\) is not served/.test(s.log()), 'the missing KAI CRD said');
  assert.equal(topologyWrites(api), []);
  api.installCrd(KUEUE_TOPOLOGY_CRD_FILE);
  setDiscoveryConfig(api, BOTH.replace('    enabled: true\n', '    enabled: true\n    interval: 2h\n'));
  await s.converge(() => levels(api, KUEUE)?.length === 3, 'the Kueue Topology written once its CRD is served');
  assert.is((s.log().match(/The KAI Topology CRD/g) ?? []).length, 1, 'the still-missing KAI CRD is said once');
});

test('a tree of more than 8 levels writes no Topology and says why; exports without nodeLabels are a config error', async () => {
  const deep = Array.from({ length: 8 }, (_, i) => `example.com/l${i}`);
  const api = await start(config('      kueueTopology: true\n', deep), true, Object.fromEntries(deep.map((k, i) => [k, `v${i}`])));
  await s.converge(
    () => /needs 9 Topology levels \(with kubernetes\.io\/hostname\), more than the 8 a Kueue or KAI Topology holds; no Topology hypernode-label is written/.test(s.log()),
    'the refusal said',
  );
  assert.equal(topologyWrites(api), []);

  setDiscoveryConfig(api, config('      kueueTopology: true\n').replace(`    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n`, '    exports:\n'));
  await s.converge(() => /exports\.kueueTopology needs exports\.nodeLabels: its levels are the Node label keys/.test(s.log()), 'the config error names the missing key');
});

test('a Topology of that name someone else made is left alone, said once, and the other kind is still written', async () => {
  const api = await start(BOTH, true, {}, false);
  api.store.create({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Topology', metadata: { name: 'hypernode-label' }, spec: { levels: [{ nodeLabel: 'example.com/theirs' }] } });
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  await s.converge(() => levels(api, KAI)?.length === 3, 'the KAI Topology written');
  await s.converge(
    () => /Kueue Topology hypernode-label already exists without the volcano\.sh\/network-topology-source label, so it is not ours and is left alone/.test(s.log()),
    'the foreign object reported',
  );
  assert.equal(levels(api, KUEUE), ['example.com/theirs']);
  assert.not.match(s.log(), /Failed to write Kueue Topology/);
});

test('--dry-run creates no Topology and logs each it would create', async () => {
  const api = await start(BOTH, true, {}, false);
  s.controller = await startControllerBinary({ kubeconfig: s.cluster!.kubeconfig, namespace: NS, flags: ['--dry-run'] });
  await s.converge(
    () =>
      /Dry run: would create Topology group="kueue\.x-k8s\.io" name="hypernode-label" levels="topo\.example\.com\/hypercluster,topo\.example\.com\/hypernode,kubernetes\.io\/hostname"/.test(
        s.log(),
      ),
    'the Kueue create logged',
  );
  await s.converge(() => /Dry run: would create Topology group="kai\.scheduler" name="hypernode-label"/.test(s.log()), 'the KAI create logged');
  assert.equal(topologyWrites(api), []);
  assert.is(api.store.list(KUEUE).length, 0);
});

test('with Kueue installed but neither the export nor its RBAC, the controller says nothing about Topology objects', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const f of [KUEUE_TOPOLOGY_CRD_FILE, KAI_TOPOLOGY_CRD_FILE]) api.installCrd(f);
  for (let i = 0; i < 8; i++) api.store.create(node(`node${i}`, { [RACK]: `s${i >> 1}`, [CLUSTER]: i < 4 ? 's4' : 's5' }));
  seedConfigMap(api, config('').replace(`    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n`, ''));
  s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  await s.converge(() => api.requests.all({ user: CONTROLLER_USER }).filter((r) => r.resource === 'topologies' && r.code === 403).length >= 2, 'both lists refused');
  await s.converge(() => api.store.list('hypernodes').length === 6, 'the HyperNodes written');
  assert.not.match(s.log(), /Kueue|KAI|topologies/);
});

test('plan shows the Topology creates, nothing once written, and a change of levels as a replace', async () => {
  const api = await start(BOTH, true, {}, false);
  const dir = mkdtempSync(join(tmpdir(), 'hn-plan-topo-'));
  try {
    const read = (apiGroups: string[], resources: string[]) => ({ apiGroups, resources, verbs: ['get', 'list', 'watch'] });
    const rules = [read([''], ['nodes', 'configmaps', 'secrets']), read(['topology.volcano.sh'], ['hypernodes'])];
    const reader = api.writeKubeconfig(dir, { token: api.addUser('plan-reader', [...rules, read(['kueue.x-k8s.io', 'kai.scheduler'], ['topologies'])]), fileName: 'r.yaml' });
    const blind = api.writeKubeconfig(dir, { token: api.addUser('plan-blind', rules), fileName: 'b.yaml' });
    const env = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
    const run = (kubeconfig: string, ...args: string[]) => plan([`--kubeconfig=${kubeconfig}`, ...args], 'x', { color: false, env });
    const want = `${PREFIX}/hypercluster, ${PREFIX}/hypernode, ${HOST}`;

    const before = await run(reader);
    assert.is(before.code, 2, before.stderr);
    assert.match(
      before.stdout,
      `\nTopology objects:\n  + Kueue Topology hypernode-label (source "label")\n      levels ${want}\n  + KAI Topology hypernode-label (source "label")\n      levels ${want}\n`,
    );
    assert.match(before.stdout, /\. Topology objects: 2 to create, 0 to replace, 0 to delete\.\n$/);
    const json = JSON.parse((await run(reader, '-o', 'json')).stdout) as { summary: { topologies: unknown } };
    assert.equal(json.summary.topologies, { create: 2, replace: 0, delete: 0 });

    const denied = await run(blind);
    assert.is(denied.code, 2, 'the HyperNode creates are still planned');
    assert.match(denied.stderr, /could not read the Kueue Topology objects, so their changes are not shown: .*forbidden/);

    s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
    await s.converge(
      () =>
        levels(api, KUEUE)?.length === 3 &&
        levels(api, KAI)?.length === 3 &&
        api.store.list('hypernodes').length === 6 &&
        api.store.list('nodes').every((n) => n.metadata.labels?.[`${PREFIX}/hypernode`]),
      'written and labelled',
    );
    await s.controller.stop();
    s.controller = undefined;
    const after = await run(reader);
    assert.is(after.code, 0, after.stdout);

    setDiscoveryConfig(api, config('      kueueTopology: true\n      kaiTopology: true\n', [RACK]));
    const replace = await run(reader);
    assert.match(
      replace.stdout,
      `  -/+ Kueue Topology hypernode-label (source "label")\n      levels ${want} -> ${PREFIX}/hypernode, ${HOST} (levels are immutable: deleted and created)\n`,
    );
    assert.match(replace.stdout, /Topology objects: 0 to create, 2 to replace, 0 to delete\.\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
