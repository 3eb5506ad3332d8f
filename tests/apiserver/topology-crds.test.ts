// The stand-in's Kueue and KAI Topology schemas (testing/apiserver/*_topologies.yaml):
// served only when asked, each under its own group although both are
// `topologies`, listed by discovery, and enforcing what the controller's
// Topology writes must satisfy: 1 to 16 levels (8 for Kueue 0.13's
// v1alpha1), valid label keys, no label twice, kubernetes.io/hostname only
// last, and levels that never change once created (a PUT changing them is
// refused; other fields may change); Kueue 0.13 serving Topology at another
// version than its other kinds; the ResourceFlavor rules; and Kueue's
// finalizer holding a Topology's deletion while a ResourceFlavor names it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  KAI_TOPOLOGY_CRD_FILE,
  KUEUE_0_13_RESOURCE_FLAVOR_CRD_FILE,
  KUEUE_0_13_TOPOLOGY_CRD_FILE,
  KUEUE_RESOURCE_FLAVOR_CRD_FILE,
  KUEUE_RESOURCE_IN_USE_FINALIZER,
  KUEUE_TOPOLOGY_CRD_FILE,
  startApiServer,
  type ApiServer,
} from '../../testing/apiserver/index.ts';
import { waitFor } from '../../testing/wait.ts';
import { call } from '../../testing/apiserver-client.ts';

const KUEUE = { path: '/apis/kueue.x-k8s.io/v1beta2/topologies', apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Topology.kueue.x-k8s.io' };
const KAI = { path: '/apis/kai.scheduler/v1alpha1/topologies', apiVersion: 'kai.scheduler/v1alpha1', kind: 'Topology.kai.scheduler' };
const HOST = 'kubernetes.io/hostname';

let api: ApiServer;
test.before.each(async () => {
  api = await startApiServer({ extraCrds: [KUEUE_TOPOLOGY_CRD_FILE, KAI_TOPOLOGY_CRD_FILE] });
});
test.after.each(async () => {
  await api.close();
});

const levels = (...keys: string[]) => keys.map((nodeLabel) => ({ nodeLabel }));
const topology = (t: typeof KUEUE, name: string, lv: unknown) => ({ apiVersion: t.apiVersion, kind: 'Topology', metadata: { name }, spec: { levels: lv } });
const create = (t: typeof KUEUE, name: string, lv: unknown) => call(api, 'POST', t.path, { body: topology(t, name, lv) });

test('without the CRDs nothing is served; with them both groups are, apart, and discovery lists them', async () => {
  const bare = await startApiServer({});
  try {
    assert.is((await call(bare, 'GET', KUEUE.path)).status, 404);
    assert.is((await call(bare, 'GET', '/apis/kueue.x-k8s.io')).status, 404);
    bare.installCrd(KUEUE_TOPOLOGY_CRD_FILE);
    assert.is((await call(bare, 'GET', KUEUE.path)).status, 200, 'served once installed');
  } finally {
    await bare.close();
  }
  assert.is((await create(KUEUE, 'fabric', levels('t.example.com/spine', HOST))).status, 201);
  assert.is((await create(KAI, 'fabric', levels('t.example.com/leaf', HOST))).status, 201);
  assert.equal(api.store.get('topologies.kueue.x-k8s.io', 'fabric')!.spec.levels, levels('t.example.com/spine', HOST));
  assert.equal(api.store.get('topologies.kai.scheduler', 'fabric')!.spec.levels, levels('t.example.com/leaf', HOST));
  const kueueGroup = await call(api, 'GET', '/apis/kueue.x-k8s.io');
  assert.equal(kueueGroup.body.preferredVersion, { groupVersion: 'kueue.x-k8s.io/v1beta2', version: 'v1beta2' });
  const kai = await call(api, 'GET', '/apis/kai.scheduler/v1alpha1');
  assert.equal(
    kai.body.resources.map((r: { name: string; namespaced: boolean }) => [r.name, r.namespaced]),
    [['topologies', false]],
  );
});

const KUEUE_0_13 = { path: '/apis/kueue.x-k8s.io/v1alpha1/topologies', apiVersion: 'kueue.x-k8s.io/v1alpha1', kind: 'Topology.kueue.x-k8s.io' };

test('Kueue 0.13 serves Topology only as v1alpha1 while its ResourceFlavor is v1beta1; discovery lists each version with its own kinds', async () => {
  const old = await startApiServer({ extraCrds: [KUEUE_0_13_TOPOLOGY_CRD_FILE, KUEUE_0_13_RESOURCE_FLAVOR_CRD_FILE] });
  try {
    const group = await call(old, 'GET', '/apis/kueue.x-k8s.io');
    assert.equal(
      group.body.versions.map((v: { version: string }) => v.version),
      ['v1beta1', 'v1alpha1'],
    );
    assert.is(group.body.preferredVersion.version, 'v1beta1');
    const names = async (v: string) => (await call(old, 'GET', `/apis/kueue.x-k8s.io/${v}`)).body.resources.map((r: { name: string }) => r.name);
    assert.equal(await names('v1beta1'), ['resourceflavors']);
    assert.equal(await names('v1alpha1'), ['topologies']);
    assert.is((await call(old, 'GET', '/apis/kueue.x-k8s.io/v1beta1/topologies')).status, 404);
    assert.is((await call(old, 'GET', KUEUE_0_13.path)).status, 200);
  } finally {
    await old.close();
  }
});

const LIMITS: Array<[typeof KUEUE, number, string[]]> = [
  [KUEUE, 16, [KUEUE_TOPOLOGY_CRD_FILE]],
  [KAI, 16, [KAI_TOPOLOGY_CRD_FILE]],
  [KUEUE_0_13, 8, [KUEUE_0_13_TOPOLOGY_CRD_FILE]],
];
for (const [t, max, crds] of LIMITS) {
  test(`${t.apiVersion} (${crds[0]!.split('/').pop()}): ${max} levels pass, ${max + 1} and none are refused, as are a bad key, a repeated key and the hostname above the last level`, async () => {
    const own = await startApiServer({ extraCrds: crds });
    const make = (name: string, lv: unknown) => call(own, 'POST', t.path, { body: topology(t, name, lv) });
    try {
      const most = Array.from({ length: max - 1 }, (_, i) => `t.example.com/l${i}`);
      assert.is((await make('most', levels(...most, HOST))).status, 201);
      const over = await make('over', levels(...most, 't.example.com/x', HOST));
      assert.is(over.status, 422);
      assert.is(over.body.message, `${t.kind} "over" is invalid: spec.levels: Invalid value: ${max + 1}: spec.levels in body should have at most ${max} items`);
      const none = await make('none', []);
      assert.is(none.status, 422);
      assert.match(none.body.message, /spec\.levels: Invalid value: 0: spec\.levels in body should have at least 1 items/);
      const bad = await make('bad', levels('not a key'));
      assert.is(bad.status, 422);
      assert.match(bad.body.message, /spec\.levels\[0\]\.nodeLabel: Invalid value: "not a key": spec\.levels\[0\]\.nodeLabel in body should match/);
      const twice = await make('twice', levels('t.example.com/a', 't.example.com/a'));
      assert.is(twice.body.message, `${t.kind} "twice" is invalid: spec.levels: Invalid value: "array": must be unique`);
      const hostFirst = await make('host-first', levels(HOST, 't.example.com/a'));
      assert.is(
        hostFirst.body.message,
        `${t.kind} "host-first" is invalid: spec.levels: Invalid value: "array": the kubernetes.io/hostname label can only be used at the lowest level of topology`,
      );
    } finally {
      await own.close();
    }
  });
}

for (const t of [KUEUE, KAI]) {
  test(`${t.apiVersion}: levels are immutable; a change is delete and create, and labels may still change`, async () => {
    const made = await create(t, 'fabric', levels('t.example.com/spine', HOST));
    assert.is(made.status, 201);
    const changed = { ...made.body, spec: { levels: levels('t.example.com/core', 't.example.com/spine', HOST) } };
    const put = await call(api, 'PUT', `${t.path}/fabric`, { body: changed });
    assert.is(put.status, 422);
    assert.is(put.body.message, `${t.kind} "fabric" is invalid: spec.levels: Invalid value: "array": field is immutable`);
    const relabelled = await call(api, 'PUT', `${t.path}/fabric`, { body: { ...made.body, metadata: { ...made.body.metadata, labels: { a: 'b' } } } });
    assert.is(relabelled.status, 200, relabelled.text);
    assert.is((await call(api, 'DELETE', `${t.path}/fabric`)).status, 200);
    assert.is((await create(t, 'fabric', changed.spec.levels)).status, 201);
  });
}

const FLAVORS = '/apis/kueue.x-k8s.io/v1beta2/resourceflavors';
const flavor = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ResourceFlavor', metadata: { name }, spec });

test('a ResourceFlavor naming a Topology needs nodeLabels, and its spec cannot change once topologyName is set', async () => {
  const kueue = await startApiServer({ extraCrds: [KUEUE_TOPOLOGY_CRD_FILE, KUEUE_RESOURCE_FLAVOR_CRD_FILE] });
  try {
    const bare = await call(kueue, 'POST', FLAVORS, { body: flavor('tas', { topologyName: 'hypernode-label' }) });
    assert.is(bare.status, 422);
    assert.is(bare.body.message, 'ResourceFlavor.kueue.x-k8s.io "tas" is invalid: spec: Invalid value: "object": at least one nodeLabel is required when topology is set');
    const made = await call(kueue, 'POST', FLAVORS, { body: flavor('tas', { topologyName: 'hypernode-label', nodeLabels: { pool: 'gpu' } }) });
    assert.is(made.status, 201, made.text);
    const moved = await call(kueue, 'PUT', `${FLAVORS}/tas`, { body: { ...made.body, spec: { ...made.body.spec, topologyName: 'other' } } });
    assert.is(moved.status, 422);
    assert.match(moved.body.message, /spec: Invalid value: "object": resourceFlavorSpec are immutable when topologyName is set/);
  } finally {
    await kueue.close();
  }
});

test("Kueue's finalizer: added to every Topology, a deletion waits while a ResourceFlavor names it, and completes once none does", async () => {
  const kueue = await startApiServer({ extraCrds: [KUEUE_TOPOLOGY_CRD_FILE, KUEUE_RESOURCE_FLAVOR_CRD_FILE], kueueTopologyController: true });
  const get = () => kueue.store.get('topologies.kueue.x-k8s.io', 'fabric');
  try {
    const wait = async (what: string, ok: () => boolean) => {
      await waitFor(ok, { timeoutMs: 10_000, what });
    };
    assert.is((await call(kueue, 'POST', KUEUE.path, { body: topology(KUEUE, 'fabric', levels('t.example.com/spine', HOST)) })).status, 201);
    await wait('the finalizer added', () => get()?.metadata.finalizers?.includes(KUEUE_RESOURCE_IN_USE_FINALIZER) === true);
    await call(kueue, 'POST', FLAVORS, { body: flavor('tas', { topologyName: 'fabric', nodeLabels: { pool: 'gpu' } }) });
    const deleted = await call(kueue, 'DELETE', `${KUEUE.path}/fabric`);
    assert.is(deleted.status, 200);
    assert.ok(deleted.body.metadata.deletionTimestamp, 'the answer is the object, marked for deletion');
    assert.ok(get()?.metadata.deletionTimestamp, 'held while the flavor names it');
    const again = await call(kueue, 'POST', KUEUE.path, { body: topology(KUEUE, 'fabric', levels('t.example.com/leaf', HOST)) });
    assert.is(again.status, 409);
    assert.is(again.body.message, 'object is being deleted: topologies.kueue.x-k8s.io "fabric" already exists');
    const held = get()!;
    const added = await call(kueue, 'PUT', `${KUEUE.path}/fabric`, {
      body: { ...held, metadata: { ...held.metadata, finalizers: [...held.metadata.finalizers, 'example.com/mine'] } },
    });
    assert.is(added.status, 422, 'no finalizer may be added while deleting');
    assert.is((await call(kueue, 'DELETE', `${FLAVORS}/tas`)).status, 200);
    await wait('the deletion completed once no flavor names it', () => get() === undefined);
    assert.is((await call(kueue, 'POST', KUEUE.path, { body: topology(KUEUE, 'fabric', levels('t.example.com/leaf', HOST)) })).status, 201);
  } finally {
    await kueue.close();
  }
});

test.run();
