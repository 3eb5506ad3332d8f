import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { hypernodeControllerRbac, startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { call, HN, hyperNode } from '../../../testing/apiserver-client.ts';

const NS = 'volcano-system';
const LEASE = 'vc-hypernode-controller-manager';
const SA = 'system:serviceaccount:volcano-system:hypernode-controller';

/** A file of the test TLS material. */
const tlsFile = (f: string): string => new URL(`../../../testing/tls/${f}`, import.meta.url).pathname;

let api: ApiServer;
let sa: string;
test.before(async () => {
  api = await startApiServer({ namespaces: [NS] });
  sa = api.addUser(SA, hypernodeControllerRbac(NS, LEASE));
});
test.after(async () => {
  await api.close();
});

test('an unknown token is 401; no credentials or an empty bearer token is the anonymous user, 403', async () => {
  const r = await call(api, 'GET', '/api/v1/nodes', { token: 'not-a-token' });
  assert.is(r.status, 401);
  assert.equal(r.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
    code: 401,
  });
  assert.is(api.requests.all({ path: '/api/v1/nodes', code: 401 }).length, 1);
  for (const headers of [{}, { authorization: 'Bearer ' }] as Array<Record<string, string>>) {
    const anon = await call(api, 'GET', '/api/v1/nodes', { token: '', headers });
    assert.is(anon.status, 403);
    assert.is(
      anon.body.message,
      'nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope',
    );
  }
});

test('health and version answer without credentials; discovery needs them', async () => {
  assert.is((await call(api, 'GET', '/healthz', { token: '' })).text, 'ok');
  assert.is((await call(api, 'GET', '/version', { token: '' })).body.major, '1');
  const anonymous = await call(api, 'GET', '/apis', { token: '' });
  assert.is(anonymous.status, 403);
  assert.is(anonymous.body.message, 'forbidden: User "system:anonymous" cannot get path "/apis"');
  const apis = await call(api, 'GET', '/apis', { token: sa });
  assert.ok(
    apis.body.groups.some((g: any) => g.name === 'topology.volcano.sh' && g.preferredVersion.version === 'v1alpha1'),
  );
  const core = await call(api, 'GET', '/api/v1', { token: sa });
  assert.ok(core.body.resources.some((r: any) => r.name === 'nodes' && !r.namespaced));
  const hn = await call(api, 'GET', '/apis/topology.volcano.sh/v1alpha1', { token: sa });
  assert.ok(hn.body.resources.some((r: any) => r.name === 'hypernodes/status'));
  assert.equal((await call(api, 'GET', '/api', { token: sa })).body.versions, ['v1']);
});

test('the controller grant allows exactly the chart rules', async () => {
  const allowedCalls: [string, string][] = [
    ['GET', '/api/v1/nodes'],
    ['GET', '/api/v1/nodes?watch=1&timeoutSeconds=1'],
    ['GET', HN],
    ['GET', `/api/v1/namespaces/${NS}/configmaps?fieldSelector=metadata.name%3Dvolcano-controller-configmap`],
    ['GET', `/api/v1/namespaces/${NS}/leases`.replace('/api/v1', '/apis/coordination.k8s.io/v1') + `/${LEASE}`],
  ];
  for (const [m, p] of allowedCalls) {
    const r = await call(api, m, p, { token: sa });
    assert.ok(r.status !== 403 && r.status !== 401, `${m} ${p} -> ${r.status} ${r.text}`);
  }
  const created = await call(api, 'POST', HN, { token: sa, body: hyperNode('rbac') });
  assert.is(created.status, 201);
  const st = await call(api, 'PUT', `${HN}/rbac/status`, {
    token: sa,
    body: { ...created.body, status: { nodeCount: 1 } },
  });
  assert.is(st.status, 200);
  const lease = await call(api, 'POST', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, {
    token: sa,
    body: { metadata: { name: LEASE }, spec: { holderIdentity: 'me' } },
  });
  assert.is(lease.status, 201);
  const ev = await call(api, 'POST', `/api/v1/namespaces/${NS}/events`, {
    token: sa,
    body: {
      metadata: { name: 'e1' },
      involvedObject: { kind: 'Lease', namespace: NS, name: LEASE },
      reason: 'LeaderElection',
    },
  });
  assert.is(ev.status, 201);
  assert.is((await call(api, 'DELETE', `${HN}/rbac`, { token: sa })).status, 200);
});

test('denials carry the Kubernetes Forbidden message', async () => {
  const cases: [string, string, string][] = [
    [
      'GET',
      `${HN}/x`,
      'hypernodes.topology.volcano.sh "x" is forbidden: User "SA" cannot get resource "hypernodes" in API group "topology.volcano.sh" at the cluster scope',
    ],
    [
      'PATCH',
      `${HN}/x`,
      'hypernodes.topology.volcano.sh "x" is forbidden: User "SA" cannot patch resource "hypernodes" in API group "topology.volcano.sh" at the cluster scope',
    ],
    [
      'PATCH',
      `${HN}/x/status`,
      'hypernodes.topology.volcano.sh "x" is forbidden: User "SA" cannot patch resource "hypernodes/status" in API group "topology.volcano.sh" at the cluster scope',
    ],
    [
      'GET',
      '/api/v1/namespaces/default/secrets/s',
      'secrets "s" is forbidden: User "SA" cannot get resource "secrets" in API group "" in the namespace "default"',
    ],
    [
      'GET',
      `/api/v1/namespaces/${NS}/pods`,
      'pods is forbidden: User "SA" cannot list resource "pods" in API group "" in the namespace "volcano-system"',
    ],
    [
      'GET',
      '/api/v1/configmaps',
      'configmaps is forbidden: User "SA" cannot list resource "configmaps" in API group "" at the cluster scope',
    ],
    [
      'POST',
      '/api/v1/nodes',
      'nodes is forbidden: User "SA" cannot create resource "nodes" in API group "" at the cluster scope',
    ],
    [
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/other-lease`,
      'leases.coordination.k8s.io "other-lease" is forbidden: User "SA" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "volcano-system"',
    ],
  ];
  for (const [m, p, msg] of cases) {
    const r = await call(api, m, p, {
      token: sa,
      body: m === 'GET' ? undefined : {},
      headers: m === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {},
    });
    assert.is(r.status, 403, `${m} ${p}`);
    assert.is(r.body.reason, 'Forbidden');
    assert.is(r.body.message, msg.replace('"SA"', JSON.stringify(SA)));
  }
});

test("a revoked token is 401 while the user's new token works (rotation)", async () => {
  const grant = [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }];
  const first = api.addUser('rotating', grant);
  const second = api.addUser('rotating', grant);
  api.revokeToken(first);
  assert.is((await call(api, 'GET', '/api/v1/nodes', { token: first })).status, 401);
  assert.is((await call(api, 'GET', '/api/v1/nodes', { token: second })).status, 200);
});

test('users given at start authenticate with their token', async () => {
  const other = await startApiServer({
    tls: false,
    users: { viewer: { grant: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }], token: 'view' } },
  });
  try {
    assert.is((await call(other, 'GET', '/api/v1/nodes', { token: 'view' })).status, 200);
    assert.is((await call(other, 'DELETE', '/api/v1/nodes/x', { token: 'view' })).status, 403);
  } finally {
    await other.close();
  }
});

test('a field selector on metadata.name counts as the name for resourceNames rules', async () => {
  const u = api.addUser('one-lease', [
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['list', 'watch'],
      namespaces: [NS],
      resourceNames: ['mine'],
    },
  ]);
  const ok = await call(
    api,
    'GET',
    `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases?fieldSelector=metadata.name%3Dmine`,
    { token: u },
  );
  assert.is(ok.status, 200);
  const all = await call(api, 'GET', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, { token: u });
  assert.is(all.status, 403);
});

test('client certificates authenticate as their CN', async () => {
  const anon = await call(api, 'GET', '/api/v1/nodes', { token: '', clientCert: true });
  assert.is(anon.status, 403);
  assert.match(anon.body.message, 'User "cert-user" cannot list resource "nodes"');
  api.addUser('cert-user', [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }]);
  const ok = await call(api, 'GET', '/api/v1/nodes', { token: '', clientCert: true });
  assert.is(ok.status, 200);
  assert.is(api.requests.all({ path: '/api/v1/nodes', code: 200 }).at(-1)?.user, 'cert-user');
});

test('certificate groups (subject O) carry grants', async () => {
  assert.is((await call(api, 'GET', '/api/v1/namespaces', { token: '', clientCert: true })).status, 403);
  api.addGroup('testers', [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }]);
  assert.is((await call(api, 'GET', '/api/v1/namespaces', { token: '', clientCert: true })).status, 200);
  assert.is((await call(api, 'GET', '/api/v1/configmaps', { token: '', clientCert: true })).status, 403);
});

test('a certificate in group system:masters may do anything', async () => {
  const { execFileSync } = await import('node:child_process');
  const dir = mkdtempSync(join(tmpdir(), 'masters-'));
  try {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe', timeout: 10_000 });
    run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'k.pem');
    run('req', '-new', '-key', 'k.pem', '-subj', '/CN=root/O=system:masters', '-out', 'r.csr');
    run(
      'x509',
      '-req',
      '-in',
      'r.csr',
      '-CA',
      tlsFile('ca.crt'),
      '-CAkey',
      tlsFile('ca.key'),
      '-set_serial',
      '7',
      '-days',
      '1',
      '-out',
      'c.pem',
    );
    const r = await call(api, 'GET', '/api/v1/namespaces/default/secrets', {
      token: '',
      clientCert: { certFile: join(dir, 'c.pem'), keyFile: join(dir, 'k.pem') },
    });
    assert.is(r.status, 200);
    assert.is(api.requests.all({ path: '/api/v1/namespaces/default/secrets' }).at(-1)?.user, 'root');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a certificate from another CA does not authenticate', async () => {
  const r = await call(api, 'GET', '/api/v1/nodes', {
    token: '',
    clientCert: { certFile: tlsFile('other-ca.crt'), keyFile: tlsFile('other-ca.key') },
  });
  assert.is(r.status, 401);
});

test('writeKubeconfig writes a v1 Config for a token or a client certificate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-'));
  try {
    const t = parse(readFileSync(api.writeKubeconfig(dir, { token: sa }), 'utf8'));
    assert.is(t.kind, 'Config');
    const ctx = t.contexts.find((c: any) => c.name === t['current-context']).context;
    assert.is(t.clusters.find((c: any) => c.name === ctx.cluster).cluster.server, api.url);
    assert.is(t.clusters[0].cluster['certificate-authority'], api.caFile);
    assert.is(t.users.find((u: any) => u.name === ctx.user).user.token, sa);
    const c = parse(
      readFileSync(api.writeKubeconfig(dir, { clientCert: true, master: 'https://127.0.0.1:1' }), 'utf8'),
    );
    assert.is(c.users[0].user['client-certificate'], api.clientCertFile);
    assert.is(c.users[0].user.token, undefined);
    assert.is(c.clusters[0].cluster.server, 'https://127.0.0.1:1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
