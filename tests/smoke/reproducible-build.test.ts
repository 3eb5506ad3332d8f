// The build is a function of the commit: scripts/build.mjs run again into
// another directory gives the bundle, its map and the executable byte for
// byte as in dist/ (what install.sh's SHA256SUMS and anyone rebuilding a
// release rely on), and the executable still carries V8's code cache, which
// saves ~20 ms of every start (~260 ms under qemu). Before the blob builder
// ran with a fixed V8 seed, the code cache differed on every build, so
// releases left it out; before the blob recorded the bundle by a relative
// path, a checkout elsewhere built other bytes.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BINARY, BUNDLE, REPO_ROOT } from '../../testing/executables.ts';

const dist = dirname(BINARY);
const again = mkdtempSync(join(tmpdir(), 'rebuild-'));
test.after(() => rmSync(again, { recursive: true, force: true }));

const built = existsSync(BINARY);
if (!built) console.log(`SKIP reproducible build: ${BINARY} is missing; run \`npm run build\` first`);
const whenBuilt = built ? test : test.skip;

/** Node's SEA blob starts with this magic number (little-endian uint32), then its flags. */
const SEA_BLOB_MAGIC = Buffer.from([0x20, 0xda, 0x43, 0x01]);
/** The flag bit Node sets in the blob header when `useCodeCache` put a code cache in it. */
const SEA_FLAG_CODE_CACHE = 1 << 2;

/**
 * The flags of the SEA blob injected into `executable`: the header whose
 * main-script path is the bundle's name (the same magic bytes also stand in
 * node's own code).
 */
function seaBlobFlags(executable: Buffer): number {
  const mainPath = Buffer.from(basename(BUNDLE));
  for (let at = executable.indexOf(SEA_BLOB_MAGIC); at >= 0; at = executable.indexOf(SEA_BLOB_MAGIC, at + 1)) {
    const header = executable.subarray(at, at + 64);
    const path = header.indexOf(mainPath);
    if (path > 0 && header.readBigUInt64LE(path - 8) === BigInt(mainPath.length)) return header.readUInt32LE(4);
  }
  throw new Error(`no SEA blob naming ${mainPath} in the executable`);
}

whenBuilt('a second build into another directory gives the same bundle, map and executable, byte for byte', () => {
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs'), '--out', again], {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 300_000,
  });
  for (const file of [basename(BUNDLE), `${basename(BUNDLE)}.map`, basename(BINARY)]) {
    const [first, second] = [readFileSync(join(dist, file)), readFileSync(join(again, file))];
    assert.ok(
      first.equals(second),
      `${file} differs between ${dist} and ${again} (${first.length} and ${second.length} bytes)`,
    );
  }
});

whenBuilt('the executable carries a V8 code cache', () => {
  const flags = seaBlobFlags(readFileSync(BINARY));
  assert.ok((flags & SEA_FLAG_CODE_CACHE) !== 0, `SEA blob flags 0x${flags.toString(16)} lack the code-cache bit`);
});

test.run();
