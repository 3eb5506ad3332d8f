import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { call, HN, hyperNode } from '../../../testing/apiserver-client.ts';

let api: ApiServer;
test.before(async () => {
  api = await startApiServer({ namespaces: ['volcano-system'] });
});
test.after(async () => {
  await api.close();
});
test.before.each(() => {
  for (const h of api.store.list('hypernodes')) api.store.delete('hypernodes', h.metadata.name);
  for (const n of api.store.list('nodes')) api.store.delete('nodes', n.metadata.name);
  api.requests.clear();
});

test('create fills server metadata, ignores a namespace on a cluster-scoped object, and get returns it', async () => {
  const r = await call(api, 'POST', HN, {
    body: hyperNode('hn-a', { metadata: { name: 'hn-a', namespace: 'oops', uid: 'mine' } }),
  });
  assert.is(r.status, 201);
  const m = r.body.metadata;
  assert.is(m.namespace, undefined);
  assert.ok(/^[0-9a-f-]{36}$/.test(m.uid) && m.uid !== 'mine');
  assert.match(m.resourceVersion, /^\d+$/);
  assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.is(m.generation, 1);
  const g = await call(api, 'GET', `${HN}/hn-a`);
  assert.is(g.status, 200);
  assert.equal(g.body, r.body);
  assert.is(g.body.kind, 'HyperNode');
});

test('create drops status when the CRD has a status subresource', async () => {
  const r = await call(api, 'POST', HN, { body: hyperNode('hn-s', { status: { nodeCount: 3 } }) });
  assert.is(r.status, 201);
  assert.is(r.body.status, undefined);
});

test('a second create of the same name is 409 AlreadyExists', async () => {
  await call(api, 'POST', HN, { body: hyperNode('dup') });
  const r = await call(api, 'POST', HN, { body: hyperNode('dup') });
  assert.is(r.status, 409);
  assert.is(r.body.reason, 'AlreadyExists');
  assert.is(r.body.message, 'hypernodes.topology.volcano.sh "dup" already exists');
  assert.equal(r.body.details, { name: 'dup', kind: 'hypernodes', group: 'topology.volcano.sh' });
});

test('create with a resourceVersion set fails in storage (500)', async () => {
  const r = await call(api, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'with-rv', resourceVersion: '7' } } });
  assert.is(r.status, 500);
  assert.is(r.body.message, 'resourceVersion should not be set on objects to be created');
  assert.is(api.store.get('nodes', 'with-rv'), undefined);
});

test('generateName appends five characters from the Kubernetes alphabet', async () => {
  const r = await call(api, 'POST', '/api/v1/nodes', { body: { metadata: { generateName: 'worker-' } } });
  assert.is(r.status, 201);
  assert.match(r.body.metadata.name, /^worker-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('get of a missing object is 404 NotFound with the Kubernetes message', async () => {
  const r = await call(api, 'GET', `${HN}/nope`);
  assert.is(r.status, 404);
  assert.is(r.body.kind, 'Status');
  assert.is(r.body.reason, 'NotFound');
  assert.is(r.body.message, 'hypernodes.topology.volcano.sh "nope" not found');
  const n = await call(api, 'GET', '/api/v1/nodes/nope');
  assert.is(n.body.message, 'nodes "nope" not found');
});

test('update with a stale resourceVersion is 409 Conflict with the real message', async () => {
  const c = (await call(api, 'POST', HN, { body: hyperNode('x') })).body;
  const u1 = await call(api, 'PUT', `${HN}/x`, { body: { ...c, spec: { ...c.spec, tier: 2 } } });
  assert.is(u1.status, 200);
  const u2 = await call(api, 'PUT', `${HN}/x`, { body: { ...c, spec: { ...c.spec, tier: 3 } } });
  assert.is(u2.status, 409);
  assert.is(u2.body.reason, 'Conflict');
  assert.is(
    u2.body.message,
    'Operation cannot be fulfilled on hypernodes.topology.volcano.sh "x": the object has been modified; please apply your changes to the latest version and try again',
  );
});

test('update of a custom resource without resourceVersion is 422, of a built-in it is allowed', async () => {
  const c = (await call(api, 'POST', HN, { body: hyperNode('norv') })).body;
  delete c.metadata.resourceVersion;
  const r = await call(api, 'PUT', `${HN}/norv`, { body: c });
  assert.is(r.status, 422);
  assert.is(
    r.body.message,
    'hypernodes.topology.volcano.sh "norv" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
  );
  assert.is(r.body.details.kind, 'hypernodes');
  await call(api, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'n-norv' } } });
  const n = await call(api, 'PUT', '/api/v1/nodes/n-norv', {
    body: { metadata: { name: 'n-norv', labels: { a: 'b' } } },
  });
  assert.is(n.status, 200);
  assert.equal(n.body.metadata.labels, { a: 'b' });
});

test('PUT of a missing object is 404 (no create on update)', async () => {
  const r = await call(api, 'PUT', `${HN}/ghost`, {
    body: { ...hyperNode('ghost'), metadata: { name: 'ghost', resourceVersion: '1' } },
  });
  assert.is(r.status, 404);
  const n = await call(api, 'PUT', '/api/v1/nodes/ghost', { body: { metadata: { name: 'ghost' } } });
  assert.is(n.status, 404);
});

test('PUT whose body names another object is 400', async () => {
  const c = (await call(api, 'POST', HN, { body: hyperNode('named') })).body;
  const r = await call(api, 'PUT', `${HN}/other`, { body: c });
  assert.is(r.status, 400);
  assert.is(r.body.message, 'the name of the object (named) does not match the name on the URL (other)');
});

test('generation moves on spec changes only; a normal PUT ignores status; /status changes only status', async () => {
  const c = (await call(api, 'POST', HN, { body: hyperNode('gen') })).body;
  const labelsOnly = (
    await call(api, 'PUT', `${HN}/gen`, {
      body: { ...c, metadata: { ...c.metadata, labels: { x: 'y' } }, status: { nodeCount: 9 } },
    })
  ).body;
  assert.is(labelsOnly.metadata.generation, 1);
  assert.is(labelsOnly.status, undefined);
  const spec = (await call(api, 'PUT', `${HN}/gen`, { body: { ...labelsOnly, spec: { ...labelsOnly.spec, tier: 5 } } }))
    .body;
  assert.is(spec.metadata.generation, 2);
  const st = await call(api, 'PUT', `${HN}/gen/status`, {
    body: {
      ...spec,
      metadata: { ...spec.metadata, labels: { changed: 'no' } },
      spec: { tier: 9 },
      status: { nodeCount: 4 },
    },
  });
  assert.is(st.status, 200);
  assert.equal(st.body.status, { nodeCount: 4 });
  assert.is(st.body.spec.tier, 5);
  assert.equal(st.body.metadata.labels, { x: 'y' });
  assert.is(st.body.metadata.generation, 2);
});

test('an update that changes nothing keeps the resourceVersion and writes no event', async () => {
  const c = (await call(api, 'POST', HN, { body: hyperNode('same') })).body;
  const before = api.resourceVersion;
  const r = await call(api, 'PUT', `${HN}/same`, { body: c });
  assert.is(r.status, 200);
  assert.is(r.body.metadata.resourceVersion, c.metadata.resourceVersion);
  assert.is(api.resourceVersion, before);
  const reordered = {
    status: c.status,
    spec: { members: c.spec.members, tier: c.spec.tier },
    metadata: c.metadata,
    kind: c.kind,
    apiVersion: c.apiVersion,
  };
  const r2 = await call(api, 'PUT', `${HN}/same`, { body: reordered });
  assert.is(r2.body.metadata.resourceVersion, c.metadata.resourceVersion, 'key order is not a change');
});

test('store.apply creates, then replaces whatever the resourceVersion', async () => {
  const a = api.store.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'applied', labels: { v: '1' } } });
  const b = api.store.apply({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'applied', labels: { v: '2' }, resourceVersion: '1' },
  });
  assert.is(b.metadata.uid, a.metadata.uid);
  assert.equal(b.metadata.labels, { v: '2' });
  assert.throws(
    () => api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'Bad Name' } }),
    /is invalid: metadata.name/,
  );
});

test('delete answers a Success Status naming the object (HyperNodes too), and 404 when missing', async () => {
  const created = (await call(api, 'POST', HN, { body: hyperNode('del') })).body;
  const d = await call(api, 'DELETE', `${HN}/del`);
  assert.is(d.status, 200);
  assert.is(d.body.kind, 'Status');
  assert.is(d.body.status, 'Success');
  assert.equal(d.body.details, {
    name: 'del',
    kind: 'hypernodes',
    uid: created.metadata.uid,
    group: 'topology.volcano.sh',
  });
  const again = await call(api, 'DELETE', `${HN}/del`);
  assert.is(again.status, 404);
  await call(api, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'n-del' } } });
  const n = await call(api, 'DELETE', '/api/v1/nodes/n-del');
  assert.is(n.body.kind, 'Status');
  assert.is(n.body.status, 'Success');
  assert.is(n.body.details.name, 'n-del');
});

test('delete honours uid and resourceVersion preconditions, answering 409 as kube-apiserver does', async () => {
  const c = (await call(api, 'POST', HN, { body: hyperNode('pre') })).body;
  const badUid = await call(api, 'DELETE', `${HN}/pre`, {
    body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'other' } },
  });
  assert.is(badUid.status, 409);
  assert.is(badUid.body.reason, 'Conflict');
  assert.is(
    badUid.body.message,
    `Operation cannot be fulfilled on HyperNode.topology.volcano.sh "pre": the UID in the precondition (other) does not match the UID in record (${c.metadata.uid}). The object might have been deleted and then recreated`,
  );
  assert.equal(badUid.body.details, { name: 'pre', group: 'topology.volcano.sh', kind: 'HyperNode' });
  const badVersion = await call(api, 'DELETE', `${HN}/pre`, {
    body: { preconditions: { uid: c.metadata.uid, resourceVersion: '1' } },
  });
  assert.is(badVersion.status, 409);
  assert.is(
    badVersion.body.message,
    `Operation cannot be fulfilled on HyperNode.topology.volcano.sh "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${c.metadata.resourceVersion}). The object might have been modified`,
  );
  assert.ok(api.store.get('hypernodes', 'pre'), 'a failed precondition deletes nothing');
  const ok = await call(api, 'DELETE', `${HN}/pre`, {
    body: { preconditions: { uid: c.metadata.uid, resourceVersion: c.metadata.resourceVersion } },
  });
  assert.is(ok.status, 200);
});

test('a namespace delete words a failed precondition as the namespace storage does', async () => {
  const ns = (await call(api, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'pre-ns' } } })).body;
  const bad = await call(api, 'DELETE', '/api/v1/namespaces/pre-ns', { body: { preconditions: { uid: 'other' } } });
  assert.is(bad.status, 409);
  assert.is(
    bad.body.message,
    `Operation cannot be fulfilled on namespaces "pre-ns": Precondition failed: UID in precondition: other, UID in object meta: ${ns.metadata.uid}`,
  );
});

test('namespaced objects need an existing namespace and get it from the URL', async () => {
  const missing = await call(api, 'POST', '/api/v1/namespaces/nowhere/configmaps', {
    body: { metadata: { name: 'c' } },
  });
  assert.is(missing.status, 404);
  assert.is(missing.body.message, 'namespaces "nowhere" not found');
  const ok = await call(api, 'POST', '/api/v1/namespaces/volcano-system/configmaps', {
    body: { metadata: { name: 'c' }, data: { k: 'v' } },
  });
  assert.is(ok.status, 201);
  assert.is(ok.body.metadata.namespace, 'volcano-system');
  const mismatch = await call(api, 'POST', '/api/v1/namespaces/volcano-system/configmaps', {
    body: { metadata: { name: 'd', namespace: 'default' } },
  });
  assert.is(mismatch.status, 400);
  assert.is(
    mismatch.body.message,
    'the namespace of the provided object does not match the namespace sent on the request',
  );
});

test('a body of another kind is 400', async () => {
  const r = await call(api, 'POST', '/api/v1/nodes', {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
  });
  assert.is(r.status, 400);
  const crd = await call(api, 'POST', HN, { body: { metadata: { name: 'nokind' }, spec: { tier: 1 } } });
  assert.is(crd.status, 400);
  assert.match(crd.body.message, "Object 'Kind' is missing");
});

test('the store facade seeds objects that the API then serves, with status kept', async () => {
  const seeded = api.store.create({ ...hyperNode('seed'), status: { nodeCount: 2 } });
  assert.equal(seeded.status, { nodeCount: 2 });
  const g = await call(api, 'GET', `${HN}/seed`);
  assert.equal(g.body.status, { nodeCount: 2 });
  const up = api.store.update({ ...seeded, status: { nodeCount: 5 } });
  assert.ok(Number(up.metadata.resourceVersion) > Number(seeded.metadata.resourceVersion));
  assert.equal(api.store.get('hypernodes', 'seed')?.status, { nodeCount: 5 });
  assert.is(api.requests.count({ verb: 'update' }), 0);
});

test('API writes record managedFields per manager (User-Agent prefix) and subresource', async () => {
  const ua = { 'user-agent': 'vc-hypernode-controller-manager/v0.1.0 (linux/amd64) kubernetes/abc' };
  const c = await call(api, 'POST', HN, { body: hyperNode('mf'), headers: ua });
  const [entry] = c.body.metadata.managedFields;
  assert.is(entry.manager, 'vc-hypernode-controller-manager');
  assert.is(entry.operation, 'Update');
  assert.is(entry.fieldsType, 'FieldsV1');
  assert.is(entry.apiVersion, 'topology.volcano.sh/v1alpha1');
  const st = await call(api, 'PUT', `${HN}/mf/status`, { body: { ...c.body, status: { nodeCount: 1 } }, headers: ua });
  assert.equal(
    st.body.metadata.managedFields.map((e: any) => [e.manager, e.subresource]),
    [
      ['vc-hypernode-controller-manager', undefined],
      ['vc-hypernode-controller-manager', 'status'],
    ],
  );
});

test('?fieldManager= names the manager instead of the User-Agent', async () => {
  const c = await call(api, 'POST', `${HN}?fieldManager=hypernode-controller`, { body: hyperNode('fm') });
  assert.equal(
    c.body.metadata.managedFields.map((e: any) => e.manager),
    ['hypernode-controller'],
  );
});

test('create and update bodies must be JSON (415 otherwise)', async () => {
  const r = await call(api, 'POST', '/api/v1/nodes', {
    body: 'name: x',
    headers: { 'content-type': 'application/yaml' },
  });
  assert.is(r.status, 415);
  assert.is(r.body.reason, 'UnsupportedMediaType');
  const bad = await call(api, 'POST', '/api/v1/nodes', { body: '{not json' });
  assert.is(bad.status, 400);
});

test('PUT or PATCH on a collection is 405; a body over 3 MiB is 413', async () => {
  const put = await call(api, 'PUT', HN, { body: hyperNode('coll') });
  assert.is(put.status, 405);
  assert.is(put.body.reason, 'MethodNotAllowed');
  const big = await call(api, 'POST', '/api/v1/nodes', {
    body: { metadata: { name: 'big', annotations: { a: 'x'.repeat(3 * 1024 * 1024) } } },
  });
  assert.is(big.status, 413);
  assert.is(big.body.reason, 'RequestEntityTooLarge');
});

test('deletecollection deletes what the selectors match', async () => {
  for (const [name, rack] of [
    ['dc-1', 'a'],
    ['dc-2', 'a'],
    ['dc-3', 'b'],
  ])
    api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { rack } } });
  const r = await call(api, 'DELETE', '/api/v1/nodes?labelSelector=rack%3Da');
  assert.is(r.status, 200);
  assert.is(r.body.status, 'Success');
  assert.equal(
    api.store.list('nodes').map((n) => n.metadata.name),
    ['dc-3'],
  );
  assert.equal(
    api.requests.writes().map((w) => w.verb),
    ['deletecollection'],
  );
});

test('deleting a namespace deletes what it contains', async () => {
  api.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
  api.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'doomed' } });
  api.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'volcano-system' } });
  const r = await call(api, 'DELETE', '/api/v1/namespaces/doomed');
  assert.is(r.body.kind, 'Namespace');
  assert.equal(api.store.list('configmaps', 'doomed'), []);
  assert.ok(api.store.get('configmaps', 'keep', 'volcano-system'));
  assert.is((await call(api, 'GET', '/api/v1/namespaces/doomed/configmaps/c')).status, 404);
  api.store.delete('configmaps', 'keep', 'volcano-system');
});

test.run();
