// AccessReviewer against the API server stand-in: a token is authenticated by
// a TokenReview and its user authorised by a SubjectAccessReview for a
// non-resource URL; answers are cached per token for the TTL (one review per
// token within it, a fresh one after it), never for an error, and a review
// the API server cannot make fails closed.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ACCESS_REVIEW_CACHE_TTL_MS, AccessReviewer } from '../../src/kube/access-review.ts';
import { buildClientConfig } from '../../src/kube/config.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { Transport } from '../../src/kube/transport.ts';
import { nullLogger } from '../../src/log.ts';
import { accessReviewerRbac, startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { FakeClock } from './fake-clock.ts';

const PAGE = '/debug/topology';

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
  viewer = api.addUser('viewer', [{ apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: ['/debug/*'] }]);
  stranger = api.addUser('stranger', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]);
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
  const short = api.addUser('short-lived', 'admin');
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
    });
    const decision = await r.review(viewer, PAGE, 'get');
    assert.is(decision.kind, 'unavailable');
    assert.match((decision as { error: string }).error, /tokenreviews.authentication.k8s.io is forbidden/);
  } finally {
    t.close();
  }
});

test.run();
