// Benchmark of the API server stand-in (prints figures, asserts nothing):
// seeding 10,000 Nodes, full and metadata-only lists, paged lists, and
// watch fan-out of updates to many watchers.
// Run: node --import tsx scripts/bench-apiserver.ts [nodes] [watchers] [updates]

import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { startApiServer, type ApiServer } from '../testing/apiserver/index.ts';
import { call, watch } from '../testing/apiserver-client.ts';

const NODES = Number(process.argv[2] ?? 10_000);
const WATCHERS = Number(process.argv[3] ?? 50);
const UPDATES = Number(process.argv[4] ?? 1_000);

function node(i: number, extra: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: `node-${String(i).padStart(5, '0')}`,
      labels: { 'kubernetes.io/hostname': `node-${i}`, 'volcano.sh/tor': `tor-${i % 100}`, ...extra },
    },
    spec: { podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24` },
    status: { capacity: { cpu: '64', memory: '512Gi' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** GET that only drains the bytes: the server's share of a list, without the client's JSON.parse. */
function drain(api: ApiServer, path: string, accept = 'application/json'): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${api.adminToken}`, accept };
    const req = request(`${api.url}${path}`, { ca: readFileSync(api.caFile), headers }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
    });
    req.on('error', reject);
    req.end();
  });
}

async function timed<T>(label: string, f: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  const v = await f();
  console.log(`${label.padEnd(48)} ${(performance.now() - t0).toFixed(1).padStart(9)} ms`);
  return v;
}

const api = await startApiServer();
try {
  await timed(`seed ${NODES} nodes (store.create)`, () => {
    for (let i = 0; i < NODES; i++) api.store.create(node(i));
  });
  const full = await timed('list all nodes (cold serialisation)', () => call(api, 'GET', '/api/v1/nodes'));
  await timed('list all nodes (warm)', () => call(api, 'GET', '/api/v1/nodes'));
  console.log(`  items=${full.body.items.length} bytes=${full.text.length}`);
  await timed('list all nodes, bytes only (no client parse)', () => drain(api, '/api/v1/nodes'));
  await timed('metadata list, bytes only (no client parse)', () =>
    drain(api, '/api/v1/nodes', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io'),
  );
  const meta = await timed('list all nodes as PartialObjectMetadataList', () =>
    call(api, 'GET', '/api/v1/nodes', {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
    }),
  );
  console.log(`  items=${meta.body.items.length} bytes=${meta.text.length}`);
  await timed('paged list, limit=500', async () => {
    let token = '';
    let n = 0;
    do {
      const r = await call(
        api,
        'GET',
        `/api/v1/nodes?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
      );
      n += r.body.items.length;
      token = r.body.metadata.continue ?? '';
    } while (token);
    return n;
  });
  const rv = api.resourceVersion;
  const streams = await Promise.all(
    Array.from({ length: WATCHERS }, (_, i) =>
      watch(
        api,
        `/api/v1/nodes?watch=1&resourceVersion=${rv}`,
        i % 2 ? { headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' } } : {},
      ),
    ),
  );
  await timed(`${UPDATES} updates fanned out to ${WATCHERS} watchers`, async () => {
    for (let i = 0; i < UPDATES; i++) api.store.update(node(i, { touched: String(i) }));
    await Promise.all(streams.map((s) => s.waitForEvents(UPDATES)));
  });
  for (const s of streams) s.close();
  const mem = process.memoryUsage();
  console.log(`rss=${(mem.rss / 2 ** 20).toFixed(0)} MiB heapUsed=${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB`);
} finally {
  await api.close();
}
