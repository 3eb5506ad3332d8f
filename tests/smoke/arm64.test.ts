// The linux-arm64 executable, built here from the current sources on the
// amd64 build machine (scripts/build.mjs --arch arm64 into a temporary
// directory) and run under qemu-user-static: the command-line smoke checks
// and one controller run against the API server stand-in until the README
// demo's HyperNode tree is written. Kept to a few runs: every start under
// qemu costs about a second. Skipped, with the reason, where qemu, the arm64
// C libraries or the cross strip are missing.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: plain JavaScript build helpers, no type declarations
import { TARGETS, executablePath, hostTarget, missingEmulation, runner } from '../../scripts/lib/targets.mjs';
import { hypernodeControllerRbac, startApiServer } from '../../testing/apiserver/index.ts';
import {
  DEMO_SHAPE,
  SAMPLE_DISCOVERY_CONFIG,
  discoveryConfigMap,
  expectedHyperNodeCount,
  sampleNodes,
} from '../../testing/sample-cluster.ts';
import { freePorts } from '../../testing/ports.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { repoRoot, runCommand } from '../support/run-command.ts';
import { missingCommand, testNeeding } from '../support/skip.ts';

const arm64 = TARGETS.arm64;
const missing =
  hostTarget().arch === 'arm64'
    ? undefined
    : (missingEmulation(arm64) ?? missingCommand('aarch64-linux-gnu-strip', 'binutils-aarch64-linux-gnu'));
const arm64Test = testNeeding(missing);
const NAMESPACE = 'volcano-system';
const LEASE = 'vc-hypernode-controller-manager';

const out = mkdtempSync(join(tmpdir(), 'arm64-build-'));
let command: string[] = [];

test.before(() => {
  if (missing) return;
  const started = Date.now();
  execFileSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), '--arch', 'arm64', '--out', out], {
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 300_000,
  });
  console.log(`built the arm64 executable in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  command = runner(arm64, executablePath(arm64, out));
});
test.after(() => rmSync(out, { recursive: true, force: true }));

function run(args: string[]) {
  const [cmd, ...pre] = command;
  return runCommand(cmd!, [...pre, ...args], { timeoutMs: 60_000 });
}

arm64Test(
  '--version: six lines on stdout naming linux/arm64 and the build the bundle reports, nothing on stderr',
  () => {
    const started = Date.now();
    const r = run(['--version']);
    console.log(`--version under qemu: ${Date.now() - started} ms`);
    assert.is(r.status, 0);
    assert.is(r.stderr, '', 'no warning (a code cache made for another architecture would be rejected with one)');
    const lines = r.stdout.trimEnd().split('\n');
    assert.is(lines.length, 6, r.stdout);
    assert.is(lines[5], 'Go OS/Arch: linux/arm64');
    const bundle = runCommand(process.execPath, [join(out, 'vc-hypernode-controller-manager.cjs'), '--version'])
      .stdout.trimEnd()
      .split('\n');
    assert.equal(lines.slice(0, 4), bundle.slice(0, 4));
  },
);

arm64Test('--help: usage on stderr, exit 0', () => {
  const r = run(['--help']);
  assert.is(r.status, 0);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^Usage of .+:\n {6}--add-dir-header /);
});

arm64Test('a parse error exits 2 and a validation error exits 1, with their messages', () => {
  const parse = run(['--version', '--bogus']);
  assert.is(parse.status, 2);
  assert.ok(parse.stderr.endsWith('\nunknown flag: --bogus\n'), parse.stderr.slice(-80));
  const invalid = run(['--kube-api-qps=0', '--leader-elect-lease-duration=5s']);
  assert.is(invalid.status, 1);
  assert.is(
    invalid.stderr,
    'kube-api-qps must be greater than zero\nleaderElection.leaseDuration: Invalid value: "10s": must be greater than `RenewDeadline`\n',
  );
});

arm64Test('the controller writes the demo cluster HyperNode tree and exits 0 on SIGTERM', async () => {
  const api = await startApiServer({ namespaces: [NAMESPACE] });
  const work = mkdtempSync(join(tmpdir(), 'arm64-controller-'));
  try {
    const token = api.addUser(
      `system:serviceaccount:${NAMESPACE}:volcano-hypernode-controller`,
      hypernodeControllerRbac(NAMESPACE, LEASE),
    );
    const kubeconfig = api.writeKubeconfig(work, { token });
    for (const node of sampleNodes(DEMO_SHAPE)) api.store.create(node);
    api.store.create(discoveryConfigMap(NAMESPACE, SAMPLE_DISCOVERY_CONFIG));
    const expected = expectedHyperNodeCount(DEMO_SHAPE);
    const [health, metrics] = await freePorts(2);
    const [cmd, ...pre] = command;
    const args = [
      `--kubeconfig=${kubeconfig}`,
      '--leader-elect=true',
      `--leader-elect-resource-namespace=${NAMESPACE}`,
      `--leader-elect-resource-name=${LEASE}`,
    ];
    args.push(
      '--enable-healthz=true',
      `--healthz-address=127.0.0.1:${health}`,
      `--listen-address=127.0.0.1:${metrics}`,
    );
    const started = Date.now();
    const child = spawn(cmd!, [...pre, ...args], {
      env: { ...process.env, KUBE_POD_NAMESPACE: NAMESPACE, HELM_RELEASE_NAME: 'volcano' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(
        () => {
          const hns = api.store.list('hypernodes') as Array<{ status?: { nodeCount?: number } }>;
          return hns.length === expected && hns.every((hn) => (hn.status?.nodeCount ?? 0) > 0);
        },
        { timeoutMs: 120_000, what: `${expected} HyperNodes with their nodeCount` },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nthe controller's log:\n${log}`);
      });
      console.log(
        `controller under qemu: ${expected} HyperNodes written ${((Date.now() - started) / 1000).toFixed(1)} s after start`,
      );
      const forbidden = api.requests.all((r) => r.code === 401 || r.code === 403);
      assert.equal(forbidden, [], 'every call allowed by the least-privilege RBAC');
    } finally {
      child.kill('SIGTERM');
    }
    assert.is(await within(exited, 60_000, 'exit after SIGTERM'), 0, log);
  } finally {
    await api.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
