// `plan` through what ships (the SEA, else the bundle on this Node), against
// the API server stand-in: the subcommand is recognised as the first
// argument, finds the discovery ConfigMap through KUBE_POD_NAMESPACE and
// HELM_RELEASE_NAME as the controller does, exits 2 with the six creates of
// the worked example, and answers --help with the controller's client flags.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import { cleanEnv } from '../support/run-command.ts';
import { within } from '../../testing/wait.ts';
import { NS, TOPOLOGY_A3_CONFIG, seedConfigMap, workedExampleNodes } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const s = session(test);
const RUN_DEADLINE_MS = 60_000;

/** Runs the shipped executable without blocking this process (the stand-in answers from it). */
function shipped(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!existsSync(BINARY) && !existsSync(BUNDLE))
    throw new Error(`${BINARY} is missing: run \`node scripts/build.mjs\` first`);
  const [cmd, argv] = existsSync(BINARY) ? [BINARY, args] : [process.execPath, [BUNDLE, ...args]];
  const run = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(cmd, argv, { env: cleanEnv(env), encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
  return within(run, RUN_DEADLINE_MS, `${cmd} ${args.join(' ')}`);
}

test('the executable plans the worked example from the discovery ConfigMap: six creates, exit 2', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  const result = await shipped(['plan', `--kubeconfig=${kubeconfig}`, '-o', 'json'], {
    KUBE_POD_NAMESPACE: NS,
    HELM_RELEASE_NAME: 'volcano',
  });
  assert.is(result.code, 2, result.stderr);
  assert.equal(JSON.parse(result.stdout).summary, { create: 6, update: 0, delete: 0, held: 0 });
  assert.equal(api.requests.writes(), []);
});

test('plan --help prints its usage with the controller client flags and exits 0', async () => {
  const help = await shipped(['plan', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stderr, /Usage of \S+ plan:/);
  assert.match(
    help.stderr,
    /--kube-api-qps float32 +QPS to use while talking with the Kubernetes API server\. \(default 50\)/,
  );
  assert.match(
    help.stderr,
    /-o, --output string +Output format: text \(for people\), json \(the same as data\), or html/,
  );
  assert.match(help.stderr, /Exit codes: 0 no changes, 2 changes \(held deletes included/);
});

test.run();
