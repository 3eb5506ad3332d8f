// AccessReviewer against the API server stand-in: a token is authenticated by
// a TokenReview for the reviewer's audiences (a token for the API server is
// refused) and its user authorised by a SubjectAccessReview for a
// non-resource URL; answers are cached per token for the TTL (one review per
// token within it, a fresh one after it), a refusal for a shorter while,
// never an error; a review the API server cannot make fails closed; unknown
// tokens are reviewed a few at a time and a few a second, tokens vouched for
// lately whenever needed.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ACCESS_REVIEW_CACHE_TTL_MS,
  AccessReviewer,
  REFUSED_TOKEN_CACHE_TTL_MS,
  UNKNOWN_TOKEN_REVIEW_BURST,
  UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT,
  UNKNOWN_TOKEN_REVIEWS_PER_SECOND,
} from '../../src/kube/access-review.ts';
import { buildClientConfig } from '../../src/kube/config.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { Transport } from '../../src/kube/transport.ts';
import { nullLogger } from '../../src/log.ts';
import {
  accessReviewerRbac,
  API_SERVER_AUDIENCE,
  startApiServer,
  type ApiServer,
} from '../../testing/apiserver/index.ts';
import { FakeClock } from './fake-clock.ts';

const PAGE = '/debug/topology';
const AUDIENCE = 'hypernode-controller';

let api: ApiServer;
let dir: string;
let transport: Transport;
let viewer: string;
let stranger: string;

test.before(async () => {
  api = await startApiServer();
  dir = mkdtempSync(join(tmpdir(), 'access-review-'));
  transport = new Transport(
    buildClientConfig(
      { master: '', kubeconfig: api.writeKubeconfig(dir, { token: api.addUser('reviewer', accessReviewerRbac()) }) },
      nullLogger,
    ),
  );
  api.addUser('viewer', [{ apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: ['/debug/*'] }]);
  viewer = api.createToken('viewer', [AUDIENCE]);
  api.addUser('stranger', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]);
  stranger = api.createToken('stranger', [AUDIENCE]);
});
test.after(async () => {
  transport.close();
  await api.close();
  rmSync(dir, { recursive: true });
});

function reviewer(clock = new FakeClock()) {
  return new AccessReviewer({
    rest: new RestClient({ transport, userAgent: 'review-test', qps: 1000, burst: 1000, maxRetries: 0 }),
    clock,
    audiences: [AUDIENCE],
  });
}
const reviews = () => api.requests.count((r) => r.resource === 'tokenreviews' || r.resource === 'subjectaccessreviews');

test('a token is authenticated and its user authorised for the path and verb; others are refused', async () => {
  const r = reviewer();
  assert.equal(await r.review(viewer, PAGE, 'get'), { kind: 'allowed', user: 'viewer' });
  assert.equal(await r.review('not-a-token', PAGE, 'get'), { kind: 'unauthenticated' });
  const denied = await r.review(stranger, PAGE, 'get');
  assert.is(denied.kind, 'denied');
  assert.is((denied as { user: string }).user, 'stranger');
  // The grant is for get on /debug/*: another verb or path is not covered.
  assert.is((await r.review(viewer, PAGE, 'post')).kind, 'denied');
  assert.is((await r.review(viewer, '/metrics', 'get')).kind, 'denied');
});

test('one review per token within the TTL, a fresh one after it; concurrent requests share one', async () => {
  const clock = new FakeClock();
  const r = reviewer(clock);
  api.requests.clear();
  await Promise.all([1, 2, 3].map(() => r.review(viewer, PAGE, 'get')));
  assert.is(api.requests.count({ resource: 'tokenreviews' }), 1);
  assert.is(api.requests.count({ resource: 'subjectaccessreviews' }), 1);
  for (let i = 0; i < 5; i++) assert.is((await r.review(viewer, PAGE, 'get')).kind, 'allowed');
  await clock.advance(ACCESS_REVIEW_CACHE_TTL_MS - 1);
  assert.is((await r.review(viewer, PAGE, 'get')).kind, 'allowed');
  assert.is(reviews(), 2, 'still cached just before the TTL');
  await clock.advance(1);
  assert.is((await r.review(viewer, PAGE, 'get')).kind, 'allowed');
  assert.is(reviews(), 4, 'reviewed again once the TTL passed');
  // A revoked token is refused once its cached answer expired.
  api.addUser('short-lived', 'admin');
  const short = api.createToken('short-lived', [AUDIENCE]);
  assert.is((await r.review(short, PAGE, 'get')).kind, 'allowed');
  api.revokeToken(short);
  await clock.advance(ACCESS_REVIEW_CACHE_TTL_MS);
  assert.equal(await r.review(short, PAGE, 'get'), { kind: 'unauthenticated' });
});

test('an API server error is unavailable, never allowed, and not cached', async () => {
  const r = reviewer();
  api.failNext(1, { code: 500, match: { resource: 'tokenreviews' } });
  const failed = await r.review(viewer, PAGE, 'get');
  assert.is(failed.kind, 'unavailable');
  assert.match((failed as { error: string }).error, /Internal error occurred/);
  assert.not.match((failed as { error: string }).error, viewer);
  assert.equal(await r.review(viewer, PAGE, 'get'), { kind: 'allowed', user: 'viewer' });
  api.failNext(1, { code: 503, match: { resource: 'subjectaccessreviews' } });
  assert.is((await r.review(viewer, '/debug/other', 'get')).kind, 'unavailable');
  assert.is((await r.review(viewer, '/debug/other', 'get')).kind, 'allowed');
});

test('a reviewer without RBAC to create the reviews gets no answer: unavailable, not allowed', async () => {
  const kubeconfig = api.writeKubeconfig(dir, { token: api.addUser('no-rbac', []) });
  const t = new Transport(buildClientConfig({ master: '', kubeconfig }, nullLogger));
  try {
    const r = new AccessReviewer({
      rest: new RestClient({ transport: t, userAgent: 'review-test', qps: 1000, burst: 1000, maxRetries: 0 }),
      clock: new FakeClock(),
      audiences: [AUDIENCE],
    });
    const decision = await r.review(viewer, PAGE, 'get');
    assert.is(decision.kind, 'unavailable');
    assert.match((decision as { error: string }).error, /tokenreviews.authentication.k8s.io is forbidden/);
  } finally {
    t.close();
  }
});

test('a token issued for the API server, or for another audience, is refused unless its audience is asked for', async () => {
  const r = reviewer();
  const apiToken = api.addUser('api-token-holder', 'admin');
  assert.equal(await r.review(apiToken, PAGE, 'get'), { kind: 'unauthenticated' });
  assert.equal(await r.review(api.createToken('viewer', ['someone-else']), PAGE, 'get'), { kind: 'unauthenticated' });
  const withApiAudience = new AccessReviewer({
    rest: new RestClient({ transport, userAgent: 'review-test', qps: 1000, burst: 1000, maxRetries: 0 }),
    clock: new FakeClock(),
    audiences: [AUDIENCE, API_SERVER_AUDIENCE],
  });
  assert.is((await withApiAudience.review(apiToken, PAGE, 'get')).kind, 'allowed');
});

test('an API server that ignores the audiences (authenticated, none named) is not taken at its word', async () => {
  // Its answers: any token authenticated, without status.audiences, and every request allowed.
  const ignorant = createServer((req, res) => {
    req.resume();
    const review = req.url!.includes('tokenreviews')
      ? { kind: 'TokenReview', status: { authenticated: true, user: { username: 'anyone' } } }
      : { kind: 'SubjectAccessReview', status: { allowed: true } };
    res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify(review));
  });
  await new Promise<void>((done) => ignorant.listen(0, '127.0.0.1', done));
  const t = new Transport(
    buildClientConfig(
      { master: `http://127.0.0.1:${(ignorant.address() as AddressInfo).port}`, kubeconfig: '' },
      nullLogger,
    ),
  );
  try {
    const r = new AccessReviewer({
      rest: new RestClient({ transport: t, userAgent: 'review-test', qps: 1000, burst: 1000, maxRetries: 0 }),
      clock: new FakeClock(),
      audiences: [AUDIENCE],
    });
    assert.equal(await r.review('any-token', PAGE, 'get'), { kind: 'unauthenticated' });
  } finally {
    t.close();
    ignorant.closeAllConnections();
    await new Promise((done) => ignorant.close(done));
  }
});

test('a refused token is refused again without a review for a short while, then reviewed again', async () => {
  const clock = new FakeClock();
  const r = reviewer(clock);
  api.requests.clear();
  for (let i = 0; i < 5; i++) assert.equal(await r.review('made-up', PAGE, 'get'), { kind: 'unauthenticated' });
  assert.is(api.requests.count({ resource: 'tokenreviews' }), 1);
  await clock.advance(REFUSED_TOKEN_CACHE_TTL_MS);
  assert.equal(await r.review('made-up', PAGE, 'get'), { kind: 'unauthenticated' });
  assert.is(api.requests.count({ resource: 'tokenreviews' }), 2);
});

test('unknown tokens are reviewed a few at a time and a few a second; the rest are throttled without a review', async () => {
  const clock = new FakeClock();
  const r = reviewer(clock);
  api.requests.clear();
  // A flood at once: only as many reviews as may be in flight.
  const flood = await Promise.all(Array.from({ length: 50 }, (_, i) => r.review(`random-${i}`, PAGE, 'get')));
  assert.is(api.requests.count({ resource: 'tokenreviews' }), UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT);
  assert.is(flood.filter((d) => d.kind === 'throttled').length, 50 - UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT);
  // One after another: the burst, then the rate.
  api.requests.clear();
  let reviewed = 0;
  for (let i = 0; i < 100; i++) if ((await r.review(`serial-${i}`, PAGE, 'get')).kind !== 'throttled') reviewed++;
  assert.is(reviewed, UNKNOWN_TOKEN_REVIEW_BURST - UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT);
  await clock.advance(1_000);
  reviewed = 0;
  for (let i = 0; i < 100; i++) if ((await r.review(`later-${i}`, PAGE, 'get')).kind !== 'throttled') reviewed++;
  assert.is(reviewed, UNKNOWN_TOKEN_REVIEWS_PER_SECOND);
  assert.is(
    api.requests.count({ resource: 'tokenreviews' }),
    UNKNOWN_TOKEN_REVIEW_BURST - UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT + UNKNOWN_TOKEN_REVIEWS_PER_SECOND,
  );
});

test('a token the API server vouched for is reviewed again when its answer expires, even during a flood', async () => {
  const clock = new FakeClock();
  const r = reviewer(clock);
  assert.is((await r.review(viewer, PAGE, 'get')).kind, 'allowed');
  await clock.advance(ACCESS_REVIEW_CACHE_TTL_MS);
  for (let i = 0; i < 100; i++) await r.review(`flood-${i}`, PAGE, 'get');
  assert.is((await r.review(`flood-x`, PAGE, 'get')).kind, 'throttled', 'the budget is spent');
  assert.equal(await r.review(viewer, PAGE, 'get'), { kind: 'allowed', user: 'viewer' });
});

test.run();
