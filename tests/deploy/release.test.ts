// scripts/release.mjs: assembles the release from what was built, names the
// executable for the machine, packs the kubectl plugin for krew with a filled
// manifest, writes a SHA256SUMS that sha256sum accepts, and signs it with the
// key it is given (refusing to run without one unless told --unsigned).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ARCH,
  ASSET,
  IMAGE_ARCHIVE,
  NAME,
  OTHER_ASSET,
  makeRelease,
  makeSigningKey,
  repoRoot,
  standInBuild,
  testSigningKey,
} from './support/releases.ts';

const work = mkdtempSync(join(tmpdir(), 'release-test-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

test('the release holds both executables with their SBOMs, bundle, map, unit, installer, manifests, kubectl plugin, licence and notices, all listed in SHA256SUMS', () => {
  const dir = makeRelease(work, '1.2.3');
  assert.equal(
    readdirSync(dir).sort(),
    [
      'SHA256SUMS',
      'SHA256SUMS.sig',
      'install.sh',
      'LICENSE',
      'THIRD_PARTY_NOTICES',
      ASSET,
      `${ASSET}.spdx.json`,
      OTHER_ASSET,
      `${OTHER_ASSET}.spdx.json`,
      `${NAME}-kubernetes.tar.gz`,
      `${NAME}.cjs`,
      `${NAME}.cjs.map`,
      `${NAME}.service`,
      `${NAME}-infiniband.conf`,
      'kubectl-hypernode-linux-amd64.tar.gz',
      'kubectl-hypernode-linux-arm64.tar.gz',
      'kubectl-hypernode.krew.yaml',
    ].sort(),
  );
  const check = execFileSync('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' });
  assert.is(check.trim().split('\n').length, 15, 'every file but the signature, which signs SHA256SUMS');
  assert.match(execFileSync(join(dir, ASSET), ['--version'], { encoding: 'utf8' }), /^Version: 1\.2\.3$/m);
});

test('SHA256SUMS is signed with the key given: openssl verifies it with the public half, not with another key', () => {
  const dir = makeRelease(work, '1.2.6');
  const verify = (publicKey: string) =>
    spawnSync('openssl', ['dgst', '-sha256', '-verify', publicKey, '-signature', 'SHA256SUMS.sig', 'SHA256SUMS'], {
      cwd: dir,
      encoding: 'utf8',
    });
  const ok = verify(testSigningKey(work).publicKey);
  assert.is(ok.status, 0, ok.stderr);
  assert.is(ok.stdout.trim(), 'Verified OK');
  assert.is(verify(makeSigningKey(work, 'another').publicKey).status, 1);
});

test('without a signing key the release is refused unless --unsigned; a key of another kind is refused', () => {
  const dist = join(work, 'dist-unsigned');
  standInBuild(dist, '1.2.7');
  const release = (...args: string[]) =>
    spawnSync(process.execPath, [join(repoRoot, 'scripts/release.mjs'), '--dist', dist, '--no-image', ...args], {
      encoding: 'utf8',
      env: { ...process.env, RELEASE_SIGNING_KEY: '' },
    });
  const refused = release();
  assert.is(refused.status, 1);
  assert.match(refused.stderr, 'no signing key: pass --signing-key FILE or set $RELEASE_SIGNING_KEY');
  const unsigned = release('--unsigned');
  assert.is(unsigned.status, 0, unsigned.stderr);
  assert.not.ok(readdirSync(join(dist, 'release')).includes('SHA256SUMS.sig'));
  const rsa = join(work, 'rsa.pem');
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', rsa]);
  const wrongKind = release('--signing-key', rsa);
  assert.is(wrongKind.status, 1);
  assert.match(wrongKind.stderr, 'is not an ECDSA P-256 key');
  // A key install.sh does not pin is used, with a warning: a mirror signs with its own.
  const mirror = release('--signing-key', makeSigningKey(work, 'mirror').privateKey);
  assert.is(mirror.status, 0, mirror.stderr);
  assert.match(mirror.stderr, 'is not pinned in install.sh; install.sh accepts this release only with --public-key');
});

test('the manifests tarball unpacks to kubernetes/ with every file of deploy/kubernetes', () => {
  const dir = makeRelease(work, '1.2.4');
  const listed = execFileSync('tar', ['-tzf', join(dir, `${NAME}-kubernetes.tar.gz`)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  const expected = readdirSync(join(repoRoot, 'deploy/kubernetes')).map((f) => `kubernetes/${f}`);
  assert.equal(listed.filter((e) => !e.endsWith('/')).sort(), expected.sort());
});

test('the krew manifest names each plugin archive with its checksum; each archive holds the executable as kubectl-hypernode', () => {
  const dir = makeRelease(work, '1.2.5');
  const manifest = readFileSync(join(dir, 'kubectl-hypernode.krew.yaml'), 'utf8');
  assert.not.match(manifest, /\{\{|^#/m, "every placeholder filled, the template's comments left out");
  assert.match(manifest, /^ {2}version: v1\.2\.5$/m);
  const sums = new Map(
    readFileSync(join(dir, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('  ').reverse() as [string, string]),
  );
  for (const arch of ['amd64', 'arm64']) {
    const archive = `kubectl-hypernode-linux-${arch}.tar.gz`;
    assert.match(manifest, `/v1.2.5/${archive}'\n      sha256: '${sums.get(archive)}'\n      bin: kubectl-hypernode\n`);
    assert.equal(
      execFileSync('tar', ['-tzf', join(dir, archive)], { encoding: 'utf8' })
        .trim()
        .split('\n'),
      ['kubectl-hypernode', 'LICENSE'],
    );
  }
  execFileSync('tar', ['-xzf', join(dir, `kubectl-hypernode-linux-${ARCH}.tar.gz`), '-C', work, 'kubectl-hypernode']);
  assert.is(
    readFileSync(join(work, 'kubectl-hypernode'), 'utf8'),
    readFileSync(join(dir, ASSET), 'utf8'),
    'the executable itself',
  );
});

test('an image archive newer than the executables is reused; an older one is rebuilt', () => {
  const dist = join(work, 'dist-with-image');
  standInBuild(dist, '2.0.0');
  mkdirSync(join(dist, 'image'), { recursive: true });
  const archive = join(dist, 'image', IMAGE_ARCHIVE);
  writeFileSync(archive, 'an image built earlier\n');
  const release = () =>
    spawnSync(process.execPath, [join(repoRoot, 'scripts/release.mjs'), '--dist', dist, '--unsigned'], {
      encoding: 'utf8',
    });

  const reused = release();
  assert.is(reused.status, 0, reused.stderr);
  assert.is(readFileSync(join(dist, 'release', IMAGE_ARCHIVE), 'utf8'), 'an image built earlier\n');

  // The stand-in is a shell script, so an attempted image build fails at the loader: proof it was attempted.
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(archive, old, old);
  const rebuilt = release();
  assert.is(rebuilt.status, 1);
  assert.match(rebuilt.stdout, /building the image/);
  assert.match(rebuilt.stderr, /--list .* failed \(is it a dynamically linked amd64 ELF executable\?\)/);
});

test('without a build the release script says to run the build first', () => {
  const empty = join(work, 'empty-dist');
  mkdirSync(empty);
  const res = spawnSync(
    process.execPath,
    [join(repoRoot, 'scripts/release.mjs'), '--dist', empty, '--no-image', '--unsigned'],
    {
      encoding: 'utf8',
    },
  );
  assert.is(res.status, 1);
  assert.match(res.stderr, new RegExp(`${NAME}\\.cjs is missing: run \`npm run build\``));
});

test.run();
