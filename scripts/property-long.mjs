#!/usr/bin/env node
// The long run of the property-based tests: every tests/**/*.property.test.ts
// file with PROPERTY_RUNS cases per property (default 20,000), one file at a
// time, printing cases and wall time per file. A failure prints fast-check's
// seed, path and shrunk counterexample.
//
// Usage: node scripts/property-long.mjs [runs] [path-substring ...]

import { spawnSync } from 'node:child_process';
import { findTestFiles } from './lib/find-tests.mjs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [runsArg, ...filters] = process.argv.slice(2);
const runs = Number(runsArg ?? 20_000);
if (!Number.isSafeInteger(runs) || runs <= 0) {
  console.error(`runs must be a positive integer, got ${runsArg}`);
  process.exit(2);
}

const files = findTestFiles(join(root, 'tests'), '.property.test.ts').filter(
  (f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)),
);
let failed = 0;
for (const f of files) {
  const started = Date.now();
  const res = spawnSync(process.execPath, ['--import', 'tsx', f], {
    cwd: root,
    env: { ...process.env, PROPERTY_RUNS: String(runs), FORCE_COLOR: '0' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = res.status === 0;
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${relative(root, f)}  (${runs} cases per property; ${seconds} s)`);
  if (!ok) console.log(`${res.stdout}${res.stderr}`);
}
console.log(`${files.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
