// The stand-in's Kueue and KAI Topology schemas (testing/apiserver/*topologies.yaml):
// served only when asked, each under its own group although both are
// `topologies`, listed by discovery, and enforcing what the controller's
// Topology writes must satisfy: 1 to 16 levels (8 for Kueue 0.12's
// v1alpha1), valid label keys, no label twice, kubernetes.io/hostname only
// last, and levels that never change once created (a PUT changing them is
// refused; other fields may change; KAI 0.17's aliases may change, its
// webhook refusing a repeated alias or one equal to a nodeLabel, and KAI
// 0.16 dropping an alias it does not know); Kueue serving Topology at other
// versions than its other kinds; a current Kueue serving one object at
// v1beta1 and v1beta2, warning on the deprecated one; the schemas published
// at /openapi/v3 as a real server does; the ResourceFlavor rules; and
// Kueue's finalizer holding a Topology's deletion while a ResourceFlavor
// names it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  KAI_0_16_TOPOLOGY_CRD_FILE,
  KAI_TOPOLOGY_CRD_FILE,
  KUEUE_0_12_TOPOLOGY_CRD_FILE,
  KUEUE_0_13_TOPOLOGY_CRD_FILE,
  KUEUE_0_14_TOPOLOGY_CRD_FILE,
  KUEUE_RESOURCE_FLAVOR_CRD_FILE,
  KUEUE_RESOURCE_IN_USE_FINALIZER,
  KUEUE_TOPOLOGY_CRD_FILE,
  KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE,
  startApiServer,
  type ApiServer,
} from '../../../testing/apiserver/index.ts';
import { waitFor } from '../../../testing/wait.ts';
import { call } from '../../../testing/apiserver-client.ts';

const KUEUE = {
  path: '/apis/kueue.x-k8s.io/v1beta2/topologies',
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'Topology.kueue.x-k8s.io',
};
const KAI = {
  path: '/apis/kai.scheduler/v1alpha1/topologies',
  apiVersion: 'kai.scheduler/v1alpha1',
  kind: 'Topology.kai.scheduler',
};
const HOST = 'kubernetes.io/hostname';

let api: ApiServer;
test.before.each(async () => {
  api = await startApiServer({ extraCrds: [KUEUE_TOPOLOGY_CRD_FILE, KAI_TOPOLOGY_CRD_FILE] });
});
test.after.each(async () => {
  await api.close();
});

const levels = (...keys: string[]) => keys.map((nodeLabel) => ({ nodeLabel }));
const topology = (t: typeof KUEUE, name: string, lv: unknown) => ({
  apiVersion: t.apiVersion,
  kind: 'Topology',
  metadata: { name },
  spec: { levels: lv },
});
const create = (t: typeof KUEUE, name: string, lv: unknown) =>
  call(api, 'POST', t.path, { body: topology(t, name, lv) });

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

const KUEUE_V1ALPHA1 = {
  path: '/apis/kueue.x-k8s.io/v1alpha1/topologies',
  apiVersion: 'kueue.x-k8s.io/v1alpha1',
  kind: 'Topology.kueue.x-k8s.io',
};
const KUEUE_V1BETA1 = {
  path: '/apis/kueue.x-k8s.io/v1beta1/topologies',
  apiVersion: 'kueue.x-k8s.io/v1beta1',
  kind: 'Topology.kueue.x-k8s.io',
};

test('Kueue 0.12 serves Topology only as v1alpha1 while its ResourceFlavor is v1beta1; discovery lists each version with its own kinds', async () => {
  const old = await startApiServer({
    extraCrds: [KUEUE_0_12_TOPOLOGY_CRD_FILE, KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE],
  });
  try {
    const group = await call(old, 'GET', '/apis/kueue.x-k8s.io');
    assert.equal(
      group.body.versions.map((v: { version: string }) => v.version),
      ['v1beta1', 'v1alpha1'],
    );
    assert.is(group.body.preferredVersion.version, 'v1beta1');
    const names = async (v: string) =>
      (await call(old, 'GET', `/apis/kueue.x-k8s.io/${v}`)).body.resources.map((r: { name: string }) => r.name);
    assert.equal(await names('v1beta1'), ['resourceflavors']);
    assert.equal(await names('v1alpha1'), ['topologies']);
    assert.is((await call(old, 'GET', '/apis/kueue.x-k8s.io/v1beta1/topologies')).status, 404);
    assert.is((await call(old, 'GET', KUEUE_V1ALPHA1.path)).status, 200);
  } finally {
    await old.close();
  }
});

test('a current Kueue serves one Topology at v1beta2 and v1beta1, stored once, the deprecated version warning on every request', async () => {
  const made = await create(KUEUE_V1BETA1, 'fabric', levels('t.example.com/spine', HOST));
  assert.is(made.status, 201, made.text);
  assert.is(made.body.apiVersion, 'kueue.x-k8s.io/v1beta1');
  assert.is(made.headers.warning, '299 - "This version is deprecated. Use v1beta2 instead."');
  const read = await call(api, 'GET', `${KUEUE.path}/fabric`);
  assert.is(read.body.apiVersion, 'kueue.x-k8s.io/v1beta2');
  assert.is(read.body.metadata.uid, made.body.metadata.uid, 'one object, read at either version');
  assert.is(read.headers.warning, undefined);
  assert.is(
    api.store.get('topologies.kueue.x-k8s.io', 'fabric')!.apiVersion,
    'kueue.x-k8s.io/v1beta2',
    'stored at the storage version',
  );
  const list = await call(api, 'GET', KUEUE_V1BETA1.path);
  assert.equal(
    list.body.items.map((i: { apiVersion: string }) => i.apiVersion),
    ['kueue.x-k8s.io/v1beta1'],
  );
  const group = await call(api, 'GET', '/apis/kueue.x-k8s.io');
  assert.equal(
    group.body.versions.map((v: { version: string }) => v.version),
    ['v1beta2', 'v1beta1'],
  );
  // A no-op update at the other version writes nothing (the stored object is the same).
  const same = await call(api, 'PUT', `${KUEUE.path}/fabric`, { body: read.body });
  assert.is(same.body.metadata.resourceVersion, read.body.metadata.resourceVersion);
});

test('/openapi/v3 lists each served group-version with a hashed URL; its document holds each kind schema as the CRD has it at that version', async () => {
  const old = await startApiServer({ extraCrds: [KUEUE_0_12_TOPOLOGY_CRD_FILE, KAI_0_16_TOPOLOGY_CRD_FILE] });
  try {
    const index = await call(api, 'GET', '/openapi/v3');
    assert.is(index.status, 200);
    const url: string = index.body.paths['apis/kai.scheduler/v1alpha1'].serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/kai\.scheduler\/v1alpha1\?hash=[0-9A-F]{128}$/);
    assert.ok(
      index.body.paths['apis/kueue.x-k8s.io/v1beta1'] &&
        index.body.paths['apis/kueue.x-k8s.io/v1beta2'] &&
        index.body.paths['api/v1'],
    );
    const kai = (await call(api, 'GET', url)).body.components.schemas['scheduler.kai.v1alpha1.Topology'];
    assert.equal(kai['x-kubernetes-group-version-kind'], [
      { group: 'kai.scheduler', kind: 'Topology', version: 'v1alpha1' },
    ]);
    assert.is(kai.properties.spec.properties.levels.maxItems, 16);
    assert.ok(kai.properties.spec.properties.levels.items.properties.alias, 'KAI 0.17 levels have an alias');
    const oldIndex = await call(old, 'GET', '/openapi/v3');
    assert.is.not(
      oldIndex.body.paths['apis/kai.scheduler/v1alpha1'].serverRelativeURL,
      url,
      'another schema, another hash',
    );
    const oldKai = (await call(old, 'GET', oldIndex.body.paths['apis/kai.scheduler/v1alpha1'].serverRelativeURL)).body
      .components.schemas['scheduler.kai.v1alpha1.Topology'];
    assert.is(oldKai.properties.spec.properties.levels.items.properties.alias, undefined, 'KAI 0.16 has none');
    const kueue = (await call(old, 'GET', '/openapi/v3/apis/kueue.x-k8s.io/v1alpha1')).body.components.schemas[
      'io.x-k8s.kueue.v1alpha1.Topology'
    ];
    assert.is(kueue.properties.spec.properties.levels.maxItems, 8);
    assert.is((await call(api, 'GET', '/openapi/v3/apis/kueue.x-k8s.io/v1alpha1')).status, 404);
    assert.is(
      (await call(api, 'GET', '/openapi/v3', { token: '' })).status,
      403,
      'for authenticated users only (system:discovery)',
    );
  } finally {
    await old.close();
  }
});

test('KAI 0.17: aliases may change in place, the nodeLabels may not; its webhook refuses a repeated alias and one equal to a nodeLabel; KAI 0.16 drops an alias', async () => {
  const made = await create(KAI, 'fabric', [{ nodeLabel: 't.example.com/spine', alias: 'spine' }, { nodeLabel: HOST }]);
  assert.is(made.status, 201, made.text);
  const patch = (body: unknown) =>
    call(api, 'PATCH', `${KAI.path}/fabric`, { body, headers: { 'content-type': 'application/merge-patch+json' } });
  const renamed = await patch({
    spec: { levels: [{ nodeLabel: 't.example.com/spine', alias: 'row' }, { nodeLabel: HOST }] },
  });
  assert.is(renamed.status, 200, renamed.text);
  assert.is(renamed.body.spec.levels[0].alias, 'row');
  const moved = await patch({
    spec: { levels: [{ nodeLabel: 't.example.com/leaf', alias: 'row' }, { nodeLabel: HOST }] },
  });
  assert.is(moved.status, 422);
  assert.is(
    moved.body.message,
    'Topology.kai.scheduler "fabric" is invalid: spec.levels: Invalid value: "array": nodeLabel structure is immutable; only aliases may be edited',
  );
  const twice = await create(KAI, 'twice', [
    { nodeLabel: 't.example.com/a', alias: 'x' },
    { nodeLabel: 't.example.com/b', alias: 'x' },
  ]);
  assert.is(twice.status, 403);
  assert.is(
    twice.body.message,
    'admission webhook "topology.admission.run.ai" denied the request: invalid topology aliases: aliases must be unique within the topology; duplicated: [x]',
  );
  const clash = await create(KAI, 'clash', [
    { nodeLabel: 't.example.com/a', alias: 't.example.com/b' },
    { nodeLabel: 't.example.com/b' },
  ]);
  assert.is(clash.status, 403);
  assert.match(clash.body.message, /an alias must not equal a nodeLabel; conflicting: \[t\.example\.com\/b\]$/);
  const old = await startApiServer({ extraCrds: [KAI_0_16_TOPOLOGY_CRD_FILE] });
  try {
    const pruned = await call(old, 'POST', KAI.path, {
      body: topology(KAI, 'fabric', [{ nodeLabel: 't.example.com/spine', alias: 'spine' }, { nodeLabel: HOST }]),
    });
    assert.is(pruned.status, 201);
    assert.equal(
      pruned.body.spec.levels,
      levels('t.example.com/spine', HOST),
      'an unknown field is pruned, not refused',
    );
  } finally {
    await old.close();
  }
});

const LIMITS: Array<[typeof KUEUE, number, string[], string]> = [
  [KUEUE, 16, [KUEUE_TOPOLOGY_CRD_FILE], 'must be unique'],
  [KUEUE_V1BETA1, 16, [KUEUE_TOPOLOGY_CRD_FILE], 'must be unique'],
  [KUEUE_V1BETA1, 16, [KUEUE_0_14_TOPOLOGY_CRD_FILE], 'must be unique'],
  [KUEUE_V1ALPHA1, 16, [KUEUE_0_13_TOPOLOGY_CRD_FILE], 'must be unique'],
  [KUEUE_V1ALPHA1, 8, [KUEUE_0_12_TOPOLOGY_CRD_FILE], 'must be unique'],
  [KAI, 16, [KAI_TOPOLOGY_CRD_FILE], 'nodeLabel must be unique'],
  [KAI, 16, [KAI_0_16_TOPOLOGY_CRD_FILE], 'must be unique'],
];
for (const [t, max, crds, unique] of LIMITS) {
  test(`${t.apiVersion} (${crds[0]!.split('/').pop()}): ${max} levels pass, ${max + 1} and none are refused, as are a bad key, a repeated key and the hostname above the last level`, async () => {
    const own = await startApiServer({ extraCrds: crds });
    const make = (name: string, lv: unknown) => call(own, 'POST', t.path, { body: topology(t, name, lv) });
    try {
      const most = Array.from({ length: max - 1 }, (_, i) => `t.example.com/l${i}`);
      assert.is((await make('most', levels(...most, HOST))).status, 201);
      const over = await make('over', levels(...most, 't.example.com/x', HOST));
      assert.is(over.status, 422);
      assert.is(
        over.body.message,
        `${t.kind} "over" is invalid: spec.levels: Invalid value: ${max + 1}: spec.levels in body should have at most ${max} items`,
      );
      const none = await make('none', []);
      assert.is(none.status, 422);
      assert.match(
        none.body.message,
        /spec\.levels: Invalid value: 0: spec\.levels in body should have at least 1 items/,
      );
      const bad = await make('bad', levels('not a key'));
      assert.is(bad.status, 422);
      assert.match(
        bad.body.message,
        /spec\.levels\[0\]\.nodeLabel: Invalid value: "not a key": spec\.levels\[0\]\.nodeLabel in body should match/,
      );
      const twice = await make('twice', levels('t.example.com/a', 't.example.com/a'));
      assert.is(twice.body.message, `${t.kind} "twice" is invalid: spec.levels: Invalid value: "array": ${unique}`);
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
    const immutable = t === KAI ? 'nodeLabel structure is immutable; only aliases may be edited' : 'field is immutable';
    assert.is(put.body.message, `${t.kind} "fabric" is invalid: spec.levels: Invalid value: "array": ${immutable}`);
    const relabelled = await call(api, 'PUT', `${t.path}/fabric`, {
      body: { ...made.body, metadata: { ...made.body.metadata, labels: { a: 'b' } } },
    });
    assert.is(relabelled.status, 200, relabelled.text);
    assert.is((await call(api, 'DELETE', `${t.path}/fabric`)).status, 200);
    assert.is((await create(t, 'fabric', changed.spec.levels)).status, 201);
  });
}

const FLAVORS = '/apis/kueue.x-k8s.io/v1beta2/resourceflavors';
const flavor = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'ResourceFlavor',
  metadata: { name },
  spec,
});

test('a ResourceFlavor naming a Topology needs nodeLabels, and its spec cannot change once topologyName is set', async () => {
  const kueue = await startApiServer({ extraCrds: [KUEUE_TOPOLOGY_CRD_FILE, KUEUE_RESOURCE_FLAVOR_CRD_FILE] });
  try {
    const bare = await call(kueue, 'POST', FLAVORS, { body: flavor('tas', { topologyName: 'hypernode-label' }) });
    assert.is(bare.status, 422);
    assert.is(
      bare.body.message,
      'ResourceFlavor.kueue.x-k8s.io "tas" is invalid: spec: Invalid value: "object": at least one nodeLabel is required when topology is set',
    );
    const made = await call(kueue, 'POST', FLAVORS, {
      body: flavor('tas', { topologyName: 'hypernode-label', nodeLabels: { pool: 'gpu' } }),
    });
    assert.is(made.status, 201, made.text);
    const moved = await call(kueue, 'PUT', `${FLAVORS}/tas`, {
      body: { ...made.body, spec: { ...made.body.spec, topologyName: 'other' } },
    });
    assert.is(moved.status, 422);
    assert.match(
      moved.body.message,
      /spec: Invalid value: "object": resourceFlavorSpec are immutable when topologyName is set/,
    );
  } finally {
    await kueue.close();
  }
});

test("Kueue's finalizer: added to every Topology, a deletion waits while a ResourceFlavor names it, and completes once none does", async () => {
  const kueue = await startApiServer({
    extraCrds: [KUEUE_TOPOLOGY_CRD_FILE, KUEUE_RESOURCE_FLAVOR_CRD_FILE],
    kueueTopologyController: true,
  });
  const get = () => kueue.store.get('topologies.kueue.x-k8s.io', 'fabric');
  try {
    const wait = async (what: string, ok: () => boolean) => {
      await waitFor(ok, { timeoutMs: 10_000, what });
    };
    assert.is(
      (await call(kueue, 'POST', KUEUE.path, { body: topology(KUEUE, 'fabric', levels('t.example.com/spine', HOST)) }))
        .status,
      201,
    );
    await wait(
      'the finalizer added',
      () => get()?.metadata.finalizers?.includes(KUEUE_RESOURCE_IN_USE_FINALIZER) === true,
    );
    await call(kueue, 'POST', FLAVORS, {
      body: flavor('tas', { topologyName: 'fabric', nodeLabels: { pool: 'gpu' } }),
    });
    const deleted = await call(kueue, 'DELETE', `${KUEUE.path}/fabric`);
    assert.is(deleted.status, 200);
    assert.ok(deleted.body.metadata.deletionTimestamp, 'the answer is the object, marked for deletion');
    assert.ok(get()?.metadata.deletionTimestamp, 'held while the flavor names it');
    const again = await call(kueue, 'POST', KUEUE.path, {
      body: topology(KUEUE, 'fabric', levels('t.example.com/leaf', HOST)),
    });
    assert.is(again.status, 409);
    assert.is(again.body.message, 'object is being deleted: topologies.kueue.x-k8s.io "fabric" already exists');
    const held = get()!;
    const added = await call(kueue, 'PUT', `${KUEUE.path}/fabric`, {
      body: { ...held, metadata: { ...held.metadata, finalizers: [...held.metadata.finalizers, 'example.com/mine'] } },
    });
    assert.is(added.status, 422, 'no finalizer may be added while deleting');
    assert.is((await call(kueue, 'DELETE', `${FLAVORS}/tas`)).status, 200);
    await wait('the deletion completed once no flavor names it', () => get() === undefined);
    assert.is(
      (await call(kueue, 'POST', KUEUE.path, { body: topology(KUEUE, 'fabric', levels('t.example.com/leaf', HOST)) }))
        .status,
      201,
    );
  } finally {
    await kueue.close();
  }
});

test.run();
