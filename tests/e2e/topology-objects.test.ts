// exports.kueueTopology / kaiTopology end to end: the controller in this
// process against the API server stand-in serving the Kueue and KAI Topology
// schemas as published, with the chart's RBAC plus the deploy/node-labels
// overlay. From the label worked example it writes one Topology of each kind
// whose levels are the Node label keys, highest tier first and
// kubernetes.io/hostname last, only once the Nodes carry those labels (a
// create held back by failing label writes says so once, and follows them); an
// unchanged round writes nothing; a change of levels (immutable in both) is
// a delete and a create of the same name, and while Kueue's finalizer holds
// the delete (a ResourceFlavor names the Topology) the hold is reported, the
// Nodes keep every label it names, and the new object follows within
// moments of the flavor letting go, without a ConfigMap edit; one deleted by
// someone else is made again; Kueue 0.12 gets its Topology at v1alpha1 (8
// levels), a current Kueue 12 levels; turning one export off deletes only
// that kind's object; without a CRD it logs once and writes nothing until
// the CRD is served; a tree of more levels than the version takes is refused
// with a line saying why; --dry-run only logs; an object of the same name
// that is not ours is left alone; with no export and the chart's RBAC no
// request reaches `topologies`. `plan` lists the creates and the replace
// with their whole sequence, and still plans when its user may not read
// Topology objects.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import {
  KUEUE_0_12_TOPOLOGY_CRD_FILE,
  KUEUE_TOPOLOGY_CRD_FILE,
  KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE,
} from '../../testing/apiserver/index.ts';
import { startControllerBinary, startControllerInProcess } from '../support/controller-process.ts';
import { CLUSTER, CONTROLLER_USER, NS, RACK, node, seedConfigMap, setDiscoveryConfig } from './cluster.ts';
import { session } from './session.ts';
import {
  BOTH,
  config,
  CURRENT,
  HOST,
  KAI,
  KUEUE,
  levels,
  PREFIX,
  startTopologyCluster,
  topologyWrites,
  type Topo,
} from './topology-cluster.ts';

const s = session(test);
const start = (conf: string, crds: boolean | string[] = true, extraLabels: Record<string, string> = {}, run = true) =>
  startTopologyCluster(s, conf, crds, extraLabels, run);

test('one Kueue and one KAI Topology, levels from the label keys with the hostname last; an unchanged round writes nothing', async () => {
  const api = await start(BOTH);
  const want = [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`, HOST];
  await s.converge(
    () => levels(api, KUEUE)?.join() === want.join() && levels(api, KAI)?.join() === want.join(),
    'both Topology objects written',
  );
  assert.is(
    (api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.labels!['volcano.sh/network-topology-source'],
    'label',
  );
  assert.equal(
    topologyWrites(api).map((r) => `${r.verb} ${r.code}`),
    ['create 201', 'create 201'],
  );
  // Logged once the create is answered, which may be after the object is seen.
  await s.converge(
    () =>
      /Created Kueue Topology name="hypernode-label" source="label" levels="topo\.example\.com\/hypercluster,topo\.example\.com\/hypernode,kubernetes\.io\/hostname"/.test(
        s.log(),
      ),
    'the create logged',
  );

  const rounds = () => (s.log().match(/Topology reconciliation completed source="label"/g) ?? []).length;
  const before = rounds();
  setDiscoveryConfig(api, BOTH.replace('    enabled: true\n', '    enabled: true\n    interval: 2h\n'));
  await s.converge(() => rounds() > before, 'another round of the same snapshot');
  await s.converge(
    () => api.requests.all().filter((r) => r.resource === 'topologies' && r.verb === 'list').length >= 4,
    'the Topology objects listed again',
  );
  assert.is(topologyWrites(api).length, 2, 'nothing written for an unchanged topology');
  assert.equal(
    api.requests.all((r) => r.user === CONTROLLER_USER && r.code === 403),
    [],
    'nothing refused under the chart RBAC and the node-labels component',
  );
  // Each label was on its Node before the Topology naming it was created.
  const order = api.requests.all((r) => r.user === CONTROLLER_USER);
  const firstCreate = order.findIndex((r) => r.resource === 'topologies' && r.verb === 'create');
  const lastPatch = order.findLastIndex((r) => r.resource === 'nodes' && r.verb === 'patch');
  assert.ok(lastPatch >= 0 && lastPatch < firstCreate, 'the Node labels were written before the Topology');
});

test('a create waits for the Node labels its levels name, says so once, and is made once they are written', async () => {
  const api = await start(BOTH, true, {}, false);
  // The label writes fail until released, so the Nodes lack the labels when the Topology pass runs.
  api.failNext(1_000_000, { code: 500, match: { resource: 'nodes', verb: 'patch' } });
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  const waits = (kind: string) =>
    `${kind} Topology hypernode-label of discovery source "label" waits for the Node labels its levels name (8 Nodes not yet labelled); it is created once they are written\n`;
  await s.converge(
    () => s.log().includes(waits('Kueue')) && s.log().includes(waits('KAI')),
    'the wait for the labels said',
  );
  assert.is(topologyWrites(api).length, 0, 'no Topology names labels its Nodes lack');
  api.clearFaults();
  const want = [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`, HOST].join();
  await s.converge(
    () => levels(api, KUEUE)?.join() === want && levels(api, KAI)?.join() === want,
    'both created once the labels are written',
  );
  assert.ok(
    api.store
      .list('nodes')
      .every((n) => n.metadata.labels?.[`${PREFIX}/hypercluster`] && n.metadata.labels[`${PREFIX}/hypernode`]),
    'every Node carries the labels the levels name',
  );
  assert.is(s.log().split(waits('Kueue')).length - 1, 1, 'the wait is said once, not at every pass');
});

test('with Node labels but no Topology export: a Topology of ours a past configuration left is deleted, then topologies are not asked about again', async () => {
  const labelsOnly = config('');
  const api = await start(labelsOnly, true, {}, false);
  api.store.create({
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'Topology',
    metadata: { name: 'hypernode-label', labels: { 'volcano.sh/network-topology-source': 'label' } },
    spec: { levels: [{ nodeLabel: `${PREFIX}/hypernode` }, { nodeLabel: HOST }] },
  });
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  await s.converge(() => levels(api, KUEUE) === undefined, 'the left-over Topology deleted');
  await s.converge(
    () => api.store.list('nodes').every((n) => n.metadata.labels?.[`${PREFIX}/hypernode`]),
    'the Nodes labelled',
  );
  const asked = () => api.requests.all((r) => r.user === CONTROLLER_USER && r.resource === 'topologies').length;
  const after = asked();
  const rounds = () => (s.log().match(/Topology reconciliation completed source="label"/g) ?? []).length;
  const before = rounds();
  setDiscoveryConfig(api, labelsOnly.replace('    enabled: true\n', '    enabled: true\n    interval: 2h\n'));
  await s.converge(() => rounds() > before, 'another round after a ConfigMap change');
  assert.is(asked(), after, 'no further request once none of ours is left and no entry exports the kind');
  assert.equal(
    api.requests.all((r) => r.user === CONTROLLER_USER && r.code === 403),
    [],
  );
});

test('a change of levels replaces the objects (delete, then create); turning one export off deletes only its kind', async () => {
  const api = await start(BOTH);
  await s.converge(() => levels(api, KUEUE)?.length === 3 && levels(api, KAI)?.length === 3, 'written');
  const uid = (api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.uid;
  setDiscoveryConfig(api, config('      kueueTopology: true\n      kaiTopology: true\n', [RACK]));
  await s.converge(
    () => levels(api, KUEUE)?.join() === `${PREFIX}/hypernode,${HOST}` && levels(api, KAI)?.length === 2,
    'both replaced with two levels',
  );
  assert.is.not((api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.uid, uid, 'a new object, not an update');
  assert.equal(
    topologyWrites(api)
      .slice(2)
      .map((r) => r.verb),
    ['delete', 'create', 'delete', 'create'],
  );
  assert.match(
    s.log(),
    /Deleting Kueue Topology to replace it name="hypernode-label" source="label" reason="levels changed; levels are immutable"\n/,
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
    () =>
      /The Kueue Topology CRD \(kueue\.x-k8s\.io, versions v1beta2, v1beta1, v1alpha1\) is not served; no Kueue Topology is written until it is/.test(
        s.log(),
      ),
    'the missing Kueue CRD said',
  );
  await s.converge(
    () => /The KAI Topology CRD \(kai\.scheduler, versions v1alpha1\) is not served/.test(s.log()),
    'the missing KAI CRD said',
  );
  assert.equal(topologyWrites(api), []);
  api.installCrd(KUEUE_TOPOLOGY_CRD_FILE);
  setDiscoveryConfig(api, BOTH.replace('    enabled: true\n', '    enabled: true\n    interval: 2h\n'));
  await s.converge(() => levels(api, KUEUE)?.length === 3, 'the Kueue Topology written once its CRD is served');
  assert.is((s.log().match(/The KAI Topology CRD/g) ?? []).length, 1, 'the still-missing KAI CRD is said once');
});

test('a current Kueue and KAI get 12 levels; a tree of more than 16 writes no Topology and says why; exports without nodeLabels are a config error', async () => {
  const eleven = Array.from({ length: 11 }, (_, i) => `example.com/l${i}`);
  const api = await start(
    config('      kueueTopology: true\n      kaiTopology: true\n', eleven),
    true,
    Object.fromEntries(eleven.map((k, i) => [k, `v${i}`])),
  );
  await s.converge(
    () => levels(api, KUEUE)?.length === 12 && levels(api, KAI)?.length === 12,
    '12 levels written to both',
  );
  assert.is(levels(api, KUEUE)!.at(-1), HOST);

  const sixteen = Array.from({ length: 16 }, (_, i) => `example.com/l${i}`);
  for (const n of api.store.list('nodes'))
    api.store.update({
      ...n,
      metadata: {
        ...n.metadata,
        labels: { ...n.metadata.labels, ...Object.fromEntries(sixteen.map((k, i) => [k, `v${i}`])) },
      },
    });
  setDiscoveryConfig(api, config('      kueueTopology: true\n', sixteen));
  await s.converge(
    () =>
      /needs 17 Topology levels \(with kubernetes\.io\/hostname\), more than the 16 a Kueue Topology kueue\.x-k8s\.io\/v1beta2 holds; no Topology hypernode-label is written/.test(
        s.log(),
      ),
    'the refusal said',
  );

  setDiscoveryConfig(
    api,
    config('      kueueTopology: true\n').replace(
      `    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n`,
      '    exports:\n',
    ),
  );
  await s.converge(
    () => /exports\.kueueTopology needs exports\.nodeLabels: its levels are the Node label keys/.test(s.log()),
    'the config error names the missing key',
  );
});

test('Kueue 0.12 (Topology served only at v1alpha1 beside v1beta1 kinds) gets its Topology; 9 levels are refused there', async () => {
  const api = await start(config('      kueueTopology: true\n'), [
    KUEUE_0_12_TOPOLOGY_CRD_FILE,
    KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE,
  ]);
  await s.converge(() => levels(api, KUEUE)?.length === 3, 'the Kueue Topology written');
  assert.is(api.store.get(KUEUE, 'hypernode-label')!.apiVersion, 'kueue.x-k8s.io/v1alpha1');
  assert.equal(
    api.requests.all((r) => r.resource === 'topologies' && r.user === CONTROLLER_USER && r.code === 404),
    [],
    'never asked at a version the kind is not served at',
  );
  const eight = Array.from({ length: 8 }, (_, i) => `example.com/l${i}`);
  for (const n of api.store.list('nodes'))
    api.store.update({
      ...n,
      metadata: {
        ...n.metadata,
        labels: { ...n.metadata.labels, ...Object.fromEntries(eight.map((k, i) => [k, `v${i}`])) },
      },
    });
  setDiscoveryConfig(api, config('      kueueTopology: true\n', eight));
  await s.converge(
    () => /more than the 8 a Kueue Topology kueue\.x-k8s\.io\/v1alpha1 holds/.test(s.log()),
    'the 9-level refusal said',
  );
});

test('a Topology of that name someone else made is left alone, said once, and the other kind is still written', async () => {
  const api = await start(BOTH, true, {}, false);
  api.store.create({
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'Topology',
    metadata: { name: 'hypernode-label' },
    spec: { levels: [{ nodeLabel: 'example.com/theirs' }] },
  });
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  await s.converge(() => levels(api, KAI)?.length === 3, 'the KAI Topology written');
  await s.converge(
    () =>
      /Kueue Topology hypernode-label already exists without the volcano\.sh\/network-topology-source=label label, so it is not discovery source "label"'s and is left alone/.test(
        s.log(),
      ),
    'the foreign object reported',
  );
  assert.equal(levels(api, KUEUE), ['example.com/theirs']);
  assert.not.match(s.log(), /Failed to write Kueue Topology/);
});

test('--dry-run creates no Topology and logs each it would create', async () => {
  const api = await start(BOTH, true, {}, false);
  s.controller = await startControllerBinary({
    kubeconfig: s.cluster!.kubeconfig,
    namespace: NS,
    flags: ['--dry-run'],
  });
  await s.converge(
    () =>
      /Dry run: would create Topology group="kueue\.x-k8s\.io" name="hypernode-label" levels="topo\.example\.com\/hypercluster,topo\.example\.com\/hypernode,kubernetes\.io\/hostname"/.test(
        s.log(),
      ),
    'the Kueue create logged',
  );
  await s.converge(
    () => /Dry run: would create Topology group="kai\.scheduler" name="hypernode-label"/.test(s.log()),
    'the KAI create logged',
  );
  assert.equal(topologyWrites(api), []);
  assert.is(api.store.list(KUEUE).length, 0);
});

test('with Kueue installed and the chart RBAC but no export, no request reaches topologies and none is refused', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const f of CURRENT) api.installCrd(f);
  for (let i = 0; i < 8; i++)
    api.store.create(node(`node${i}`, { [RACK]: `s${i >> 1}`, [CLUSTER]: i < 4 ? 's4' : 's5' }));
  const plain = config('').replace(`    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n`, '');
  seedConfigMap(api, plain);
  s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  await s.converge(() => api.store.list('hypernodes').length === 6, 'the HyperNodes written');
  const rounds = () => (s.log().match(/Topology reconciliation completed source="label"/g) ?? []).length;
  const before = rounds();
  setDiscoveryConfig(api, plain.replace('    enabled: true\n', '    enabled: true\n    interval: 2h\n'));
  await s.converge(() => rounds() > before, 'another round after a ConfigMap change');
  assert.equal(
    api.requests
      .all((r) => r.user === CONTROLLER_USER && (r.resource === 'topologies' || r.code === 403))
      .map((r) => `${r.verb} ${r.path} ${r.code}`),
    [],
  );
  assert.not.match(s.log(), /Kueue|KAI|topologies/);
});

test('a Topology deleted by someone else is made again from the watch, without a ConfigMap edit', async () => {
  const api = await start(BOTH);
  await s.converge(() => levels(api, KUEUE)?.length === 3 && levels(api, KAI)?.length === 3, 'written');
  const uid = (api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.uid;
  api.store.delete(KUEUE, 'hypernode-label');
  await s.converge(
    () =>
      (api.store.get(KUEUE, 'hypernode-label') as Topo | undefined)?.metadata.uid !== uid &&
      levels(api, KUEUE)?.length === 3,
    'made again',
  );
  assert.ok(
    api.requests.all((r) => r.resource === 'topologies' && r.user === CONTROLLER_USER && r.verb === 'watch').length >=
      2,
    'both kinds watched',
  );
});

test('plan shows the Topology creates, nothing once written, and a change of levels as a replace', async () => {
  const api = await start(BOTH, true, {}, false);
  const dir = mkdtempSync(join(tmpdir(), 'hn-plan-topo-'));
  try {
    const read = (apiGroups: string[], resources: string[]) => ({
      apiGroups,
      resources,
      verbs: ['get', 'list', 'watch'],
    });
    const rules = [read([''], ['nodes', 'configmaps', 'secrets']), read(['topology.volcano.sh'], ['hypernodes'])];
    const reader = api.writeKubeconfig(dir, {
      token: api.addUser('plan-reader', [...rules, read(['kueue.x-k8s.io', 'kai.scheduler'], ['topologies'])]),
      fileName: 'r.yaml',
    });
    const blind = api.writeKubeconfig(dir, { token: api.addUser('plan-blind', rules), fileName: 'b.yaml' });
    const env = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
    const run = (kubeconfig: string, ...args: string[]) =>
      plan([`--kubeconfig=${kubeconfig}`, ...args], 'x', { color: false, env });
    const want = `${PREFIX}/hypercluster, ${PREFIX}/hypernode, ${HOST}`;

    const before = await run(reader);
    assert.is(before.code, 2, before.stderr);
    assert.match(
      before.stdout,
      `\nTopology objects:\n  + Kueue Topology hypernode-label (source "label")\n      levels ${want}\n      1. the Node labels above are written first (8 Nodes)\n      2. create with levels ${want}\n  + KAI Topology hypernode-label (source "label")\n`,
    );
    assert.match(before.stdout, /\. Topology objects: 2 to create, 0 to replace, 0 to delete\.\n$/);
    const json = JSON.parse((await run(reader, '-o', 'json')).stdout) as { summary: { topologies: unknown } };
    assert.equal(json.summary.topologies, { create: 2, replace: 0, update: 0, delete: 0, held: 0 });

    const denied = await run(blind);
    assert.is(denied.code, 2, 'the HyperNode creates are still planned');
    assert.match(
      denied.stderr,
      /could not read the Kueue Topology objects, so their changes are not shown: .*forbidden/,
    );

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
      `  -/+ Kueue Topology hypernode-label (source "label")\n      levels ${want} -> ${PREFIX}/hypernode, ${HOST} (levels are immutable: deleted and created)\n` +
        `      1. delete hypernode-label\n      2. create it again, once it is gone, with levels ${PREFIX}/hypernode, ${HOST}\n` +
        `      3. then the Node labels ${PREFIX}/hypercluster, which no live Topology names any more, are removed\n`,
    );
    assert.not.match(replace.stdout, /hypercluster removed/, 'the label the live Topology names is not removed yet');
    assert.match(replace.stdout, /Topology objects: 0 to create, 2 to replace, 0 to delete\.\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a change of levels while a ResourceFlavor uses the Topology: held and reported, every label it names kept, the new one made once the flavor lets go', async () => {
  const api = await start(BOTH, true, {}, false);
  api.startKueueTopologyController();
  // The invariant, at every stored state: no Topology of ours names a label one of its Nodes lacks.
  const violations: string[] = [];
  const check = () => {
    for (const resource of [KUEUE, KAI]) {
      for (const t of api.store.list(resource) as Topo[]) {
        if (!t.metadata.labels?.['volcano.sh/network-topology-source']) continue;
        for (const n of api.store.list('nodes')) {
          const lacking = t.spec.levels.map((l) => l.nodeLabel).filter((k) => n.metadata.labels?.[k] === undefined);
          if (lacking.length > 0)
            violations.push(
              `${resource} ${t.metadata.name} names ${lacking.join(',')}, which ${n.metadata.name} lacks`,
            );
        }
      }
    }
  };
  const stops = [api.onStoreChange('nodes', check), api.onStoreChange(KUEUE, check), api.onStoreChange(KAI, check)];
  try {
    s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
    await s.converge(
      () =>
        (api.store.get(KUEUE, 'hypernode-label') as Topo | undefined)?.metadata.finalizers?.includes(
          'kueue.x-k8s.io/resource-in-use',
        ) && levels(api, KAI)?.length === 3,
      'both written, Kueue holding its Topology',
    );
    api.store.create({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ResourceFlavor',
      metadata: { name: 'tas' },
      spec: { nodeLabels: { [RACK]: 's0' }, topologyName: 'hypernode-label' },
    });
    const writesBefore = api.requests.writes((r) => r.user === CONTROLLER_USER).length;
    const dir = mkdtempSync(join(tmpdir(), 'hn-plan-held-'));
    const reader = api.writeKubeconfig(dir, { fileName: 'admin.yaml' });
    const planned = (...args: string[]) =>
      plan([`--kubeconfig=${reader}`, ...args], 'x', {
        color: false,
        env: { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' },
      });
    const newLevels = `${PREFIX}/hypernode, ${HOST}`;
    const racksOnly = config('      kueueTopology: true\n      kaiTopology: true\n', [RACK]);
    writeFileSync(join(dir, 'racks.conf'), racksOnly);

    // Tried before it is applied (--config): the whole sequence, the finalizer and what to do.
    const ahead = await planned(`--config=${join(dir, 'racks.conf')}`);
    setDiscoveryConfig(api, racksOnly);
    assert.match(
      ahead.stdout,
      `      1. delete hypernode-label; it carries finalizer kueue.x-k8s.io/resource-in-use, so the deletion is held until that goes: Kueue keeps kueue.x-k8s.io/resource-in-use while a ResourceFlavor has spec.topologyName: hypernode-label; delete those ResourceFlavors (their topologyName cannot change) and create them again once the new Topology exists\n      2. create it again, once it is gone, with levels ${newLevels}\n      3. then the Node labels ${PREFIX}/hypercluster, which no live Topology names any more, are removed\n`,
      `plan shows the whole sequence, the finalizer and what to do:\n${ahead.stdout}${ahead.stderr}`,
    );
    await s.converge(
      () => levels(api, KAI)?.join() === `${PREFIX}/hypernode,${HOST}`,
      'the KAI Topology, which nothing holds, replaced',
    );
    const held =
      /Kueue Topology hypernode-label of discovery source "label" is being deleted, held by finalizer kueue\.x-k8s\.io\/resource-in-use: Kueue keeps kueue\.x-k8s\.io\/resource-in-use while a ResourceFlavor has spec\.topologyName: hypernode-label; delete those ResourceFlavors \(their topologyName cannot change\) and create them again once the new Topology exists; then it is created again with levels topo\.example\.com\/hypernode,kubernetes\.io\/hostname\. Until then the Nodes keep the labels of its levels topo\.example\.com\/hypercluster,topo\.example\.com\/hypernode,kubernetes\.io\/hostname\n/;
    await s.converge(() => held.test(s.log()), 'the hold reported');
    await s.converge(
      () =>
        api.store
          .list('events', NS)
          .some(
            (e) =>
              e.reason === 'TopologyDeletionHeld' &&
              /held by finalizer kueue\.x-k8s\.io\/resource-in-use/.test(e.message),
          ),
      'the hold filed as an Event',
    );
    const terminating = api.store.get(KUEUE, 'hypernode-label') as Topo;
    assert.ok(terminating.metadata.deletionTimestamp, 'held, not gone');
    assert.equal(levels(api, KUEUE), [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`, HOST]);
    assert.ok(
      api.store.list('nodes').every((n) => n.metadata.labels?.[`${PREFIX}/hypercluster`] !== undefined),
      'the Nodes keep the label of the level the held Topology still names',
    );
    const during = await planned();
    rmSync(dir, { recursive: true, force: true });
    assert.match(during.stdout, / {2}- Kueue Topology hypernode-label \(source "label"\)\n/);
    assert.match(
      during.stdout,
      / {6}1\. Kueue Topology hypernode-label of discovery source "label" is being deleted, held by finalizer kueue\.x-k8s\.io\/resource-in-use: /,
    );
    assert.match(during.stdout, /Topology objects: 0 to create, 0 to replace, 0 to delete, 1 being deleted \(held\)\./);

    api.store.delete('resourceflavors.kueue.x-k8s.io', 'tas');
    await s.converge(
      () =>
        levels(api, KUEUE)?.join() === `${PREFIX}/hypernode,${HOST}` &&
        !(api.store.get(KUEUE, 'hypernode-label') as Topo).metadata.deletionTimestamp,
      'the new Kueue Topology made',
    );
    await s.converge(
      () => api.store.list('nodes').every((n) => n.metadata.labels?.[`${PREFIX}/hypercluster`] === undefined),
      'the old level label removed once nothing names it',
    );
    assert.equal(violations, []);
    const writes = api.requests.writes((r) => r.user === CONTROLLER_USER).slice(writesBefore);
    const perKind = (resource: string, verb: string) =>
      writes.filter((r) => r.resource === resource && r.verb === verb).length;
    assert.equal(
      [perKind('topologies', 'delete'), perKind('topologies', 'create'), perKind('nodes', 'patch')],
      [2, 2, 8],
      'one delete and one create per kind, one patch per Node',
    );
  } finally {
    for (const stop of stops) stop();
  }
});

test.run();
