import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { call, HN, hyperNode } from '../../../testing/apiserver-client.ts';

const META_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

let api: ApiServer;
test.before(async () => {
  api = await startApiServer({ namespaces: ['ns-a', 'ns-b'] });
  const racks = ['r1', 'r1', 'r2', 'r3'];
  racks.forEach((rack, i) =>
    api.store.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `node-${i}`, labels: { rack, ...(i === 0 ? { gpu: 'true' } : {}) } },
    }),
  );
  for (const ns of ['ns-a', 'ns-b'])
    api.store.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: ns },
      data: { k: ns },
    });
});
test.after(async () => {
  await api.close();
});

const names = (r: any): string[] => r.body.items.map((i: any) => i.metadata.name);
const listNodes = (q: string) => call(api, 'GET', `/api/v1/nodes?${q}`);

test('list answers a typed list whose items carry no apiVersion/kind (built-ins)', async () => {
  const r = await listNodes('');
  assert.is(r.body.kind, 'NodeList');
  assert.is(r.body.apiVersion, 'v1');
  assert.is(r.body.metadata.resourceVersion, api.resourceVersion);
  assert.equal(names(r), ['node-0', 'node-1', 'node-2', 'node-3']);
  assert.is(r.body.items[0].kind, undefined);
  assert.is(r.body.items[0].apiVersion, undefined);
  api.store.create(hyperNode('hn-list'));
  const h = await call(api, 'GET', HN);
  assert.is(h.body.kind, 'HyperNodeList');
  assert.is(h.body.items[0].kind, 'HyperNode');
  api.store.delete('hypernodes', 'hn-list');
});

test('label selectors: =, ==, !=, in, notin, exists, !key', async () => {
  const cases: [string, string[]][] = [
    ['rack=r1', ['node-0', 'node-1']],
    ['rack==r2', ['node-2']],
    ['rack!=r1', ['node-2', 'node-3']],
    ['rack in (r2, r3)', ['node-2', 'node-3']],
    ['rack notin (r1,r2)', ['node-3']],
    ['gpu', ['node-0']],
    ['!gpu', ['node-1', 'node-2', 'node-3']],
    ['rack=r1,!gpu', ['node-1']],
    ['rack in (r1),gpu', ['node-0']],
  ];
  for (const [sel, want] of cases)
    assert.equal(names(await listNodes(`labelSelector=${encodeURIComponent(sel)}`)), want, sel);
  const bad = await listNodes(`labelSelector=${encodeURIComponent('rack in r1')}`);
  assert.is(bad.status, 400);
});

test('field selectors on metadata.name and metadata.namespace; others are 400', async () => {
  assert.equal(names(await listNodes('fieldSelector=metadata.name%3Dnode-2')), ['node-2']);
  assert.equal(names(await listNodes('fieldSelector=metadata.name!%3Dnode-2')), ['node-0', 'node-1', 'node-3']);
  const all = await call(api, 'GET', '/api/v1/configmaps?fieldSelector=metadata.namespace%3Dns-b');
  assert.equal(
    all.body.items.map((i: any) => i.metadata.namespace),
    ['ns-b'],
  );
  const inNs = await call(api, 'GET', '/api/v1/namespaces/ns-a/configmaps');
  assert.equal(
    inNs.body.items.map((i: any) => i.data.k),
    ['ns-a'],
  );
  const bad = await listNodes('fieldSelector=spec.unknown%3Dx');
  assert.is(bad.status, 400);
  assert.is(bad.body.message, 'field label not supported: spec.unknown');
});

test('limit/continue pages a consistent snapshot taken at the first page', async () => {
  const p1 = await listNodes('limit=2');
  assert.equal(names(p1), ['node-0', 'node-1']);
  assert.is(p1.body.metadata.remainingItemCount, 2);
  const token = p1.body.metadata.continue;
  assert.ok(token);
  api.store.delete('nodes', 'node-3');
  api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-9' } });
  const p2 = await listNodes(`limit=2&continue=${encodeURIComponent(token)}`);
  assert.equal(names(p2), ['node-2', 'node-3']);
  assert.is(p2.body.metadata.resourceVersion, p1.body.metadata.resourceVersion);
  assert.is(p2.body.metadata.continue, undefined);
  api.store.delete('nodes', 'node-9');
  api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-3', labels: { rack: 'r3' } } });
});

test('a continue token from before a compaction is 410 Expired', async () => {
  const p1 = await listNodes('limit=1');
  api.store.update({
    ...api.store.get('nodes', 'node-1')!,
    metadata: { name: 'node-1', labels: { rack: 'r1', touched: 'yes' } },
  });
  api.compact();
  const p2 = await listNodes(`limit=1&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
  assert.is(p2.status, 410);
  assert.is(p2.body.reason, 'Expired');
  assert.match(p2.body.message, 'The provided continue parameter is too old to display a consistent list result.');
  const garbage = await listNodes('continue=garbage');
  assert.is(garbage.status, 400);
  const both = await listNodes(`continue=${encodeURIComponent(p1.body.metadata.continue)}&resourceVersion=5`);
  assert.is(both.status, 400);
});

test('resourceVersion=0 is served from the cache and ignores limit', async () => {
  const r = await listNodes('resourceVersion=0&limit=1');
  assert.is(r.body.items.length, 4);
  assert.is(r.body.metadata.continue, undefined);
});

test('resourceVersionMatch=Exact lists the past state; NotOlderThan lists the present', async () => {
  const before = api.resourceVersion;
  api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-late' } });
  const exact = await listNodes(`resourceVersion=${before}&resourceVersionMatch=Exact`);
  assert.is(exact.status, 200);
  assert.not.ok(names(exact).includes('node-late'));
  assert.is(exact.body.metadata.resourceVersion, before);
  const newer = await listNodes(`resourceVersion=${before}&resourceVersionMatch=NotOlderThan`);
  assert.ok(names(newer).includes('node-late'));
  api.store.delete('nodes', 'node-late');
  const noRv = await listNodes('resourceVersionMatch=Exact');
  assert.is(noRv.status, 422);
  assert.is(
    noRv.body.message,
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
  );
  const exactZero = await listNodes('resourceVersion=0&resourceVersionMatch=Exact');
  assert.is(exactZero.status, 422);
  assert.match(exactZero.body.message, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
});

test('a resourceVersion newer than the store is 504 Timeout "Too large resource version"', async () => {
  const future = Number(api.resourceVersion) + 100;
  const r = await listNodes(`resourceVersion=${future}`);
  assert.is(r.status, 504);
  assert.is(r.body.reason, 'Timeout');
  assert.match(r.body.message, `Too large resource version: ${future}, current: `);
  assert.is(r.body.details.causes[0].reason, 'ResourceVersionTooLarge');
});

test('PartialObjectMetadataList carries metadata only', async () => {
  const r = await call(api, 'GET', '/api/v1/nodes?limit=2', { headers: { accept: `${META_LIST},application/json` } });
  assert.is(r.body.kind, 'PartialObjectMetadataList');
  assert.is(
    r.headers['content-type'],
    'application/json',
    'a real server names no transformed type in the Content-Type',
  );
  assert.is(r.body.apiVersion, 'meta.k8s.io/v1');
  assert.ok(r.body.metadata.continue);
  assert.equal(Object.keys(r.body.items[0]).sort(), ['apiVersion', 'kind', 'metadata']);
  assert.is(r.body.items[0].kind, 'PartialObjectMetadata');
  assert.equal(r.body.items[0].metadata.labels, { rack: 'r1', gpu: 'true' });
  assert.is(
    r.body.items[0].metadata.managedFields[0].manager,
    'test-store',
    'metadata includes managedFields, as in a real cluster',
  );
  const one = await call(api, 'GET', '/api/v1/nodes/node-1', {
    headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' },
  });
  assert.is(one.body.kind, 'PartialObjectMetadata');
  const wrong = await call(api, 'GET', '/api/v1/nodes', {
    headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' },
  });
  assert.is(wrong.status, 406);
});

test('listing is recorded with its query', async () => {
  api.requests.clear();
  await listNodes('labelSelector=rack%3Dr1&limit=5');
  const [rec] = api.requests.all();
  assert.is(rec.verb, 'list');
  assert.is(rec.resource, 'nodes');
  assert.equal(rec.query, { labelSelector: 'rack=r1', limit: '5' });
  assert.is(rec.user, 'admin');
  assert.is(rec.code, 200);
});

test.run();
