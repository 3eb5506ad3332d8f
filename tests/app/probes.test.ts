// The health and metrics servers over real HTTP on
// 127.0.0.1, and the readiness state machine (docs/design.md §3.3).

import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundAddress, closeHttp, READ_HEADER_TIMEOUT_MS, type ListenAddress } from '../../src/app/http-listen.ts';
import { createMetrics, startMetricsServer } from '../../src/app/metrics.ts';
import { NOT_READY_BODY, startHealthServer } from '../../src/app/probes.ts';
import { Readiness } from '../../src/app/readiness.ts';
import { nullLogger } from '../../src/log.ts';
import { within } from '../../testing/wait.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { loopback } from './options-fixture.ts';

/** Servers of the running test, closed after it even when it fails. */
const open: Server[] = [];
test.after.each(async () => {
  await Promise.all(open.splice(0).map(closeHttp));
});
const tracked = <T extends Server | undefined>(s: T): T => (s && open.push(s), s);

interface Reply {
  code: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Host and port of a bound `host:port` (boundAddress). */
function hostPort(address: string): { host: string; port: number } {
  const url = new URL(`http://${address}`);
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) };
}

function get(address: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ ...hostPort(address), path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ code: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function busyPort(): Promise<{ address: ListenAddress }> {
  const s = tracked(createServer());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { address: loopback((s.address() as AddressInfo).port) };
}

test('health server: /healthz 200 always, /readyz 503 with Go text until ready, exact paths only, any method', async () => {
  const readiness = new Readiness();
  const server = tracked(await startHealthServer(loopback(), readiness));
  const at = boundAddress(server);
  const healthz = await get(at, '/healthz');
  assert.is(healthz.code, 200);
  assert.is(healthz.body.length, 0);
  const notReady = await get(at, '/readyz');
  assert.is(notReady.code, 503);
  assert.is(notReady.body.toString(), NOT_READY_BODY);
  assert.is(NOT_READY_BODY, 'HyperNode controller is not ready\n');
  assert.is(notReady.headers['content-type'], 'text/plain; charset=utf-8');
  assert.is(notReady.headers['x-content-type-options'], 'nosniff');
  readiness.set(true);
  assert.is((await get(at, '/readyz', {}, 'POST')).code, 200);
  for (const path of ['/healthz/', '/metrics', '/', '/readyz/x']) {
    const r = await get(at, path);
    assert.is(r.code, 404, path);
    assert.is(r.body.toString(), '404 page not found\n');
  }
});

test('health listener bind failure is returned with the Go wording', async () => {
  const busy = await busyPort();
  const err = await startHealthServer(busy.address, new Readiness()).catch((e: Error) => e);
  assert.is(
    (err as Error).message,
    `failed to create health listener: listen tcp ${busy.address.text}: bind: address already in use`,
  );
});

test('metrics server: /metrics in Prometheus text with process, rest_client, workqueue and leader families; gzip on request; 404 elsewhere', async () => {
  const metrics = createMetrics();
  metrics.queue('hypernode-status').added();
  metrics.queue('hypernode-status').depth(3);
  metrics.leaderStatus('vc-hypernode-controller-manager', true);
  metrics.rest.requestDone('10.0.0.1:443', 'GET', '200', 12);
  const server = tracked(
    (await startMetricsServer(loopback(), metrics.registry, nullLogger, () => assert.unreachable('exit')))!,
  );
  const at = boundAddress(server);
  const r = await get(at, '/metrics');
  assert.is(r.code, 200);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const text = r.body.toString();
  for (const family of [
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_heap_size_used_bytes',
    'workqueue_adds_total{name="hypernode-status"} 1',
    'workqueue_depth{name="hypernode-status"} 3',
    'leader_election_master_status{name="vc-hypernode-controller-manager"} 1',
    'rest_client_requests_total{code="200",host="10.0.0.1:443",method="GET"} 1',
    '# TYPE workqueue_queue_duration_seconds histogram',
    '# TYPE rest_client_rate_limiter_duration_seconds histogram',
  ]) {
    assert.ok(text.includes(family), family);
  }
  const second = await get(at, '/metrics', { 'Accept-Encoding': 'gzip' });
  assert.is(second.headers['content-encoding'], 'gzip');
  assert.match(gunzipSync(second.body).toString(), /promhttp_metric_handler_requests_total\{code="200"\} 1/);
  assert.is((await get(at, '/metricsx')).code, 404);
});

test('metrics bind failure is fatal: an F line and exit 255', async () => {
  const busy = await busyPort();
  const { logger, lines } = capturingLogger({ verbosity: 0, headers: true });
  let code: number | undefined;
  const server = await startMetricsServer(busy.address, createMetrics().registry, logger, (c) => {
    code = c;
  });
  assert.is(server, undefined);
  assert.is(code, 255);
  assert.match(
    lines.join(''),
    new RegExp(`^F.*Failed to start metrics server: listen tcp ${busy.address.text}: bind: address already in use`),
  );
});

test('readiness: followers are ready on seeing another leader; a new leader only after its caches synced, even if a stale OnNewLeader arrives late', () => {
  const r = new Readiness();
  assert.not.ok(r.isReady());
  r.newLeader('other_1', 'me_1', nullLogger);
  assert.ok(r.isReady(), 'follower that can read the Lease is ready');
  r.startedLeading();
  assert.not.ok(r.isReady());
  r.newLeader('other_1', 'me_1', nullLogger); // late report of the previous holder
  assert.not.ok(r.isReady(), 'a late OnNewLeader(other) must not mark a syncing leader ready');
  r.newLeader('me_1', 'me_1', nullLogger);
  assert.not.ok(r.isReady());
  r.set(true);
  assert.ok(r.isReady());
  r.stoppedLeading();
  assert.not.ok(r.isReady());
  r.newLeader('', 'me_1', nullLogger);
  assert.ok(r.isReady(), 'an empty holder counts as "another" leader');
});

/** A raw TCP connection to `address`, resolved once connected; `closed` settles when the server drops it. */
async function rawConnection(address: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(hostPort(address));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  socket.resume(); // read what the server sends, so its end (and our close) is seen
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, closed };
}

for (const kind of ['health', 'metrics'] as const) {
  test(`${kind} server: a client sending half a header is disconnected within seconds (slowloris)`, async () => {
    const server = tracked(
      kind === 'health'
        ? await startHealthServer(loopback(), new Readiness())
        : await startMetricsServer(loopback(), createMetrics().registry, nullLogger, () => {}),
    )!;
    const { socket, closed } = await rawConnection(boundAddress(server));
    socket.write(`GET /${kind === 'health' ? 'healthz' : 'metrics'} HTTP/1.1\r\nHost: probe\r\nX-Slow: `);
    const started = Date.now();
    await within(closed, READ_HEADER_TIMEOUT_MS + 3_000, 'the server to drop the half-sent request');
    assert.ok(Date.now() - started >= READ_HEADER_TIMEOUT_MS - 1_000, 'not before the header timeout');
  });
}

test.run();
