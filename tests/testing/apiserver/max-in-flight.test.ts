// The stand-in under load, as kube-apiserver's max-in-flight filter makes a
// real server behave: writes and reads have their own seats, a request over
// the limit is answered 429 in the filter's plain-text words with
// `Retry-After: 1` and is not served, watches and unknown credentials take no
// seat, system:masters is never turned away, and the configured latency is
// spent inside the seat. The controller's REST client waits out such a 429
// and its write goes through.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildClientConfig } from '../../../src/kube/config.ts';
import { resourceClient } from '../../../src/kube/resource.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { Transport } from '../../../src/kube/transport.ts';
import { nullLogger } from '../../../src/log.ts';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../../../testing/apiserver/index.ts';
import { call, HN, hyperNode, watch, type Reply } from '../../../testing/apiserver-client.ts';
import { isWriteRequest } from '../../../testing/apiserver/request-log.ts';
import { waitFor } from '../../../testing/wait.ts';

/** Long enough that requests sent together are in flight together. */
const SLOW_MS = 400;

async function withServer(
  opts: ApiServerOptions,
  body: (api: ApiServer, token: string) => Promise<void>,
): Promise<void> {
  const api = await startApiServer(opts);
  try {
    // A ServiceAccount with every right but not in system:masters, as a controller runs.
    await body(api, api.addUser('system:serviceaccount:volcano-system:hn', 'admin'));
  } finally {
    await api.close();
  }
}

test('a write over --max-mutating-requests-inflight is answered 429 as the filter words it, is not served, and a seat freed lets the next one in', async () => {
  await withServer(
    { maxMutatingRequestsInflight: 2, latency: { ms: SLOW_MS, match: isWriteRequest } },
    async (api, token) => {
      const first = [
        call(api, 'POST', HN, { token, body: hyperNode('a') }),
        call(api, 'POST', HN, { token, body: hyperNode('b') }),
      ];
      await waitFor(() => api.inFlightRequests().now.mutating === 2, { what: 'two writes in their seats' });
      const over = await call(api, 'POST', HN, { token, body: hyperNode('c') });
      assert.is(over.status, 429);
      assert.is(over.headers['retry-after'], '1');
      assert.is(over.headers['content-type'], 'text/plain; charset=utf-8');
      assert.is(over.headers['x-content-type-options'], 'nosniff');
      assert.is(over.text, 'Too many requests, please try again later.\n');
      assert.is(api.store.get('hypernodes', 'c'), undefined, 'the rejected create did not happen');
      assert.equal(
        (await Promise.all(first)).map((r: Reply) => r.status),
        [201, 201],
      );
      assert.is((await call(api, 'POST', HN, { token, body: hyperNode('c') })).status, 201);
      assert.equal(api.inFlightRequests().peak.mutating, 2);
      assert.is(api.inFlightRequests().rejected, 1);
      assert.equal(
        api.requests.writes().map((r) => r.code),
        [201, 201, 429, 201],
      );
    },
  );
});

test('reads have their own seats: a full write limit leaves reads alone, and a full read limit leaves writes alone', async () => {
  await withServer(
    { maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, latency: { ms: SLOW_MS } },
    async (api, token) => {
      const write = call(api, 'POST', HN, { token, body: hyperNode('w') });
      const read = call(api, 'GET', HN, { token });
      await waitFor(() => api.inFlightRequests().now.mutating === 1 && api.inFlightRequests().now.readOnly === 1, {
        what: 'one write and one read in flight',
      });
      assert.is((await call(api, 'GET', '/api/v1/nodes', { token })).status, 429, 'the second read');
      assert.is((await call(api, 'DELETE', `${HN}/w`, { token })).status, 429, 'the second write');
      assert.equal([(await write).status, (await read).status], [201, 200]);
    },
  );
});

test('watches and requests with unknown credentials take no seat', async () => {
  await withServer({ maxRequestsInflight: 1 }, async (api, token) => {
    const stream = await watch(api, `${HN}?watch=1&timeoutSeconds=30`, { token });
    try {
      assert.is(stream.status, 200);
      assert.is((await call(api, 'GET', HN, { token })).status, 200, 'a list beside a running watch');
      assert.equal(api.inFlightRequests().now, { readOnly: 0, mutating: 0 });
    } finally {
      stream.close();
    }
    const stopLatency = api.latency(SLOW_MS, { resource: 'nodes' });
    const slow = call(api, 'GET', '/api/v1/nodes', { token });
    await waitFor(() => api.inFlightRequests().now.readOnly === 1, { what: 'a read in its seat' });
    assert.is(
      (await call(api, 'GET', HN, { token: 'no-such-token' })).status,
      401,
      'authentication comes before the limit',
    );
    assert.is((await slow).status, 200);
    stopLatency();
  });
});

test('system:masters is served over the limit, without a seat', async () => {
  await withServer(
    { maxMutatingRequestsInflight: 1, latency: { ms: SLOW_MS, match: isWriteRequest } },
    async (api, token) => {
      const held = call(api, 'POST', HN, { token, body: hyperNode('held') });
      await waitFor(() => api.inFlightRequests().now.mutating === 1, { what: 'the only seat taken' });
      // The built-in admin token is in system:masters, as a cluster's admin token is.
      const admin = call(api, 'POST', HN, { body: hyperNode('admin-write') });
      await waitFor(() => api.requests.count({ name: '', verb: 'create', user: 'admin' }) === 1, {
        what: 'the admin write arrived',
      });
      assert.is(api.inFlightRequests().now.mutating, 1, 'the admin write took no seat');
      assert.is((await call(api, 'POST', HN, { token, body: hyperNode('refused') })).status, 429);
      assert.equal([(await admin).status, (await held).status], [201, 201]);
    },
  );
});

test('the configured latency is spent in the seat and recorded as the request duration', async () => {
  await withServer({ latency: { ms: SLOW_MS, match: isWriteRequest } }, async (api, token) => {
    const started = performance.now();
    assert.is((await call(api, 'POST', HN, { token, body: hyperNode('slow') })).status, 201);
    assert.ok(performance.now() - started >= SLOW_MS, 'the write waited');
    assert.is((await call(api, 'GET', HN, { token })).status, 200);
    const [write] = api.requests.writes();
    const [read] = api.requests.all({ verb: 'list' });
    assert.ok(write!.durationMs >= SLOW_MS, `write took ${write!.durationMs} ms`);
    assert.ok(read!.durationMs < SLOW_MS, `read took ${read!.durationMs} ms`);
  });
});

test("the controller's REST client waits out the filter's 429 and its write goes through", async () => {
  await withServer(
    { maxMutatingRequestsInflight: 1, latency: { ms: SLOW_MS, match: isWriteRequest } },
    async (api, token) => {
      const dir = mkdtempSync(join(tmpdir(), 'max-in-flight-'));
      const transport = new Transport(
        buildClientConfig({ master: '', kubeconfig: api.writeKubeconfig(dir, { token }) }, nullLogger),
      );
      try {
        const hyperNodes = resourceClient(
          new RestClient({ transport, userAgent: 'max-in-flight-test', qps: 100, burst: 100 }),
          {
            group: 'topology.volcano.sh',
            version: 'v1alpha1',
            resource: 'hypernodes',
            namespaced: false,
          },
        );
        const held = call(api, 'POST', HN, { token, body: hyperNode('held') });
        await waitFor(() => api.inFlightRequests().now.mutating === 1, { what: 'the only seat taken' });
        await hyperNodes.create(hyperNode('patient'));
        await held;
        assert.equal(
          api.requests
            .writes({ name: '' })
            .map((r) => [r.userAgent.startsWith('max-in-flight-test') ? 'client' : 'held', r.code]),
          [
            ['held', 201],
            ['client', 429],
            ['client', 201],
          ],
        );
        const [refused, accepted] = api.requests.writes((r) => r.userAgent.startsWith('max-in-flight-test'));
        assert.ok(
          Date.parse(accepted!.time) - Date.parse(refused!.time) >= 1000,
          'the retry waited the Retry-After second',
        );
      } finally {
        transport.close();
        rmSync(dir, { recursive: true });
      }
    },
  );
});

test.run();
