// Node single executable applications for one target: the stripped Node.js
// they are injected into, the V8 flags baked into them and given to the blob
// builder, and the build itself (a blob with V8's code cache, made by the very
// node it is injected into, natively or under qemu). Used by scripts/build.mjs
// for the shipped executables and by scripts/bench-startup.mjs for an empty
// one that separates the runtime's start-up from ours.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cacheDir, nodePackageDir, runner, stripCommand } from './targets.mjs';

/**
 * V8 flags baked into the executable. A controller holds a small, long-lived
 * cache and values memory over allocation speed: a 1 MB young generation
 * (instead of growing to 64 MB) cuts the steady-state RSS at 10,000 Nodes by
 * ~35 MB (scripts/bench-controller.ts) and costs nothing at start-up. Heap
 * heuristics that do cost start-up time are set by src/main.ts when the
 * controller starts. The blob's code cache must be made under the same flags,
 * or V8 rejects it at start-up (with a warning on stderr).
 */
const SEA_V8_FLAGS = ['--max-semi-space-size=1'];

/**
 * Given to the node that makes the blob, never to the executable. With a
 * random V8 seed every build's code cache differs (~25 KB of the blob; the
 * string hash seed is drawn from it, and fixing --hash-seed alone also makes
 * it stable), so no two builds were byte-identical. A fixed seed makes the
 * code cache a function of the bundle alone. V8 leaves --random-seed out of
 * the flag hash it checks a code cache against (--hash-seed is in it), so the
 * executable, which starts with a fresh seed every time, still accepts the
 * cache; scripts/build.mjs fails on the "Code cache data rejected" warning if
 * it ever does not.
 */
const BLOB_BUILDER_V8_FLAGS = ['--random-seed=1'];

/**
 * `target`'s Node.js with its symbols stripped (before injection: stripping
 * after breaks the SEA). Cached per content of the node binary, so a changed
 * package under the same version is stripped afresh.
 */
export function strippedNode(target) {
  const node = join(nodePackageDir(target), 'bin/node');
  const digest = createHash('sha256').update(readFileSync(node)).digest('hex').slice(0, 16);
  const cached = join(cacheDir, `node-linux-${target.arch}-${digest}-stripped`);
  if (!existsSync(cached)) {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.partial`;
    copyFileSync(node, partial);
    chmodSync(partial, 0o755);
    const strip = stripCommand(target);
    try {
      execFileSync(strip, [partial], { stdio: 'inherit' });
    } catch (err) {
      throw new Error(`could not strip the copied ${target.arch} node binary with ${strip}: ${err.message}`);
    }
    renameSync(partial, cached);
  }
  return cached;
}

/**
 * Writes the executable `out` for `target` that runs the CommonJS script
 * `main`, through the SEA config file `config`. The blob is made by the very
 * node it is injected into, natively or under qemu: a code cache made by
 * another architecture's V8 would be rejected at start-up. The blob records
 * main's path as given, so the builder runs in main's directory and is given
 * the file name alone: a checkout elsewhere builds the same bytes.
 */
export function makeSea({ target, main, out, config }) {
  const partial = `${out}.partial`;
  const node = strippedNode(target);
  writeFileSync(
    config,
    JSON.stringify({
      main: basename(main),
      output: partial,
      executable: node,
      mainFormat: 'commonjs',
      disableExperimentalSEAWarning: true,
      // V8's code cache saves ~28 ms per start (~260 ms under qemu); BLOB_BUILDER_V8_FLAGS keep it reproducible.
      useCodeCache: true,
      // Neither NODE_OPTIONS nor --node-options may turn the shipped binary into a debugger or loader.
      execArgvExtension: 'none',
      execArgv: SEA_V8_FLAGS,
    }),
  );
  const [command, ...args] = runner(target, node);
  execFileSync(command, [...args, ...SEA_V8_FLAGS, ...BLOB_BUILDER_V8_FLAGS, '--build-sea', config], {
    cwd: dirname(main),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  chmodSync(partial, 0o755);
  renameSync(partial, out);
}
