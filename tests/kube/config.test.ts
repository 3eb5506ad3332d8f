// Client configuration resolution (src/kube/config.ts): warnings and error texts,
// --master alone or over a kubeconfig, http servers, client certificates, and
// in-cluster configuration against the TLS API server stand-in, including
// token rotation.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  buildClientConfig,
  IN_CLUSTER_WARNING,
  NO_CONFIGURATION_ERROR,
  TOKEN_REREAD_PERIOD_MS,
  type ClientConfig,
} from '../../src/kube/config.ts';
import { resourceClient } from '../../src/kube/resource.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { Transport } from '../../src/kube/transport.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { KUBECONFIG_WITH_SYNTAX_ERROR, SECRETS } from '../support/secret-kubeconfig.ts';
import { FakeClock } from './fake-clock.ts';
import { capturingLogger } from '../support/capturing-logger.ts';

const TLS = join(import.meta.dirname, '../../testing/tls');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'kube-config-'));
}

async function listNodes(config: ClientConfig): Promise<string[]> {
  const transport = new Transport(config);
  try {
    const rest = new RestClient({ transport, userAgent: 'test', qps: 100, burst: 100, maxRetries: 0 });
    const nodes = resourceClient<KubeObject>(rest, { group: '', version: 'v1', resource: 'nodes', namespaced: false });
    return (await nodes.list()).items.map((n) => n.metadata.name);
  } finally {
    transport.close();
  }
}

/** A kubeconfig for the stand-in whose user's credentials come from `node <plugin>`. */
function execPluginKubeconfig(dir: string, plugin: string): string {
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: api.url, 'certificate-authority': api.caFile } }],
      users: [
        {
          name: 'u',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: process.execPath,
              args: [plugin],
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'ctx',
    }),
  );
  return kubeconfig;
}

let api: ApiServer;

test.before(async () => {
  api = await startApiServer();
  api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n0' } });
});
test.after(async () => {
  await api.close();
});

test('neither flag: warns, tries in-cluster, and fails with client-go texts when not in a cluster', () => {
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  assert.throws(
    () => buildClientConfig({ master: '', kubeconfig: '' }, logger, { env: {}, serviceAccountDir: '/nonexistent' }),
    (err: Error) => err.message === NO_CONFIGURATION_ERROR,
  );
  assert.equal(lines, [
    IN_CLUSTER_WARNING,
    'error creating inClusterConfig, falling back to default config: unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
  ]);
  assert.is(
    IN_CLUSTER_WARNING,
    'Neither --kubeconfig nor --master was specified.  Using the inClusterConfig.  This might not work.',
  );
});

test('neither flag with KUBECONFIG set: a one-line hint that it is ignored', () => {
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  assert.throws(() =>
    buildClientConfig({ master: '', kubeconfig: '' }, logger, {
      env: { KUBECONFIG: '/home/me/.kube/config' },
      serviceAccountDir: '/nonexistent',
    }),
  );
  assert.equal(
    lines.filter((l) => l.includes('KUBECONFIG')),
    ['KUBECONFIG is set but ignored: pass --kubeconfig to use that file KUBECONFIG="/home/me/.kube/config"'],
  );
});

test('in-cluster without a token file fails like Go', () => {
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  const dir = tempDir();
  assert.throws(() =>
    buildClientConfig({ master: '', kubeconfig: '' }, logger, {
      env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: dir,
    }),
  );
  assert.is(
    lines[1],
    `error creating inClusterConfig, falling back to default config: open ${dir}/token: no such file or directory`,
  );
  rmSync(dir, { recursive: true });
});

test('in-cluster: https://host:port with the service-account CA and token, IPv6 hosts bracketed', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'token'), api.adminToken + '\n');
  writeFileSync(join(dir, 'ca.crt'), readFileSync(join(TLS, 'ca.crt')));
  const { logger } = capturingLogger({ verbosity: 0 });
  const config = buildClientConfig({ master: '', kubeconfig: '' }, logger, {
    env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(api.port) },
    serviceAccountDir: dir,
  });
  assert.is(config.server, `https://127.0.0.1:${api.port}`);
  assert.equal(await listNodes(config), ['n0']);
  const v6 = buildClientConfig({ master: '', kubeconfig: '' }, logger, {
    env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
    serviceAccountDir: dir,
  });
  assert.is(v6.server, 'https://[fd00::1]:443');
  rmSync(dir, { recursive: true });
});

test('in-cluster: the token file is re-read periodically (rotation)', async () => {
  const dir = tempDir();
  const rotated = api.addUser('system:serviceaccount:volcano-system:rotated', 'admin');
  writeFileSync(join(dir, 'token'), api.adminToken);
  writeFileSync(join(dir, 'ca.crt'), readFileSync(join(TLS, 'ca.crt')));
  const clock = new FakeClock();
  const { logger } = capturingLogger({ verbosity: 0 });
  const config = buildClientConfig({ master: '', kubeconfig: '' }, logger, {
    env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(api.port) },
    serviceAccountDir: dir,
    clock,
  });
  api.requests.clear();
  await listNodes(config);
  writeFileSync(join(dir, 'token'), rotated);
  await listNodes(config);
  await clock.advance(TOKEN_REREAD_PERIOD_MS);
  await listNodes(config);
  assert.equal(
    api.requests.all().map((r) => r.user),
    ['admin', 'admin', 'system:serviceaccount:volcano-system:rotated'],
  );
  rmSync(dir, { recursive: true });
});

test('in-cluster: an unparsable ca.crt is logged and the system roots are used', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'token'), 't');
  writeFileSync(join(dir, 'ca.crt'), 'not a certificate');
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  const config = buildClientConfig({ master: '', kubeconfig: '' }, logger, {
    env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
    serviceAccountDir: dir,
  });
  assert.is(config.tls.ca, undefined);
  assert.ok(lines.some((l) => l.startsWith(`Expected to load root CA config from ${dir}/ca.crt, but got err:`)));
  rmSync(dir, { recursive: true });
});

test('--master alone: that server, no credentials; host:port gets https', async () => {
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  const plain = await startApiServer({ tls: false });
  const config = buildClientConfig({ master: plain.url, kubeconfig: '' }, logger);
  assert.is(config.server, plain.url);
  assert.equal((await config.credentials()).headers, {});
  const err = await listNodes(config).catch((e: Error) => e);
  // Without credentials a real API server takes the request as system:anonymous: 403, not 401.
  assert.match(String(err), /User "system:anonymous" cannot list resource "nodes"/);
  assert.is(buildClientConfig({ master: '10.1.2.3:6443', kubeconfig: '' }, logger).server, 'https://10.1.2.3:6443');
  assert.equal(lines, []);
  await plain.close();
});

test('--kubeconfig: that file only, token or client certificate auth over TLS with its CA', async () => {
  const dir = tempDir();
  const { logger } = capturingLogger({ verbosity: 0 });
  api.addUser('cert-user', 'admin'); // client certificates authenticate as their CN
  api.requests.clear();
  assert.equal(await listNodes(buildClientConfig({ master: '', kubeconfig: api.writeKubeconfig(dir) }, logger)), [
    'n0',
  ]);
  assert.equal(
    await listNodes(
      buildClientConfig({ master: '', kubeconfig: api.writeKubeconfig(dir, { clientCert: true }) }, logger),
    ),
    ['n0'],
  );
  assert.equal(
    api.requests.all().map((r) => r.user),
    ['admin', 'cert-user'],
  );
  rmSync(dir, { recursive: true });
});

test('--kubeconfig with --master: the server is replaced; http:// servers are accepted as in Go', async () => {
  const dir = tempDir();
  const { logger } = capturingLogger({ verbosity: 0 });
  const plain = await startApiServer({ tls: false });
  plain.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'plain-node' } });
  const file = api.writeKubeconfig(dir);
  const config = buildClientConfig({ master: plain.url, kubeconfig: file }, logger);
  assert.is(config.server, plain.url);
  assert.equal(await listNodes(config), ['plain-node']);
  const direct = buildClientConfig({ master: '', kubeconfig: plain.writeKubeconfig(dir) }, logger);
  assert.equal(await listNodes(direct), ['plain-node']);
  await plain.close();
  rmSync(dir, { recursive: true });
});

test('--kubeconfig with an exec plugin: credentials are asked for per request, so a refreshed token is used', async () => {
  const dir = tempDir();
  const tokenFile = join(dir, 'current-token');
  const plugin = join(dir, 'plugin.mjs');
  // An already-expired credential makes the client run the plugin again on the next request.
  writeFileSync(
    plugin,
    `import { readFileSync } from 'node:fs';
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential',
  status: { token: readFileSync(${JSON.stringify(tokenFile)}, 'utf8'), expirationTimestamp: new Date(Date.now() - 1000).toISOString() } }));`,
  );
  const kubeconfig = execPluginKubeconfig(dir, plugin);
  const rotated = api.addUser('exec-rotated', 'admin');
  writeFileSync(tokenFile, api.adminToken);
  const { logger } = capturingLogger({ verbosity: 0 });
  const config = buildClientConfig({ master: '', kubeconfig }, logger);
  api.requests.clear();
  await listNodes(config);
  writeFileSync(tokenFile, rotated);
  await listNodes(config);
  assert.equal(
    api.requests.all().map((r) => r.user),
    ['admin', 'exec-rotated'],
  );
  rmSync(dir, { recursive: true });
});

test('--kubeconfig pointing at a missing file is an error naming the file', () => {
  const { logger } = capturingLogger({ verbosity: 0 });
  assert.throws(
    () => buildClientConfig({ master: '', kubeconfig: '/nope/kubeconfig' }, logger),
    /stat \/nope\/kubeconfig: no such file or directory/,
  );
});

test('--kubeconfig naming a CA file that does not exist fails at start with the file named', () => {
  const dir = tempDir();
  const file = join(dir, 'kc.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'c', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority': 'missing-ca.crt' } },
      ],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  const { logger } = capturingLogger({ verbosity: 0 });
  assert.throws(
    () => buildClientConfig({ master: '', kubeconfig: file }, logger),
    (e: Error) =>
      e.message ===
      `invalid configuration: unable to read certificate-authority ${dir}/missing-ca.crt: open ${dir}/missing-ca.crt: no such file or directory`,
  );
  rmSync(dir, { recursive: true });
});

test('--kubeconfig with no usable context and no --master is "no configuration"', () => {
  const dir = tempDir();
  const file = join(dir, 'empty.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n');
  const { logger } = capturingLogger({ verbosity: 0 });
  assert.throws(
    () => buildClientConfig({ master: '', kubeconfig: file }, logger),
    (e: Error) => e.message === NO_CONFIGURATION_ERROR,
  );
  rmSync(dir, { recursive: true });
});

/** What `fn` throws; fails the test if it returns. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

/** Every string an error chain carries: messages, stacks and causes. */
function errorChainText(err: unknown): string {
  let out = '';
  for (let e = err; e instanceof Error; e = e.cause) out += `${e.message}\n${e.stack ?? ''}\n`;
  return out;
}

test('--kubeconfig with a YAML syntax error: the file, line, column and reason, never the lines around it', () => {
  const dir = tempDir();
  const file = join(dir, 'kubeconfig.yaml');
  writeFileSync(file, KUBECONFIG_WITH_SYNTAX_ERROR);
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  const thrown = thrownBy(() => buildClientConfig({ master: '', kubeconfig: file }, logger));
  assert.instance(thrown, Error);
  assert.is(
    (thrown as Error).message,
    `error loading config file "${file}": line 11, column 15: Nested mappings are not allowed in compact mappings`,
  );
  const everything = errorChainText(thrown) + lines.join('\n');
  assert.not.match(everything, SECRETS);
  rmSync(dir, { recursive: true });
});

test('--kubeconfig in JSON with a syntax error: position only, no excerpt', () => {
  const dir = tempDir();
  const file = join(dir, 'kubeconfig.json');
  writeFileSync(
    file,
    '{"apiVersion": "v1",\n "users": [{"name": "u", "user": {"token": "SECRET-TOKEN-123" "password": "SECRET-PW"}}]}\n',
  );
  const { logger } = capturingLogger({ verbosity: 0 });
  const thrown = thrownBy(() => buildClientConfig({ master: '', kubeconfig: file }, logger));
  assert.match((thrown as Error).message, new RegExp(`^error loading config file "${file}": line 2, column \\d+: `));
  assert.not.match(errorChainText(thrown), SECRETS);
  rmSync(dir, { recursive: true });
});

test('an exec plugin printing broken JSON: the request fails naming the plugin and position, without its output', async () => {
  const dir = tempDir();
  const plugin = join(dir, 'plugin.mjs');
  writeFileSync(plugin, `process.stdout.write('{"kind": "ExecCredential", "status": {"token": SECRET-TOKEN-123}}');`);
  const kubeconfig = execPluginKubeconfig(dir, plugin);
  const { logger } = capturingLogger({ verbosity: 0 });
  const config = buildClientConfig({ master: '', kubeconfig }, logger);
  let thrown: unknown;
  try {
    await config.credentials();
  } catch (err) {
    thrown = err;
  }
  assert.instance(thrown, Error);
  assert.match(
    (thrown as Error).message,
    `getting credentials: exec plugin "${process.execPath}" its output is not valid JSON: `,
  );
  assert.not.match(errorChainText(thrown), SECRETS);
  rmSync(dir, { recursive: true });
});

test.run();
