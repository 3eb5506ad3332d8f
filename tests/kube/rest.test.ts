// The request layer against a scripted HTTP server on 127.0.0.1: Status
// errors, which verbs are retried, Retry-After, the token bucket, deadlines,
// keep-alive, watch decoding, headers and rest_client_* metrics.

import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import type { Clock } from '../../src/kube/clock.ts';
import { ApiError, isConflict, isGone } from '../../src/kube/errors.ts';
import { resourceClient } from '../../src/kube/resource.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { BodyTooLargeError } from '../../src/util/body-too-large-error.ts';
import { createRestMetrics } from '../../src/kube/rest-metrics.ts';
import { Transport } from '../../src/kube/transport.ts';
import type { KubeObject, WatchEvent } from '../../src/kube/types.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { MIN_WRITE_CONCURRENCY } from '../../src/kube/write-pace.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Fixture {
  server: Server;
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  connections: number;
  handlers: Handler[];
  close(): Promise<void>;
}

/** Servers and transports of the running test, closed after it even when it fails. */
const open: Array<{ close(): unknown }> = [];
test.after.each(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function fixture(): Promise<Fixture> {
  const f = { requests: [], connections: 0, handlers: [] } as unknown as Fixture;
  open.push(f);
  f.server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      f.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const h = f.handlers.shift() ?? ((_q, r) => json(r, 200, { kind: 'Thing', metadata: { name: 'x' } }));
      h(req, res, body);
    });
  });
  f.server.on('connection', () => f.connections++);
  await new Promise<void>((r) => f.server.listen(0, '127.0.0.1', r));
  f.url = `http://127.0.0.1:${(f.server.address() as AddressInfo).port}`;
  f.close = () =>
    new Promise((r) => {
      f.server.closeAllConnections();
      f.server.close(() => r());
    });
  return f;
}

function json(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const status = (code: number, reason: string, message: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
  message,
  ...extra,
});

/** The error `p` rejects with; fails the test if it resolves. */
async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected the call to fail');
}

/** Virtual time: sleeping advances it and is recorded, nothing really waits. */
function virtualClock(): Clock & { slept: number[] } {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
  };
}

function client(f: Fixture, opts: Partial<ConstructorParameters<typeof RestClient>[0]> = {}) {
  const transport = new Transport({
    server: f.url,
    tls: { rejectUnauthorized: true },
    credentials: async () => ({ headers: { Authorization: 'Bearer t0k' } }),
  });
  open.push(transport);
  const clock = virtualClock();
  const rest = new RestClient({
    transport,
    userAgent: 'ua/1 (linux/amd64) kubernetes/abcdef0/x',
    qps: 1000,
    burst: 1000,
    clock,
    random: () => 0.5,
    ...opts,
  });
  return { rest, clock, transport };
}

test('a Status error body becomes an ApiError with reason, code and message', async () => {
  const f = await fixture();
  const { rest } = client(f);
  f.handlers.push((_q, r) => json(r, 409, status(409, 'Conflict', 'the object has been modified')));
  const things = resourceClient<KubeObject>(rest, {
    group: 'example.io',
    version: 'v1',
    resource: 'things',
    namespaced: false,
  });
  const err = await failure(things.update({ metadata: { name: 'a', resourceVersion: '3' } }));
  assert.ok(isConflict(err));
  assert.is(err.message, 'the object has been modified');
  assert.is(f.requests[0]!.method, 'PUT');
  assert.is(f.requests[0]!.url, '/apis/example.io/v1/things/a');
});

test('GET is retried on 5xx and 429, honouring Retry-After; POST is retried only on 429', async () => {
  const f = await fixture();
  const { rest, clock } = client(f);
  f.handlers.push((_q, r) => json(r, 503, status(503, 'ServiceUnavailable', 'down')));
  f.handlers.push((_q, r) => json(r, 429, status(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '3' }));
  const got = await rest.request<KubeObject>({ method: 'GET', path: '/api/v1/nodes/x' });
  assert.is(got.metadata.name, 'x');
  assert.is(f.requests.length, 3);
  assert.is(clock.slept.at(-1), 3000, 'Retry-After seconds are honoured');

  f.handlers.push((_q, r) => json(r, 500, status(500, 'InternalError', 'boom')));
  const err = await failure(rest.request({ method: 'POST', path: '/api/v1/things', body: {} }));
  assert.instance(err, ApiError);
  assert.is(err.code, 500);
  assert.is(f.requests.length, 4, 'a POST that may have been applied is not repeated');

  f.handlers.push((_q, r) =>
    json(r, 429, status(429, 'TooManyRequests', 'later', { details: { retryAfterSeconds: 2 } })),
  );
  await rest.request({ method: 'POST', path: '/api/v1/things', body: {} });
  assert.is(f.requests.length, 6, 'a 429 was not processed: the POST is sent again');
  assert.is(clock.slept.at(-1), 2000);
});

test("writes' answer times feed the client set's write pace; reads and 429s do not", async () => {
  const f = await fixture();
  const { rest } = client(f);
  const before = rest.pace.latency();
  const slowly =
    (ms: number): Handler =>
    (_q, r) =>
      void setTimeout(() => json(r, 200, { kind: 'Thing', metadata: { name: 'x' } }), ms);
  f.handlers.push(slowly(120));
  await rest.request({ method: 'GET', path: '/api/v1/things/x' });
  assert.is(rest.pace.latency(), before, 'a read says nothing of writes');
  f.handlers.push((_q, r) => json(r, 429, status(429, 'TooManyRequests', 'later'), { 'Retry-After': '0' }));
  f.handlers.push(slowly(120));
  await rest.request({ method: 'POST', path: '/api/v1/things', body: {} });
  // One write answered after >= 120 ms moves the average a tenth of the way there; the
  // 429 before it, answered at once, would have pulled it below that had it counted.
  assert.ok(rest.pace.latency() >= before + (120 - before) / 10, `latency ${rest.pace.latency()}`);
  assert.ok(rest.pace.latency() < before + (200 - before) / 10, `latency ${rest.pace.latency()}`);
});

test('writes on the wire through one client set never exceed the write pace, whoever sends them; reads pass beside them', async () => {
  const f = await fixture();
  // qps 100, an assumed 10 ms a write: 2 wanted, the floor of 4 in flight.
  const { rest } = client(f, { qps: 100, burst: 100 });
  assert.is(rest.pace.concurrency(), MIN_WRITE_CONCURRENCY);
  const held: ServerResponse[] = [];
  const hold: Handler = (_q, r) => void held.push(r);
  for (let i = 0; i < 10; i++) f.handlers.push(hold);
  const things = resourceClient<KubeObject>(rest, {
    group: 'example.io',
    version: 'v1',
    resource: 'things',
    namespaced: false,
  });
  // Two callers, as the reconciler and the status writer share a client set.
  const writes = [
    ...Array.from({ length: 5 }, (_, i) => things.create({ metadata: { name: `a${i}` } })),
    ...Array.from({ length: 5 }, (_, i) => things.update({ metadata: { name: `b${i}`, resourceVersion: '1' } })),
  ];
  await waitFor(() => held.length === MIN_WRITE_CONCURRENCY, { what: 'the first writes on the wire' });
  await new Promise((r) => setTimeout(r, 50));
  assert.is(held.length, MIN_WRITE_CONCURRENCY, 'no more writes on the wire than the pace');
  f.handlers.unshift((_q, r) => json(r, 200, { kind: 'Thing', metadata: { name: 'read' } }));
  assert.is(
    (await rest.request<KubeObject>({ method: 'GET', path: '/apis/example.io/v1/things/read' })).metadata.name,
    'read',
    'a read is not held',
  );
  held.shift()!.end(JSON.stringify({ kind: 'Thing', metadata: { name: 'x' } }));
  await waitFor(() => held.length === MIN_WRITE_CONCURRENCY && f.requests.length === MIN_WRITE_CONCURRENCY + 2, {
    what: 'the next write in the freed slot',
  });
  const answer = () => {
    for (const r of held.splice(0)) r.end(JSON.stringify({ kind: 'Thing', metadata: { name: 'x' } }));
  };
  const drained = Promise.all(writes);
  while (f.requests.length < 11) {
    answer();
    await new Promise((r) => setTimeout(r, 5));
  }
  answer();
  await drained;
});

test('retries stop after the limit and the last error is returned', async () => {
  const f = await fixture();
  const { rest } = client(f, { maxRetries: 2 });
  for (let i = 0; i < 3; i++) f.handlers.push((_q, r) => json(r, 500, status(500, 'InternalError', `boom ${i}`)));
  const err = await failure(rest.request({ method: 'GET', path: '/api/v1/x' }));
  assert.is(err.message, 'boom 2');
  assert.is(f.requests.length, 3);
});

test('the token bucket lets a burst through, then paces requests at QPS (watch starts included)', async () => {
  const f = await fixture();
  const { rest, clock } = client(f, { qps: 5, burst: 2 });
  for (let i = 0; i < 6; i++) await rest.request({ method: 'GET', path: '/api/v1/x' });
  f.handlers.push((_q, r) => {
    r.writeHead(200, { 'Content-Type': 'application/json' });
    r.end();
  });
  await rest.watch({ method: 'GET', path: '/api/v1/x', query: { watch: true }, idleTimeoutMs: 5000 });
  // 2 free tokens, then one every 200 ms.
  assert.equal(clock.slept.map(Math.round), [200, 200, 200, 200, 200]);
});

test('a request without an answer fails at its deadline', async () => {
  const f = await fixture();
  const { rest } = client(f, { requestTimeoutMs: 150, maxRetries: 0 });
  f.handlers.push(() => {});
  const err = await failure(rest.request({ method: 'GET', path: '/api/v1/hang' }));
  assert.match(err.message, /no answer from the API server within 150 ms/);
});

test('sequential requests reuse one keep-alive connection and carry user agent, credentials and accept headers', async () => {
  const f = await fixture();
  const { rest } = client(f);
  const things = resourceClient<KubeObject>(rest, {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    namespaced: true,
  });
  for (let i = 0; i < 20; i++) await things.list({ namespace: 'ns', fieldSelector: 'metadata.name=cm', limit: 500 });
  await things.patch('cm', { data: { a: 'b' } }, { namespace: 'ns' });
  assert.is(f.connections, 1);
  const first = f.requests[0]!;
  assert.is(first.url, '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm&limit=500');
  assert.is(first.headers['user-agent'], 'ua/1 (linux/amd64) kubernetes/abcdef0/x');
  assert.is(first.headers.authorization, 'Bearer t0k');
  assert.is(first.headers.accept, 'application/json');
  const patch = f.requests.at(-1)!;
  assert.is(patch.method, 'PATCH');
  assert.is(patch.headers['content-type'], 'application/merge-patch+json');
  assert.equal(JSON.parse(patch.body), { data: { a: 'b' } });
});

test('a watch decodes newline-delimited events split across chunks and ends with an ERROR event as ApiError', async () => {
  const f = await fixture();
  const { rest } = client(f);
  f.handlers.push((_q, r) => {
    r.writeHead(200, { 'Content-Type': 'application/json' });
    const a = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } });
    r.write(a.slice(0, 10));
    setTimeout(() => {
      r.write(
        a.slice(10) +
          '\n' +
          JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } }) +
          '\n',
      );
      r.end(
        JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 5 (9)') }) + '\n',
      );
    }, 20);
  });
  const things = resourceClient<KubeObject>(rest, { group: '', version: 'v1', resource: 'nodes', namespaced: false });
  const stream = await things.watch({
    resourceVersion: '4',
    timeoutSeconds: 300,
    allowWatchBookmarks: true,
    idleTimeoutMs: 5000,
    accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  });
  const seen: WatchEvent<KubeObject>[] = [];
  const err = await (async () => {
    for await (const ev of stream) seen.push(ev);
  })().catch((e: Error) => e as ApiError);
  assert.equal(
    seen.map((e) => e.type),
    ['ADDED', 'BOOKMARK'],
  );
  assert.ok(isGone(err));
  const req = f.requests[0]!;
  assert.is(req.url, '/api/v1/nodes?resourceVersion=4&watch=true&allowWatchBookmarks=true&timeoutSeconds=300');
  assert.is(req.headers.accept, 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');
});

test("requests and finished watches leave no listeners on the caller's long-lived signal", async () => {
  const f = await fixture();
  const { rest } = client(f);
  const lifetime = new AbortController();
  for (let i = 0; i < 15; i++) await rest.request({ method: 'GET', path: '/api/v1/x', signal: lifetime.signal });
  for (let i = 0; i < 5; i++) {
    f.handlers.push((_q, r) => {
      r.writeHead(200, { 'Content-Type': 'application/json' });
      r.end(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
    });
    const stream = await rest.watch({
      method: 'GET',
      path: '/api/v1/x',
      query: { watch: true },
      idleTimeoutMs: 5000,
      signal: lifetime.signal,
    });
    for await (const _ev of stream) void _ev;
  }
  assert.is(getEventListeners(lifetime.signal, 'abort').length, 0);
});

test('rest_client_* metrics count requests by code, host and method', async () => {
  const f = await fixture();
  const registry = new Registry();
  const { rest } = client(f, { metrics: createRestMetrics(registry), maxRetries: 0 });
  await rest.request({ method: 'GET', path: '/api/v1/x' });
  f.handlers.push((_q, r) => json(r, 404, status(404, 'NotFound', 'nope')));
  await rest.request({ method: 'GET', path: '/api/v1/x' }).catch(() => {});
  const text = await registry.metrics();
  const host = new URL(f.url).host;
  assert.match(text, `rest_client_requests_total{code="200",host="${host}",method="GET"} 1`);
  assert.match(text, `rest_client_requests_total{code="404",host="${host}",method="GET"} 1`);
  assert.match(text, `rest_client_request_duration_seconds_count{host="${host}",verb="GET"} 2`);
  assert.match(text, `rest_client_rate_limiter_duration_seconds_count{host="${host}",verb="GET"} 2`);
});

test('a refused connection is reported with method and URL', async () => {
  const f = await fixture();
  const url = f.url;
  await f.close();
  const transport = new Transport({
    server: url,
    tls: { rejectUnauthorized: true },
    credentials: async () => ({ headers: {} }),
  });
  open.push(transport);
  const rest = new RestClient({
    transport,
    userAgent: 'ua',
    qps: 100,
    burst: 100,
    clock: virtualClock(),
    maxRetries: 1,
  });
  const err = await failure(rest.request({ method: 'GET', path: '/api/v1/nodes' }));
  assert.match(err.message, `GET ${url}/api/v1/nodes: `);
  assert.match(err.message, /ECONNREFUSED/);
});

/** Writes `chunk` until the client hangs up; resolves the returned promise with the bytes written. */
function endlessBody(res: ServerResponse, chunk: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) written += chunk.length;
      if (!res.destroyed) written += chunk.length;
    };
    res.on('drain', pump);
    res.on('close', () => resolve(written));
    pump();
  });
}

test('an endless response body fails at the size limit naming it, the method and the path, and is not retried', async () => {
  const f = await fixture();
  const { rest } = client(f, { maxResponseBytes: 1024 * 1024 });
  let written: Promise<number> | undefined;
  f.handlers.push((_q, r) => {
    r.writeHead(200, { 'Content-Type': 'application/json' });
    written = endlessBody(r, Buffer.alloc(64 * 1024, 0x20));
  });
  const err = await within(
    failure(rest.request({ method: 'GET', path: '/api/v1/nodes', query: { limit: 500 } })),
    5_000,
    'the oversized list',
  );
  assert.instance(err, BodyTooLargeError);
  assert.is(err.message, 'GET /api/v1/nodes: response body larger than the 1 MiB limit');
  assert.is(f.requests.length, 1, 'the same request would only fetch the same body again');
  const sent = await within(written!, 5_000, 'the server to see the connection closed');
  assert.ok(sent < 16 * 1024 * 1024, `the client hung up soon after the limit (server wrote ${sent} bytes)`);
});

test('a response whose Content-Length exceeds the limit is refused before its body is read; one at the limit is accepted', async () => {
  const f = await fixture();
  const { rest } = client(f, { maxResponseBytes: 4096 });
  const exactly = (n: number) => `{"pad":"${'x'.repeat(n - 10)}"}`;
  f.handlers.push((_q, r) => {
    r.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(1 << 30) });
    r.write('{');
  });
  const err = await within(failure(rest.request({ method: 'GET', path: '/api/v1/configmaps' })), 5_000, 'the refusal');
  assert.is(err.message, 'GET /api/v1/configmaps: response body larger than the 4096 bytes limit');
  f.handlers.push((_q, r) => r.end(exactly(4096)));
  const got = await rest.request<{ pad: string }>({ method: 'GET', path: '/api/v1/configmaps' });
  assert.is(got.pad.length, 4096 - 10);
  f.handlers.push((_q, r) => r.end(exactly(4097)));
  assert.instance(await failure(rest.request({ method: 'GET', path: '/api/v1/configmaps' })), BodyTooLargeError);
});

test('a list that comes whole (no limit, or resourceVersion=0) may be as large as the whole-list limit; a page may not', async () => {
  const f = await fixture();
  const { rest } = client(f, { maxResponseBytes: 4096, maxWholeListBytes: 64 * 1024 });
  const nodes = resourceClient<KubeObject>(rest, { group: '', version: 'v1', resource: 'nodes', namespaced: false });
  const big = JSON.stringify({
    kind: 'NodeList',
    metadata: { resourceVersion: '7' },
    items: Array.from({ length: 200 }, (_, i) => ({ metadata: { name: `node-${i}` } })),
  });
  for (let i = 0; i < 3; i++) f.handlers.push((_q, r) => r.end(big));
  assert.is(
    (await nodes.list({ limit: 500, resourceVersion: '0' })).items.length,
    200,
    'the watch cache answers resourceVersion=0 whole',
  );
  assert.is((await nodes.list({})).items.length, 200);
  assert.instance(await failure(nodes.list({ limit: 500 })), BodyTooLargeError);
  f.handlers.push((_q, r) => r.end(`{"items":[],"pad":"${'x'.repeat(70 * 1024)}"}`));
  assert.instance(await failure(nodes.list({ resourceVersion: '0' })), BodyTooLargeError);
});

test('an endless watch line ends the stream at the event size limit instead of buffering it', async () => {
  const f = await fixture();
  const { rest } = client(f, { maxWatchEventBytes: 256 * 1024 });
  f.handlers.push((_q, r) => {
    r.writeHead(200, { 'Content-Type': 'application/json' });
    r.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } }) + '\n');
    void endlessBody(r, Buffer.alloc(16 * 1024, 0x61));
  });
  const stream = await rest.watch<KubeObject>({
    method: 'GET',
    path: '/api/v1/nodes',
    query: { watch: true },
    idleTimeoutMs: 5000,
  });
  const seen: string[] = [];
  const err = await within(
    (async () => {
      for await (const ev of stream) seen.push(ev.object.metadata.name);
    })().then(
      () => undefined,
      (e: Error) => e,
    ),
    5_000,
    'the oversized watch event',
  );
  assert.equal(seen, ['a']);
  assert.instance(err, BodyTooLargeError);
  assert.is(err!.message, 'GET /api/v1/nodes: watch event larger than the 262144 bytes limit');
});

test('a malformed response or watch event is reported by position, never by quoting the body', async () => {
  const f = await fixture();
  const { rest } = client(f, { maxRetries: 0 });
  f.handlers.push((_q, r) => r.end('{"kind":"Secret","data":{"password":"U0VDUkVULVBX" "token": "SECRET-TOKEN-123"}}'));
  const err = await failure(rest.request({ method: 'GET', path: '/api/v1/namespaces/ns/secrets/ufm' }));
  assert.match(
    err.message,
    /^GET \/api\/v1\/namespaces\/ns\/secrets\/ufm: the response is not valid JSON: line 1, column \d+: /,
  );
  assert.not.match(err.message, /U0VDUkVULVBX|SECRET-TOKEN-123/);

  f.handlers.push((_q, r) => r.end('{"type":"ADDED","object":{"data":{"token":SECRET-TOKEN-123}}}\n'));
  const stream = await rest.watch<KubeObject>({
    method: 'GET',
    path: '/api/v1/configmaps',
    query: { watch: true },
    idleTimeoutMs: 5000,
  });
  const watchErr = await (async () => {
    for await (const _ev of stream) void _ev;
  })().then(
    () => undefined,
    (e: Error) => e,
  );
  assert.match(watchErr!.message, /^GET \/api\/v1\/configmaps: a watch event is not valid JSON: /);
  assert.not.match(watchErr!.message, /SECRET-TOKEN-123/);
});

test('an API error message is cut at 1 KiB with its length noted; the full Status stays on the error', async () => {
  const f = await fixture();
  const { rest } = client(f, { maxRetries: 0 });
  const long = `HyperNode.topology.volcano.sh "x" is invalid: ${'spec.members[0]: Invalid value; '.repeat(1000)}`;
  f.handlers.push((_q, r) => json(r, 422, status(422, 'Invalid', long)));
  const err = await failure(rest.request({ method: 'POST', path: '/apis/example.io/v1/things', body: {} }));
  assert.ok(Buffer.byteLength(err.message) <= 1024);
  assert.ok(err.message.endsWith(`… (${Buffer.byteLength(long)} bytes)`));
  assert.is(err.status?.message, long);

  f.handlers.push((_q, r) => {
    r.writeHead(502, { 'Content-Type': 'text/html' });
    r.end(`<html>${'bad gateway '.repeat(500)}</html>`);
  });
  const proxy = await failure(rest.request({ method: 'POST', path: '/apis/example.io/v1/things', body: {} }));
  assert.match(
    proxy.message,
    /^the server responded with the status code 502 but did not return more information \(<html>bad gateway .*… \(6013 bytes\)\)$/,
  );
});

test.run();
