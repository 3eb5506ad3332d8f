// What the render benchmarks share: their --name N options, the built
// executable (or a clear exit when it is missing), and one `render` of it
// under /usr/bin/time with its CPU time (user + system) and peak RSS.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The value of `--name N`, or `fallback`. */
export function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The built executable; exits with what to run when it is missing. */
export function builtBinary() {
  const binary = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist/vc-hypernode-controller-manager');
  if (!existsSync(binary)) {
    console.error(`${binary} is missing: run node scripts/build.mjs first`);
    process.exit(1);
  }
  return binary;
}

/** Runs `binary render ...args -o json`; its HyperNodes, CPU ms and peak RSS in MB. Throws when render fails. */
export function timedRender(binary, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', binary, 'render', ...args, '-o', 'json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`render failed (${r.status}): ${r.stderr}`);
  const [user, sys, rssKb] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return {
    hyperNodes: JSON.parse(r.stdout).items,
    cpuMs: Math.round((user + sys) * 1000),
    rssMb: Math.round(rssKb / 1024),
  };
}
