import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { waitFor } from '../../../testing/wait.ts';
import { call, HN, hyperNode, watch } from '../../../testing/apiserver-client.ts';

let api: ApiServer;
test.before(async () => {
  api = await startApiServer({ namespaces: ['ns-a', 'ns-b'] });
});
test.after(async () => {
  await api.close();
});
test.before.each(() => {
  for (const n of api.store.list('nodes')) api.store.delete('nodes', n.metadata.name);
  for (const h of api.store.list('hypernodes')) api.store.delete('hypernodes', h.metadata.name);
});

const node = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
});
const summary = (events: any[]) =>
  events.map((e) => `${e.type} ${e.object.metadata.name ?? e.object.metadata.resourceVersion}`);

test('a watch without resourceVersion starts with ADDED for every object, then streams changes', async () => {
  api.store.create(node('a'));
  api.store.create(node('b'));
  const w = await watch(api, '/api/v1/nodes?watch=1');
  assert.is(w.status, 200);
  await w.waitForEvents(2);
  api.store.update({ ...node('a', { x: 'y' }) });
  api.store.delete('nodes', 'b');
  const events = await w.waitForEvents(4);
  assert.equal(summary(events), ['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b']);
  assert.is(events[0].object.kind, 'Node');
  assert.is(events[0].object.apiVersion, 'v1');
  assert.ok(
    Number(events[3].object.metadata.resourceVersion) > Number(events[2].object.metadata.resourceVersion),
    'DELETED carries the deletion revision',
  );
  w.close();
});

test('a watch from a list resourceVersion sends only later changes, and resumes missed ones', async () => {
  api.store.create(node('a'));
  const list = await call(api, 'GET', '/api/v1/nodes');
  const rv = list.body.metadata.resourceVersion;
  api.store.create(node('missed'));
  const w = await watch(api, `/api/v1/nodes?watch=true&resourceVersion=${rv}`);
  api.store.create(node('live'));
  assert.equal(summary(await w.waitForEvents(2)), ['ADDED missed', 'ADDED live']);
  w.close();
});

test('the legacy /watch/ path prefix is a watch', async () => {
  const w = await watch(api, '/api/v1/watch/namespaces/ns-a/configmaps');
  api.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'legacy', namespace: 'ns-a' } });
  assert.equal(summary(await w.waitForEvents(1)), ['ADDED legacy']);
  assert.is(api.requests.all({ path: '/api/v1/watch/namespaces/ns-a/configmaps' })[0].verb, 'watch');
  w.close();
  api.store.delete('configmaps', 'legacy', 'ns-a');
});

test('label selectors turn changes in and out of the selection into ADDED and DELETED', async () => {
  api.store.create(node('m', { rack: 'r2' }));
  const list = await call(api, 'GET', '/api/v1/nodes?labelSelector=rack%3Dr1');
  const w = await watch(
    api,
    `/api/v1/nodes?watch=1&labelSelector=rack%3Dr1&resourceVersion=${list.body.metadata.resourceVersion}`,
  );
  api.store.update(node('m', { rack: 'r1' }));
  api.store.update(node('m', { rack: 'r1', more: 'x' }));
  api.store.update(node('m', { rack: 'r3' }));
  api.store.create(node('other', { rack: 'r9' }));
  const events = await w.waitForEvents(3);
  assert.equal(summary(events), ['ADDED m', 'MODIFIED m', 'DELETED m']);
  // Leaving the selection shows the object as it was (old labels) at the new resourceVersion, as a real server does.
  assert.equal(events[2].object.metadata.labels, { rack: 'r1', more: 'x' });
  assert.is(events[2].object.metadata.resourceVersion, api.store.get('nodes', 'm')!.metadata.resourceVersion);
  w.close();
});

test('field selector, namespace and named watches only see their objects', async () => {
  const byName = await watch(api, '/api/v1/nodes?watch=1&fieldSelector=metadata.name%3Done');
  const inNs = await watch(api, '/api/v1/namespaces/ns-b/configmaps?watch=1');
  api.store.create(node('two'));
  api.store.create(node('one'));
  api.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns-a' } });
  api.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns-b' } });
  assert.equal(summary(await byName.waitForEvents(1)), ['ADDED one']);
  assert.equal(
    (await inNs.waitForEvents(1)).map((e) => e.object.metadata.namespace),
    ['ns-b'],
  );
  api.store.create(node('three'));
  api.store.delete('nodes', 'one');
  await byName.waitForEvents(2);
  assert.equal(summary(byName.events), ['ADDED one', 'DELETED one']);
  byName.close();
  inNs.close();
  api.store.delete('configmaps', 'c', 'ns-a');
  api.store.delete('configmaps', 'c', 'ns-b');
});

test('resuming from a compacted resourceVersion gets an ERROR event with a 410 Expired Status', async () => {
  api.store.create(node('old'));
  const rv = api.resourceVersion;
  api.store.create(node('newer'));
  api.compact();
  const w = await watch(api, `/api/v1/nodes?watch=1&resourceVersion=${rv}`);
  assert.is(w.status, 200);
  const [ev] = await w.waitForEvents(1);
  assert.is(ev.type, 'ERROR');
  assert.equal(ev.object, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `too old resource version: ${rv} (${api.resourceVersion})`,
    reason: 'Expired',
    code: 410,
  });
  assert.equal(await w.ended, { aborted: false });
});

test('watch options are validated like ListOptions (no WatchList); a future resourceVersion is a silent stream', async () => {
  const r = await call(api, 'GET', '/api/v1/nodes?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan');
  assert.is(r.status, 422);
  assert.is(
    r.body.message,
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
  );
  // Unlike a list (504 after ~3 s), a watch from the future streams nothing, bookmarks included, until its timeout.
  const future = await call(
    api,
    'GET',
    `/api/v1/nodes?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${Number(api.resourceVersion) + 50}`,
  );
  assert.is(future.status, 200);
  assert.is(future.text, '');
  const list = await call(
    api,
    'GET',
    '/api/v1/nodes?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
  );
  assert.is(list.status, 422);
  assert.match(
    list.body.message,
    'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
  );
});

test('history beyond historyLimit is forgotten: resuming from before it gets 410', async () => {
  const small = await startApiServer({ historyLimit: 8 });
  try {
    const early = small.resourceVersion;
    for (let i = 0; i < 30; i++) small.store.create(node(`h${i}`));
    const late = String(Number(small.resourceVersion) - 3);
    const old = await watch(small, `/api/v1/nodes?watch=1&resourceVersion=${early}`);
    assert.is((await old.waitForEvents(1))[0].object.reason, 'Expired');
    const recent = await watch(small, `/api/v1/nodes?watch=1&resourceVersion=${late}`);
    assert.equal(summary(await recent.waitForEvents(3)), ['ADDED h27', 'ADDED h28', 'ADDED h29']);
    recent.close();
  } finally {
    await small.close();
  }
});

test('bookmarks carry only metadata.resourceVersion and are sent only when allowed', async () => {
  const withB = await watch(api, '/apis/topology.volcano.sh/v1alpha1/hypernodes?watch=1&allowWatchBookmarks=true');
  const without = await watch(api, '/apis/topology.volcano.sh/v1alpha1/hypernodes?watch=1');
  api.store.create(hyperNode('hb'));
  await withB.waitForEvents(1);
  await without.waitForEvents(1);
  const hbRv = api.store.get('hypernodes', 'hb')!.metadata.resourceVersion;
  api.store.create(node('unrelated'));
  api.sendBookmarks();
  const [, bm] = await withB.waitForEvents(2);
  // The HyperNode watch cache's own revision: a Node written since does not move it.
  assert.equal(bm, {
    type: 'BOOKMARK',
    object: { kind: 'HyperNode', apiVersion: 'topology.volcano.sh/v1alpha1', metadata: { resourceVersion: hbRv } },
  });
  api.store.delete('hypernodes', 'hb');
  await without.waitForEvents(2);
  assert.equal(
    without.events.map((e) => e.type),
    ['ADDED', 'DELETED'],
  );
  withB.close();
  without.close();
});

test('bookmarks also come on their own at the configured interval', async () => {
  const fast = await startApiServer({ bookmarkIntervalMs: 50 });
  try {
    const w = await watch(fast, `/api/v1/nodes?watch=1&allowWatchBookmarks=1&resourceVersion=${fast.resourceVersion}`);
    const events = await w.waitForEvents(2);
    assert.ok(events.every((e) => e.type === 'BOOKMARK'));
    w.close();
  } finally {
    await fast.close();
  }
});

test('timeoutSeconds ends the stream cleanly; maxWatchSeconds cuts watches without one', async () => {
  const w = await watch(api, '/api/v1/nodes?watch=1&timeoutSeconds=1');
  assert.equal(await w.ended, { aborted: false });
  const short = await startApiServer({ maxWatchSeconds: 0.2 });
  try {
    const w2 = await watch(short, '/api/v1/nodes?watch=1');
    assert.equal(await w2.ended, { aborted: false });
    await waitFor(() => short.watches().length === 0, { what: 'the server to forget the ended watch' });
  } finally {
    await short.close();
  }
});

test('cutWatches drops matching watch connections abruptly', async () => {
  const nodes = await watch(api, '/api/v1/nodes?watch=1');
  const hns = await watch(api, `${HN}?watch=1`);
  await waitFor(() => api.watches().length === 2, { what: 'two open watches' });
  assert.is(api.cutWatches({ resource: 'nodes' }), 1);
  assert.equal(await nodes.ended, { aborted: true });
  assert.equal(
    api.watches().map((r) => r.resource),
    ['hypernodes'],
  );
  assert.is(api.cutWatches(), 1);
  assert.equal(await hns.ended, { aborted: true });
});

test('a metadata-only watch streams PartialObjectMetadata objects', async () => {
  const w = await watch(api, '/api/v1/nodes?watch=1', {
    headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' },
  });
  api.store.create({ ...node('pm', { rack: 'r1' }), spec: { podCIDR: '10.0.0.0/24' } });
  const [ev] = await w.waitForEvents(1);
  assert.is(ev.type, 'ADDED');
  assert.equal(Object.keys(ev.object).sort(), ['apiVersion', 'kind', 'metadata']);
  assert.is(ev.object.kind, 'PartialObjectMetadata');
  assert.is(ev.object.apiVersion, 'meta.k8s.io/v1');
  assert.equal(ev.object.metadata.labels, { rack: 'r1' });
  w.close();
});

test('restart drops watches and forgets history; keepData:false empties the store and jumps resourceVersions', async () => {
  api.store.create(node('kept'));
  const rv = api.resourceVersion;
  api.store.create(node('kept-too'));
  const w = await watch(api, '/api/v1/nodes?watch=1');
  await w.waitForEvents(2);
  const page = await call(api, 'GET', '/api/v1/nodes?limit=1');
  const port = api.port;
  await api.restart({ keepData: true });
  const next = await call(
    api,
    'GET',
    `/api/v1/nodes?limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`,
  );
  assert.is(next.status, 200, 'etcd history, hence a continue token, survives a restart');
  assert.equal(await w.ended, { aborted: true });
  assert.is(api.port, port);
  assert.is(api.store.get('nodes', 'kept')?.metadata.name, 'kept');
  api.store.create(node('after'));
  const resumed = await watch(api, `/api/v1/nodes?watch=1&resourceVersion=${rv}`);
  assert.is((await resumed.waitForEvents(1))[0].object.code, 410);
  await api.restart({ keepData: false });
  assert.equal(api.store.list('nodes'), []);
  assert.ok(Number(api.resourceVersion) > Number(rv) + 1000);
  const ns = await call(api, 'GET', '/api/v1/namespaces/default');
  assert.is(ns.status, 200);
  for (const n of ['ns-a', 'ns-b']) api.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
});

test.run();
