// The stand-in's Kueue and KAI Topology schemas (testing/apiserver/*_topologies.yaml):
// served only when asked, each under its own group although both are
// `topologies`, listed by discovery, and enforcing what the controller's
// Topology writes must satisfy: 1 to 8 levels, valid label keys, no label
// twice, kubernetes.io/hostname only last, and levels that never change
// once created (a PUT changing them is refused; other fields may change).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KAI_TOPOLOGY_CRD_FILE, KUEUE_TOPOLOGY_CRD_FILE, startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
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

for (const t of [KUEUE, KAI]) {
  test(`${t.apiVersion}: 8 levels pass, 9 and none are refused, as are a bad key, a repeated key and the hostname above the last level`, async () => {
    const eight = Array.from({ length: 7 }, (_, i) => `t.example.com/l${i}`);
    assert.is((await create(t, 'eight', levels(...eight, HOST))).status, 201);
    const nine = await create(t, 'nine', levels(...eight, 't.example.com/x', HOST));
    assert.is(nine.status, 422);
    assert.is(nine.body.message, `${t.kind} "nine" is invalid: spec.levels: Invalid value: 9: spec.levels in body should have at most 8 items`);
    const none = await create(t, 'none', []);
    assert.is(none.status, 422);
    assert.match(none.body.message, /spec\.levels: Invalid value: 0: spec\.levels in body should have at least 1 items/);
    const bad = await create(t, 'bad', levels('not a key'));
    assert.is(bad.status, 422);
    assert.match(bad.body.message, /spec\.levels\[0\]\.nodeLabel: Invalid value: "not a key": spec\.levels\[0\]\.nodeLabel in body should match/);
    const twice = await create(t, 'twice', levels('t.example.com/a', 't.example.com/a'));
    assert.is(twice.body.message, `${t.kind} "twice" is invalid: spec.levels: Invalid value: "array": must be unique`);
    const hostFirst = await create(t, 'host-first', levels(HOST, 't.example.com/a'));
    assert.is(hostFirst.body.message, `${t.kind} "host-first" is invalid: spec.levels: Invalid value: "array": kubernetes.io/hostname may only be the last level`);
  });

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

test.run();
