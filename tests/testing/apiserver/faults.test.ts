import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { waitFor } from '../../../testing/wait.ts';
import { call, HN, hyperNode } from '../../../testing/apiserver-client.ts';

let api: ApiServer;
test.before(async () => {
  api = await startApiServer();
});
test.after(async () => {
  await api.close();
});
test.before.each(() => {
  api.clearFaults();
  api.requests.clear();
});

test('failNext answers the next N matching requests with the error, then recovers', async () => {
  api.failNext(2, { code: 503, match: { verb: 'list', resource: 'nodes' } });
  const other = await call(api, 'GET', HN);
  assert.is(other.status, 200, 'non-matching requests are untouched');
  const a = await call(api, 'GET', '/api/v1/nodes');
  const b = await call(api, 'GET', '/api/v1/nodes');
  const c = await call(api, 'GET', '/api/v1/nodes');
  assert.equal([a.status, b.status, c.status], [503, 503, 200]);
  assert.is(a.body.kind, 'Status');
  assert.is(a.body.reason, 'ServiceUnavailable');
  assert.equal(
    api.requests.all({ resource: 'nodes' }).map((r) => r.code),
    [503, 503, 200],
  );
});

test('429 carries Retry-After and details.retryAfterSeconds', async () => {
  api.failNext(1, { code: 429, retryAfterSeconds: 3 });
  const r = await call(api, 'POST', HN, { body: hyperNode('throttled') });
  assert.is(r.status, 429);
  assert.is(r.headers['retry-after'], '3');
  assert.is(r.body.reason, 'TooManyRequests');
  assert.is(r.body.details.retryAfterSeconds, 3);
  assert.is(api.store.get('hypernodes', 'throttled'), undefined, 'the failed write did not happen');
});

test('422 defaults to the Invalid answer CEL validation gave intermittently under concurrent writes', async () => {
  api.failNext(1, { code: 422, match: { verb: 'create', resource: 'hypernodes' } });
  const r = await call(api, 'POST', HN, { body: hyperNode('glitch') });
  assert.is(r.status, 422);
  assert.is(r.body.reason, 'Invalid');
  assert.match(r.body.message, 'index out of range');
  assert.is(api.store.get('hypernodes', 'glitch'), undefined, 'the rejected create did not happen');
  assert.is((await call(api, 'POST', HN, { body: hyperNode('glitch') })).status, 201);
});

test('a predicate can target one write, e.g. a status update', async () => {
  const c = api.store.create(hyperNode('st'));
  api.failNext(1, { code: 500, match: (r) => r.verb === 'update' && r.subresource === 'status' });
  const main = await call(api, 'PUT', `${HN}/st`, { body: c });
  assert.is(main.status, 200);
  const st = await call(api, 'PUT', `${HN}/st/status`, { body: { ...c, status: { nodeCount: 1 } } });
  assert.is(st.status, 500);
  assert.is(st.body.reason, 'InternalError');
});

test('latency delays only matching requests', async () => {
  const remove = api.latency(1500, { resource: 'hypernodes' });
  const order: string[] = [];
  const slow = call(api, 'GET', HN).then(() => order.push('slow'));
  await waitFor(() => api.requests.count({ resource: 'hypernodes' }) === 1, { what: 'the slow request to arrive' });
  await call(api, 'GET', '/api/v1/nodes').then(() => order.push('fast'));
  await slow;
  assert.equal(order, ['fast', 'slow']);
  remove();
});

test('a failed watch request gets its error before any stream starts', async () => {
  api.failNext(1, { code: 500, match: { verb: 'watch' } });
  const r = await call(api, 'GET', '/api/v1/nodes?watch=1&timeoutSeconds=1');
  assert.is(r.status, 500);
  assert.equal(api.watches(), []);
});

test.run();
