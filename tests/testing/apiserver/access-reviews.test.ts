// The stand-in's TokenReview and SubjectAccessReview over HTTP: created (201)
// with the spec echoed and a status answered from its users and grants, an
// unknown token answered, not refused; audiences: a token issued for others
// than those asked is not authenticated; RBAC on creating a review; 422 for a
// spec no review can answer; no verb but create.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  accessReviewerRbac,
  API_SERVER_AUDIENCE,
  startApiServer,
  type ApiServer,
} from '../../../testing/apiserver/index.ts';
import { call } from '../../../testing/apiserver-client.ts';

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

let api: ApiServer;
let reviewer: string;
let viewer: string;
test.before(async () => {
  api = await startApiServer();
  reviewer = api.addUser('reviewer', accessReviewerRbac());
  viewer = api.addUser('viewer', [
    { apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: ['/debug/*', '/metrics'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
  ]);
});
test.after(async () => {
  await api.close();
});

const tokenReview = (token: string) => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenReview',
  spec: { token },
});
const accessReview = (spec: object) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });

test('a TokenReview names the user of a known token and answers an unknown one with an empty user', async () => {
  const known = await call(api, 'POST', TOKEN_REVIEWS, { token: reviewer, body: tokenReview(viewer) });
  assert.is(known.status, 201);
  assert.equal(known.body, {
    kind: 'TokenReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { token: viewer },
    status: {
      authenticated: true,
      user: { username: 'viewer', groups: ['system:authenticated'] },
      audiences: [API_SERVER_AUDIENCE],
    },
  });
  const unknown = await call(api, 'POST', TOKEN_REVIEWS, { token: reviewer, body: tokenReview('nobody') });
  assert.is(unknown.status, 201);
  assert.equal(unknown.body.status, { user: {} });
});

test("a TokenReview with audiences authenticates only a token issued for one of them, naming those; the API server's own token is refused", async () => {
  const review = async (token: string, audiences: string[]) =>
    (
      await call(api, 'POST', TOKEN_REVIEWS, {
        token: reviewer,
        body: { ...tokenReview(token), spec: { token, audiences } },
      })
    ).body.status;
  const scoped = api.createToken('viewer', ['hypernode-page', 'other']);
  assert.equal(await review(scoped, ['hypernode-page']), {
    authenticated: true,
    user: { username: 'viewer', groups: ['system:authenticated'] },
    audiences: ['hypernode-page'],
  });
  const own = await review(viewer, ['hypernode-page']);
  assert.is(own.authenticated, undefined);
  assert.equal(own.user, {});
  assert.match(own.error, 'is invalid for the target audiences ["hypernode-page"]');
  assert.equal((await review(scoped, [])).user, {}, 'not for the API server either');
  // And not to the API server itself.
  assert.is((await call(api, 'GET', '/api/v1/nodes', { token: scoped })).status, 401);
});

test('a SubjectAccessReview allows what a grant covers: non-resource URLs exactly or by prefix, resources by RBAC', async () => {
  const allowed = async (spec: object) => {
    const r = await call(api, 'POST', ACCESS_REVIEWS, { token: reviewer, body: accessReview(spec) });
    assert.is(r.status, 201);
    return r.body.status.allowed as boolean;
  };
  assert.ok(await allowed({ user: 'viewer', nonResourceAttributes: { path: '/debug/topology', verb: 'get' } }));
  assert.ok(await allowed({ user: 'viewer', nonResourceAttributes: { path: '/metrics', verb: 'get' } }));
  assert.not.ok(await allowed({ user: 'viewer', nonResourceAttributes: { path: '/metrics', verb: 'post' } }));
  assert.not.ok(await allowed({ user: 'viewer', nonResourceAttributes: { path: '/metricsx', verb: 'get' } }));
  assert.not.ok(await allowed({ user: 'someone', nonResourceAttributes: { path: '/metrics', verb: 'get' } }));
  assert.ok(await allowed({ user: 'viewer', resourceAttributes: { verb: 'list', resource: 'nodes' } }));
  assert.not.ok(
    await allowed({ user: 'viewer', resourceAttributes: { verb: 'delete', resource: 'nodes', name: 'n1' } }),
  );
  assert.ok(await allowed({ user: 'admin', nonResourceAttributes: { path: '/anything', verb: 'get' } }));
});

test('creating a review needs RBAC; a spec without subject or with both attribute kinds is 422; they cannot be listed (405)', async () => {
  const denied = await call(api, 'POST', TOKEN_REVIEWS, { token: viewer, body: tokenReview(viewer) });
  assert.is(denied.status, 403);
  assert.match(
    denied.body.message,
    'tokenreviews.authentication.k8s.io is forbidden: User "viewer" cannot create resource "tokenreviews"',
  );
  for (const spec of [
    { nonResourceAttributes: { path: '/metrics', verb: 'get' } },
    { user: 'viewer', nonResourceAttributes: {}, resourceAttributes: {} },
  ]) {
    const r = await call(api, 'POST', ACCESS_REVIEWS, { token: reviewer, body: accessReview(spec) });
    assert.is(r.status, 422);
    assert.is(r.body.reason, 'Invalid');
  }
  assert.is((await call(api, 'GET', TOKEN_REVIEWS, { token: api.adminToken })).status, 405);
});

test.run();
