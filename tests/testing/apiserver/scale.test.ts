import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { call, watch } from '../../../testing/apiserver-client.ts';

const NODES = 10_000;
const WATCHERS = 20;
const UPDATES = 100;
const META = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

let api: ApiServer;
test.before(async () => {
  api = await startApiServer();
  for (let i = 0; i < NODES; i++) {
    api.store.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `node-${String(i).padStart(5, '0')}`, labels: { rack: `r${i % 50}` } },
    });
  }
});
test.after(async () => {
  await api.close();
});

test('10,000 Nodes page out completely, in order, at one resourceVersion, metadata only', async () => {
  const seen: string[] = [];
  const rvs = new Set<string>();
  let token = '';
  do {
    const r = await call(
      api,
      'GET',
      `/api/v1/nodes?limit=1000${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
      { headers: { accept: META } },
    );
    assert.is(r.status, 200);
    for (const item of r.body.items) seen.push(item.metadata.name);
    rvs.add(r.body.metadata.resourceVersion);
    token = r.body.metadata.continue ?? '';
    if (seen.length === 5000) api.store.delete('nodes', 'node-09999'); // a change between pages is not seen
  } while (token);
  assert.is(seen.length, NODES);
  assert.equal(seen, [...seen].sort());
  assert.is(rvs.size, 1);
  api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-09999', labels: { rack: 'r49' } } });
});

test('large answers are gzipped for clients that accept gzip, and only for them', async () => {
  const { gunzipSync } = await import('node:zlib');
  const { request } = await import('node:https');
  const { readFileSync } = await import('node:fs');
  const get = (encoding?: string) =>
    new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${api.adminToken}`,
        ...(encoding ? { 'accept-encoding': encoding } : {}),
      };
      const req = request(`${api.url}/api/v1/nodes`, { ca: readFileSync(api.caFile), headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  const plain = await get();
  assert.is(plain.encoding, undefined);
  const zipped = await get('gzip, deflate');
  assert.is(zipped.encoding, 'gzip');
  assert.equal(
    JSON.parse(gunzipSync(zipped.body).toString()).items.length,
    JSON.parse(plain.body.toString()).items.length,
  );
  const small = await call(api, 'GET', '/api/v1/namespaces', { headers: { 'accept-encoding': 'gzip' } });
  assert.is(small.headers['content-encoding'], undefined);
});

test('dozens of watchers each receive every update in order', async () => {
  const rv = api.resourceVersion;
  const streams = await Promise.all(
    Array.from({ length: WATCHERS }, () => watch(api, `/api/v1/nodes?watch=1&resourceVersion=${rv}`)),
  );
  for (let i = 0; i < UPDATES; i++) {
    api.store.update({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `node-${String(i).padStart(5, '0')}`, labels: { rack: 'moved' } },
    });
  }
  for (const s of streams) {
    const events = await s.waitForEvents(UPDATES);
    assert.equal(
      events.map((e) => `${e.type} ${e.object.metadata.name}`),
      Array.from({ length: UPDATES }, (_, i) => `MODIFIED node-${String(i).padStart(5, '0')}`),
    );
    s.close();
  }
});

test.run();
