// docs/security.md §7: `plan` runs on the operator's machine with the
// operator's identity, so the cluster's configuration must not make it run a
// program, read a Secret or reach an endpoint the operator did not ask for.
// The cluster's ConfigMap has a ufm entry whose endpoint is a recorder (the
// UFM stand-in) with a Secret that allows it, and an ibnetdiscover entry
// whose command is `ibnetdiscover`, which here is a script on PATH that leaves
// a marker when run. Without --use-cluster-credentials plan runs nothing,
// reads no Secret and sends nothing; with it, it prints which Secret goes
// where before reading any, still runs nothing, and refuses a Secret outside
// the controller's namespace. In this process and through the shipped
// executable, also as `kubectl hypernode plan`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import { discoverySecret } from '../../testing/discovery-secret.ts';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import { UfmServer } from '../../testing/ufm-server.ts';
import { within } from '../../testing/wait.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { cleanEnv } from '../support/run-command.ts';
import { NS, UFM_SECRET, seedConfigMap, workedExampleNodes, workedExamplePorts } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const s = session(test);
const OPERATOR = 'operator';
const OTHER_NS = 'team-b';
const PASSWORD = 'ufm-password-for-the-controller';
const LIVE = '--use-cluster-credentials';
/** The UFM stand-in listens on loopback, which plan asks only in the networks the operator allows. */
const ALLOW_LOOPBACK = '--allow-url-cidr=127.0.0.1/32';
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-sec-plan-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How plan is run: in this process, or what ships (also under the plugin's name). */
interface Runner {
  readonly name: string;
  run(args: string[], env: Record<string, string>, announce?: (text: string) => void): Promise<Run>;
}

function shipped(argv0: 'vc-hypernode-controller-manager' | 'kubectl-hypernode'): Runner['run'] {
  return (args, env) => {
    if (!existsSync(BINARY) && !existsSync(BUNDLE)) throw new Error(`${BINARY} is missing: run \`npm run build\``);
    let cmd: string;
    let argv: string[];
    if (argv0 === 'kubectl-hypernode') {
      cmd = join(dir, 'kubectl-hypernode');
      symlinkSync(existsSync(BINARY) ? BINARY : BUNDLE, cmd);
      argv = ['plan', ...args];
    } else
      [cmd, argv] = existsSync(BINARY) ? [BINARY, ['plan', ...args]] : [process.execPath, [BUNDLE, 'plan', ...args]];
    const done = new Promise<Run>((resolve) => {
      execFile(cmd, argv, { env: cleanEnv(env), encoding: 'utf8' }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
    });
    return within(done, 60_000, `${argv0} plan`);
  };
}

const IN_PROCESS: Runner = {
  name: 'in process',
  // A program plan ran would be looked up on this process's PATH: the marking ibnetdiscover comes first there too.
  run: async (args, env, announce) => {
    const path = process.env.PATH;
    process.env.PATH = env.PATH;
    try {
      return await plan(args, 'vc-hypernode-controller-manager', {
        color: false,
        env,
        ...(announce ? { announce } : {}),
      });
    } finally {
      process.env.PATH = path;
    }
  },
};
const EXECUTABLE: Runner = { name: 'the executable', run: shipped('vc-hypernode-controller-manager') };
const PLUGIN: Runner = { name: 'kubectl hypernode plan', run: shipped('kubectl-hypernode') };

interface Scene {
  readonly api: ApiServer;
  readonly ufm: UfmServer;
  readonly kubeconfig: string;
  /** The environment plan runs with: the controller's namespace, and PATH with the marking `ibnetdiscover` first. */
  readonly env: Record<string, string>;
  /** Exists once anything ran the `ibnetdiscover` of PATH. */
  readonly marker: string;
}

/** The cluster: a ufm entry (its Secret allowing the recorder) and an ibnetdiscover entry with a command. */
async function scene(secretNamespace = NS): Promise<Scene> {
  const { api } = await s.startCluster();
  api.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OTHER_NS } });
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.password = PASSWORD;
  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
  for (const n of workedExampleNodes()) api.store.create(n);
  api.store.create(
    discoverySecret(
      secretNamespace,
      UFM_SECRET,
      { username: ufm.username, password: PASSWORD },
      {
        endpoints: [ufm.endpoint()],
        insecureSkipVerify: true,
      },
    ),
  );
  seedConfigMap(
    api,
    `networkTopologyDiscovery:
  - source: ufm
    enabled: true
    credentials:
      secretRef: {name: ${UFM_SECRET}, namespace: ${secretNamespace}}
    config:
      endpoint: "${ufm.endpoint()}"
      insecureSkipVerify: true
  - source: ibnetdiscover
    enabled: true
    config:
      fabric: compute
      command: [ibnetdiscover, -C, mlx5_0, -P, "1"]
`,
  );
  // The operator may read everything plan reads, Secrets of every namespace included.
  const read = (apiGroups: string[], resources: string[]) => ({ apiGroups, resources, verbs: ['get', 'list'] });
  const token = api.addUser(OPERATOR, [
    read([''], ['nodes', 'configmaps', 'secrets']),
    read(['topology.volcano.sh'], ['hypernodes']),
  ]);
  const kubeconfig = api.writeKubeconfig(dir, { token, fileName: 'operator.yaml' });
  const marker = join(dir, 'ran');
  writeFileSync(join(dir, 'ibnetdiscover'), `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(join(dir, 'ibnetdiscover'), 0o755);
  return {
    api,
    ufm,
    kubeconfig,
    marker,
    env: {
      KUBE_POD_NAMESPACE: NS,
      HELM_RELEASE_NAME: 'volcano',
      PATH: `${dir}:${process.env.PATH ?? ''}`,
      KUBECONFIG: '',
    },
  };
}

const secretReads = (api: ApiServer) => api.requests.count({ user: OPERATOR, resource: 'secrets' });

/** Without the flag: no program, no Secret, no request. */
function askedNothing(runner: Runner): () => Promise<void> {
  return async () => {
    const { api, ufm, kubeconfig, env, marker } = await scene();
    const r = await runner.run([`--kubeconfig=${kubeconfig}`], env);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /^warning: source "ufm" is planned from the 0 HyperNode\(s\) it has in the cluster/m);
    assert.match(r.stderr, /^warning: source "ibnetdiscover" is planned from .*plan never runs ibnetdiscover/m);
    assert.not.ok(existsSync(marker), "the ConfigMap's command ran");
    assert.equal(ufm.requests, [], 'the endpoint received a request');
    assert.is(secretReads(api), 0, 'a Secret was read');
    assert.not.ok(`${r.stdout}${r.stderr}`.includes(PASSWORD));
  };
}

/** With the flag: the Secret and its endpoint named before any Secret is read; still no program. */
function listedFirst(runner: Runner): () => Promise<void> {
  return async () => {
    const { api, ufm, kubeconfig, env, marker } = await scene();
    const announced: string[] = [];
    const r = await runner.run([`--kubeconfig=${kubeconfig}`, LIVE, ALLOW_LOOPBACK], env, (text) =>
      announced.push(`${text.trimEnd()} [${secretReads(api)} Secret reads]`),
    );
    assert.is(r.code, 2, r.stderr);
    const note = `note: plan reads Secret ${NS}/${UFM_SECRET} and sends its credentials to ${ufm.endpoint()}, if the Secret allows it (source "ufm", fabric ufm)`;
    if (runner.name === 'in process') assert.equal(announced, [`${note} [0 Secret reads]`]);
    else assert.ok(r.stderr.startsWith(`${note}\n`), r.stderr);
    assert.ok(ufm.requests.length > 0, 'UFM was asked, as the operator said');
    assert.match(r.stderr, /^warning: source "ibnetdiscover" is planned from .*plan never runs ibnetdiscover/m);
    assert.not.ok(existsSync(marker), "the ConfigMap's command ran");
    // Read at the source's start and again before its poll, as the controller does: that Secret only.
    assert.equal(
      [...new Set(api.requests.all({ user: OPERATOR, resource: 'secrets' }).map((q) => `${q.namespace}/${q.name}`))],
      [`${NS}/${UFM_SECRET}`],
    );
    assert.not.ok(`${r.stdout}${r.stderr}`.includes(PASSWORD));
  };
}

/** With the flag, a Secret of another namespace: named as refused, never read, nothing sent. */
function otherNamespaceRefused(runner: Runner): () => Promise<void> {
  return async () => {
    const { api, ufm, kubeconfig, env, marker } = await scene(OTHER_NS);
    const r = await runner.run([`--kubeconfig=${kubeconfig}`, LIVE, ALLOW_LOOPBACK], env);
    assert.is(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      `note: plan refuses Secret ${OTHER_NS}/${UFM_SECRET}, outside the controller's namespace ${NS} (source "ufm", fabric ufm)`,
    );
    assert.match(
      r.stderr,
      `secretRef names Secret ${OTHER_NS}/${UFM_SECRET}, outside the controller's namespace ${NS}`,
    );
    assert.is(secretReads(api), 0, 'a Secret was read');
    assert.equal(ufm.requests, [], 'the endpoint received a request');
    assert.not.ok(existsSync(marker));
  };
}

test(
  "plan without --use-cluster-credentials runs no program, reads no Secret and sends nothing to the ConfigMap's endpoint (in process)",
  askedNothing(IN_PROCESS),
);
test(
  "plan without --use-cluster-credentials runs no program, reads no Secret and sends nothing to the ConfigMap's endpoint (the executable)",
  askedNothing(EXECUTABLE),
);
test(
  "plan without --use-cluster-credentials runs no program, reads no Secret and sends nothing to the ConfigMap's endpoint (kubectl hypernode plan)",
  askedNothing(PLUGIN),
);
test(
  'plan --use-cluster-credentials names each Secret and endpoint before reading any, and still runs no program (in process)',
  listedFirst(IN_PROCESS),
);
test(
  'plan --use-cluster-credentials names each Secret and endpoint before reading any, and still runs no program (the executable)',
  listedFirst(EXECUTABLE),
);
test(
  'plan --use-cluster-credentials names each Secret and endpoint before reading any, and still runs no program (kubectl hypernode plan)',
  listedFirst(PLUGIN),
);
test(
  "plan --use-cluster-credentials refuses a Secret outside the controller's namespace: it is not read and nothing is sent (in process)",
  otherNamespaceRefused(IN_PROCESS),
);
test(
  "plan --use-cluster-credentials refuses a Secret outside the controller's namespace: it is not read and nothing is sent (the executable)",
  otherNamespaceRefused(EXECUTABLE),
);
test(
  "plan --use-cluster-credentials refuses a Secret outside the controller's namespace: it is not read and nothing is sent (kubectl hypernode plan)",
  otherNamespaceRefused(PLUGIN),
);

test.run();
