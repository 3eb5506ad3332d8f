// docs/security.md §2: whoever edits the discovery ConfigMap chooses a
// secretRef and an endpoint, but only the Secret says where its credentials
// go. An HTTP(S) recorder poses as the endpoint the ConfigMap names (the UFM
// stand-in, which records every request and its Authorization header) and
// must receive nothing when the Secret has not opted in, does not name the
// recorder's origin, lives in another namespace, or has not consented to
// plain http or to skipped TLS verification; the refusal names the Secret,
// the endpoint and the command that would allow it. The consented Secret
// still works. Credentials written into a URL never reach a log line or an
// Event. Each case runs in this process and on the built executable (-v=10).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GraphServer, railGraphDocument } from '../../testing/graph-server.ts';
import { discoverySecret, type SecretAllows } from '../../testing/discovery-secret.ts';
import { UfmServer } from '../../testing/ufm-server.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { startControllerBinary, type ControllerRun } from '../support/controller-process.ts';
import { cleanEnv } from '../support/run-command.ts';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import { waitFor } from '../../testing/wait.ts';
import {
  NS,
  UFM_SECRET,
  hyperNodes,
  node,
  seedConfigMap,
  workedExampleNodes,
  workedExamplePorts,
} from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const s = session(test);
const OTHER_NS = 'team-b';
const USER = 'hypernode';
const PASSWORD = 'p4ss-w0rd-of-the-ufm-secret';
const CREDENTIALS = { username: USER, password: PASSWORD };

/** Where the controller runs: in this process, or the built executable at -v=10. */
type Runtime = (kubeconfig: string) => ControllerRun | Promise<ControllerRun>;
const IN_PROCESS: Runtime = (kubeconfig) => s.startInProcess(kubeconfig);
const EXECUTABLE: Runtime = async (kubeconfig) =>
  (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=10'] }));

/** The ufm entry of the worked example, its Secret in `namespace`. */
function ufmConfig(endpoint: string, opts: { namespace?: string; insecureSkipVerify?: boolean } = {}): string {
  return `networkTopologyDiscovery:
  - source: ufm
    enabled: true
    interval: 1s
    credentials:
      secretRef: {name: ${UFM_SECRET}, namespace: ${opts.namespace ?? NS}}
    config:
      endpoint: "${endpoint}"
${opts.insecureSkipVerify ? '      insecureSkipVerify: true\n' : ''}`;
}

type Event = { type: string; reason: string; message: string };
const events = (api: ApiServer) => api.store.list('events', NS) as unknown as Event[];

/** What neither the log nor any Event may hold. */
function assertNoLeak(api: ApiServer, controller: ControllerRun, secrets: readonly string[]): void {
  const text = `${controller.log()}\n${events(api)
    .map((e) => e.message)
    .join('\n')}`;
  for (const secret of secrets) assert.not.ok(text.includes(secret), `the log or an Event holds ${secret}`);
  assert.not.ok(
    text.includes(Buffer.from(`${USER}:${PASSWORD}`).toString('base64')),
    'the log or an Event holds the Basic header',
  );
}

interface RefusalCase {
  readonly plain?: boolean;
  readonly secret: (endpoint: string) => { namespace?: string; allows: SecretAllows };
  readonly config?: { namespace?: string; insecureSkipVerify?: boolean };
  /** What the DiscovererFailed Event must say: the Secret, the endpoint, the command. */
  readonly refusal: (endpoint: string) => RegExp;
}

const quote = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const NO_LABEL: RefusalCase = {
  secret: (endpoint) => ({ allows: { endpoints: [endpoint], label: false } }),
  refusal: (endpoint) =>
    new RegExp(
      `Secret ${NS}/${UFM_SECRET} is not labelled topology\\.volcano\\.sh/discovery-credentials=true, so its credentials are not sent to the endpoint ${quote(endpoint)}: .*kubectl -n ${NS} label secret ${UFM_SECRET} topology\\.volcano\\.sh/discovery-credentials=true`,
    ),
};

const NOT_NAMED: RefusalCase = {
  secret: () => ({ allows: { endpoints: ['https://ufm.example.com:8443'] } }),
  refusal: (endpoint) =>
    new RegExp(
      `Secret ${NS}/${UFM_SECRET} does not name the endpoint ${quote(endpoint)} in its annotation topology\\.volcano\\.sh/allowed-endpoints \\(it names https://ufm\\.example\\.com:8443\\), so its credentials are not sent there; if that endpoint is meant: kubectl -n ${NS} annotate --overwrite secret ${UFM_SECRET} topology\\.volcano\\.sh/allowed-endpoints=https://ufm\\.example\\.com:8443,${quote(endpoint)}`,
    ),
};

const OTHER_NAMESPACE: RefusalCase = {
  secret: (endpoint) => ({ namespace: OTHER_NS, allows: { endpoints: [endpoint] } }),
  config: { namespace: OTHER_NS },
  refusal: () =>
    new RegExp(
      `secretRef names Secret ${OTHER_NS}/${UFM_SECRET}, outside the controller's namespace ${NS}: .*set secretRef\\.namespace: ${NS}`,
    ),
};

const PLAIN_HTTP: RefusalCase = {
  plain: true,
  secret: (endpoint) => ({ allows: { endpoints: [endpoint] } }),
  refusal: (endpoint) =>
    new RegExp(
      `the endpoint ${quote(endpoint)} is plain http, so the credentials of Secret ${NS}/${UFM_SECRET} would cross the network unencrypted; they are not sent: .*kubectl -n ${NS} annotate secret ${UFM_SECRET} topology\\.volcano\\.sh/allow-plain-http=true`,
    ),
};

const SKIP_VERIFY: RefusalCase = {
  secret: (endpoint) => ({ allows: { endpoints: [endpoint] } }),
  config: { insecureSkipVerify: true },
  refusal: (endpoint) =>
    new RegExp(
      `config\\.insecureSkipVerify turns TLS verification off for ${quote(endpoint)}, .*they are not sent: .*kubectl -n ${NS} annotate secret ${UFM_SECRET} topology\\.volcano\\.sh/allow-insecure-skip-verify=true`,
    ),
};

/** The refusal of `c`: nothing reaches the recorder, the DiscovererFailed Event says why and what to run. */
function refused(c: RefusalCase, runtime: Runtime): () => Promise<void> {
  return async () => {
    // The controller may read Secrets of the other namespace too: the refusal is its own, not RBAC's.
    const read = { apiGroups: [''], resources: ['secrets'], verbs: ['get'], namespaces: [OTHER_NS] };
    const { api, kubeconfig } = await s.startCluster([read]);
    api.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OTHER_NS } });
    const recorder = (s.ufm = await new UfmServer(c.plain ? { plain: true } : {}).start());
    [recorder.username, recorder.password] = [USER, PASSWORD];
    recorder.answer = { kind: 'ports', ports: workedExamplePorts() };
    const endpoint = recorder.endpoint();
    const { namespace = NS, allows } = c.secret(endpoint);
    api.store.create(discoverySecret(namespace, UFM_SECRET, CREDENTIALS, allows));
    for (const n of workedExampleNodes()) api.store.create(n);
    seedConfigMap(api, ufmConfig(endpoint, c.config));
    const controller = await runtime(kubeconfig);
    const refused = () =>
      events(api).find((e) => e.reason === 'DiscovererFailed' && c.refusal(endpoint).test(e.message));
    await s.converge(refused, 'the refusal as a DiscovererFailed Event');
    // Retried with backoff, and still nothing sent.
    await s.converge(() => /failed to start discoverer/.test(controller.log()), 'the refusal in the log');
    assert.equal(recorder.requests, [], 'the endpoint received no request');
    assert.is(
      api.requests.count({ resource: 'secrets', namespace: OTHER_NS }),
      0,
      'no Secret of the other namespace was read',
    );
    assert.equal(hyperNodes(api, 'ufm'), []);
    assertNoLeak(api, controller, [PASSWORD]);
  };
}

function consented(runtime: Runtime): () => Promise<void> {
  return async () => {
    const { api, kubeconfig } = await s.startCluster();
    const ufm = (s.ufm = await new UfmServer().start());
    [ufm.username, ufm.password] = [USER, PASSWORD];
    ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
    api.store.create(
      discoverySecret(NS, UFM_SECRET, CREDENTIALS, { endpoints: [ufm.endpoint()], insecureSkipVerify: true }),
    );
    for (const n of workedExampleNodes()) api.store.create(n);
    seedConfigMap(api, ufmConfig(ufm.endpoint(), { insecureSkipVerify: true }));
    const controller = await runtime(kubeconfig);
    await s.converge(() => hyperNodes(api, 'ufm').length === 3, 'the UFM worked example');
    assert.ok(ufm.requests.length > 0);
    for (const r of ufm.requests)
      assert.is(r.authorization, `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`);
    assertNoLeak(api, controller, [PASSWORD]);
  };
}

function graphTokenRefused(runtime: Runtime): () => Promise<void> {
  return async () => {
    const { api, kubeconfig } = await s.startCluster();
    const recorder = await new GraphServer().start();
    try {
      recorder.token = undefined;
      recorder.answer = {
        status: 200,
        body: JSON.stringify(railGraphDocument({ sus: 1, rails: 1, hostsPerSu: 2, spines: 1 })),
      };
      const token = 'graph-token-never-to-leave';
      api.store.create(discoverySecret(NS, 'inventory', { token }, { endpoints: ['https://inventory.example.com'] }));
      for (const n of ['su1-h1', 'su1-h2']) api.store.create(node(n, {}));
      seedConfigMap(
        api,
        `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n    credentials: {secretRef: {name: inventory, namespace: ${NS}}}\n    config: {url: "${recorder.url()}"}\n`,
      );
      const controller = await runtime(kubeconfig);
      await s.converge(
        () =>
          events(api).some(
            (e) =>
              e.reason === 'DiscoveryFailed' &&
              e.message.includes(`Secret ${NS}/inventory does not name the endpoint ${new URL(recorder.url()).origin}`),
          ),
        'the refusal as a DiscoveryFailed Event',
      );
      assert.equal(recorder.authorizations, [], 'the URL received no request');
      assert.equal(hyperNodes(api, 'graph'), []);
      assertNoLeak(api, controller, [token]);
    } finally {
      await recorder.close();
    }
  };
}

function urlSecretsRedacted(runtime: Runtime): () => Promise<void> {
  return async () => {
    const { api, kubeconfig } = await s.startCluster();
    const server = await new GraphServer().start();
    try {
      server.answer = { status: 503, body: '' };
      const url = new URL(server.url());
      url.username = 'admin';
      url.password = 'url-password-in-the-configmap';
      url.searchParams.set('access_token', 'url-token-in-the-query');
      for (const n of ['su1-h1', 'su1-h2']) api.store.create(node(n, {}));
      seedConfigMap(
        api,
        `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n    config: {url: "${url.href}"}\n`,
      );
      const controller = await runtime(kubeconfig);
      const shown = `${url.protocol}//***@${url.host}${url.pathname}?access_token=***`;
      await s.converge(
        () => events(api).some((e) => e.reason === 'DiscoveryFailed' && e.message.includes(shown)),
        'the failure as a DiscoveryFailed Event naming the URL without its secrets',
      );
      await s.converge(() => /repeated=true/.test(controller.log()), 'the failure again, at the next poll');
      assertNoLeak(api, controller, ['url-password-in-the-configmap', 'url-token-in-the-query']);
    } finally {
      await server.close();
    }
  };
}

/** The executable's log lines until its start-up line (it then cannot reach the API server, and is stopped). */
async function startupLines(args: string[]): Promise<string> {
  const [cmd, argv] = existsSync(BINARY) ? [BINARY, args] : [process.execPath, [BUNDLE, ...args]];
  const child = spawn(cmd, argv, { env: cleanEnv({ KUBE_POD_NAMESPACE: NS }), stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  try {
    await waitFor(() => log.includes('Starting vc-hypernode-controller-manager'), { what: 'the start-up line' });
  } finally {
    child.kill('SIGKILL');
  }
  return log;
}

test('a password or token written into --master reaches no log line (the executable)', async () => {
  const log = await startupLines(['--master=https://admin:master-password@127.0.0.1:1/?token=master-token', '-v=10']);
  assert.match(log, 'FLAG: --master="https://***@127.0.0.1:1/?token=***"');
  assert.match(log, 'master="https://***@127.0.0.1:1/?token=***"');
  assert.not.ok(log.includes('master-password') || log.includes('master-token'), log);
});

test(
  'a Secret without the discovery label sends nothing to the endpoint the ConfigMap names (in process)',
  refused(NO_LABEL, IN_PROCESS),
);
test(
  'a Secret without the discovery label sends nothing to the endpoint the ConfigMap names (the executable)',
  refused(NO_LABEL, EXECUTABLE),
);
test(
  "a Secret that does not name the endpoint's origin sends nothing there (in process)",
  refused(NOT_NAMED, IN_PROCESS),
);
test(
  "a Secret that does not name the endpoint's origin sends nothing there (the executable)",
  refused(NOT_NAMED, EXECUTABLE),
);
test(
  'a secretRef to another namespace is refused before the Secret is read, even one naming the endpoint (in process)',
  refused(OTHER_NAMESPACE, IN_PROCESS),
);
test(
  'a secretRef to another namespace is refused before the Secret is read, even one naming the endpoint (the executable)',
  refused(OTHER_NAMESPACE, EXECUTABLE),
);
test(
  "a plain http:// endpoint gets nothing without the Secret's consent (in process)",
  refused(PLAIN_HTTP, IN_PROCESS),
);
test(
  "a plain http:// endpoint gets nothing without the Secret's consent (the executable)",
  refused(PLAIN_HTTP, EXECUTABLE),
);
test(
  "insecureSkipVerify: true sends nothing without the Secret's consent (in process)",
  refused(SKIP_VERIFY, IN_PROCESS),
);
test(
  "insecureSkipVerify: true sends nothing without the Secret's consent (the executable)",
  refused(SKIP_VERIFY, EXECUTABLE),
);
test(
  'a Secret that allows the endpoint sends its credentials there, and only there (in process)',
  consented(IN_PROCESS),
);
test(
  'a Secret that allows the endpoint sends its credentials there, and only there (the executable)',
  consented(EXECUTABLE),
);
test("a graph URL's token goes only to an origin its Secret names (in process)", graphTokenRefused(IN_PROCESS));
test("a graph URL's token goes only to an origin its Secret names (the executable)", graphTokenRefused(EXECUTABLE));
test(
  'a password or token written into a URL reaches no log line and no Event (in process)',
  urlSecretsRedacted(IN_PROCESS),
);
test(
  'a password or token written into a URL reaches no log line and no Event (the executable)',
  urlSecretsRedacted(EXECUTABLE),
);

test.run();
