#!/usr/bin/env node
// Assembles the release directory: the executables as
// vc-hypernode-controller-manager-linux-<arch> (every architecture built in
// DIST), the bundle and its source map, the systemd unit and its drop-in for
// InfiniBand hosts, install.sh, a tarball of the Kubernetes manifests, the
// multi-arch OCI image archive,
// LICENSE, THIRD_PARTY_NOTICES, an SPDX 2.3 SBOM per executable and per image
// platform, the kubectl plugin's archives (kubectl-hypernode-linux-<arch>.tar.gz)
// and its krew manifest filled from deploy/krew/hypernode.yaml, SHA256SUMS
// over all of them, and SHA256SUMS.sig, the release key's signature of it
// (install.sh checks the signature, then every file against SHA256SUMS).
// Counterpart of Volcano's Makefile `image_bins` / `save-images`.
//
// Usage: node scripts/release.mjs [--build] [--check-reproducible] [--dist DIR] [--out DIR] [--no-image]
// [--krew-base-url URL] (--signing-key FILE | --unsigned)
//   --signing-key FILE    the release's private key (PEM, ECDSA P-256), never kept in the
//                         repository; or its PEM text in $RELEASE_SIGNING_KEY. Signs
//                         SHA256SUMS into SHA256SUMS.sig (ECDSA over SHA-256, DER), which
//                         `openssl dgst -sha256 -verify` checks. A key whose public half
//                         install.sh does not pin is used with a warning (a mirror's key)
//   --unsigned            no signature: a release for trying things out, which install.sh
//                         refuses
//   --build               first build the bundle and both executables (amd64, arm64)
//                         into DIST (the same build as `npm run build`, code cache
//                         included); without it, nothing already built is rebuilt
//   --check-reproducible  then do it all again into OUT.again and fail unless
//                         every file is byte-identical
//   --krew-base-url URL   where the release is published (its files under URL/v<version>/),
//                         for the krew manifest's URLs; default: a placeholder to replace
//   defaults: dist, dist/release (emptied first, so no stale file is listed).
//   The image archive is taken from DIST/image/ when it is newer than the
//   executables, otherwise built there first.

import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  IMAGE_ARCHIVE,
  NAME,
  buildEpoch,
  buildImage,
  builtTargets,
  executableVersion,
  treeEntries,
  versionText,
  writeTar,
} from './build-image.mjs';
import { executableSbom, imageSbom, licensePath, spdxDate, thirdPartyNotices } from './lib/supply-chain.mjs';
import { ARCHES, executablePath, nodePackageDir, root } from './lib/targets.mjs';

function sha256File(path) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function requireFile(path, hint) {
  if (!existsSync(path)) throw new Error(`${relative(process.cwd(), path) || path} is missing: ${hint}`);
  return path;
}

/** The image for the executables in `dist`: reused from `imageDir` when newer than all of them, else built. */
async function image(dist, imageDir, targets, docs) {
  const archive = join(imageDir, IMAGE_ARCHIVE);
  const newest = Math.max(...targets.map((t) => statSync(executablePath(t, dist)).mtimeMs));
  if (existsSync(archive) && statSync(archive).mtimeMs >= newest) {
    console.log(`using ${relative(process.cwd(), archive)} (newer than the executables)`);
    return { archive, platforms: undefined };
  }
  console.log('building the image (scripts/build-image.mjs)');
  return buildImage({ dist, out: imageDir, docs });
}

/** What the SBOM says of the executable for `target`. */
async function executableFacts(target, path, packages) {
  const text = versionText(target, path);
  const nodeVersion = text.match(/^Go Version: node (v\S+)$/m)?.[1];
  if (!nodeVersion) throw new Error(`${path} --version names no Node.js runtime:\n${text}`);
  return {
    arch: target.arch,
    version: executableVersion(target, path),
    sha256: await sha256File(path),
    packages,
    node: { version: nodeVersion, package: target.nodePackage },
  };
}

/** The name under which the executable is the kubectl plugin (src/main.ts). */
const PLUGIN = 'kubectl-hypernode';
const KREW_BASE_URL_PLACEHOLDER = 'https://RELEASES.EXAMPLE/vc-hypernode-controller-manager';

/**
 * One archive per architecture holding the executable as kubectl-hypernode
 * (krew links its `bin` under that name too) and LICENSE, and the krew
 * manifest with their URLs and checksums.
 */
async function krewPlugin(out, targets, version, epoch, baseUrl) {
  const sums = {};
  for (const target of targets) {
    const archive = join(out, `${PLUGIN}-linux-${target.arch}.tar.gz`);
    const entries = [
      { name: PLUGIN, type: 'file', mode: 0o755, mtime: epoch, path: join(out, `${NAME}-linux-${target.arch}`) },
      { name: 'LICENSE', type: 'file', mode: 0o644, mtime: epoch, path: licensePath() },
    ];
    await writeTar(entries, archive, { gzip: true });
    sums[target.arch] = await sha256File(archive);
  }
  const fill = {
    VERSION: version,
    BASE_URL: baseUrl,
    SHA256_AMD64: sums.amd64 ?? 'NOT-BUILT',
    SHA256_ARM64: sums.arm64 ?? 'NOT-BUILT',
  };
  const template = readFileSync(join(root, 'deploy/krew/hypernode.yaml'), 'utf8');
  const manifest = template.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, key) => fill[key]).replace(/^#.*\n/gm, '');
  writeFileSync(join(out, `${PLUGIN}.krew.yaml`), manifest);
}

/** The public keys install.sh pins (its RELEASE_PUBLIC_KEYS), as DER in base64, to compare keys by. */
function pinnedPublicKeys() {
  const script = readFileSync(join(root, 'install.sh'), 'utf8');
  const block = /^RELEASE_PUBLIC_KEYS='([^']*)'/m.exec(script)?.[1] ?? '';
  const pems = block.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
  return pems.map((pem) => createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64'));
}

/** The signing key from --signing-key FILE or $RELEASE_SIGNING_KEY: an ECDSA P-256 private key. */
function signingKey(file, env) {
  const pem = file !== undefined ? readFileSync(file, 'utf8') : env;
  const from = file !== undefined ? file : '$RELEASE_SIGNING_KEY';
  let key;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new Error(`${from} is not a PEM private key: ${err.message}`);
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error(
      `${from} is not an ECDSA P-256 key (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 makes one)`,
    );
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
  if (!pinnedPublicKeys().includes(spki))
    console.warn(
      `release: warning: the public half of ${from} is not pinned in install.sh; install.sh accepts this release only with --public-key`,
    );
  return key;
}

/** Writes the release into `out`; returns the names written (SHA256SUMS and its signature last). */
async function release({ dist, out, withImage, krewBaseUrl, key }) {
  const hint = 'run `npm run build` (or this script with --build) first';
  const bundle = requireFile(join(dist, `${NAME}.cjs`), hint);
  const sourceMap = requireFile(join(dist, `${NAME}.cjs.map`), hint);
  const packages = JSON.parse(readFileSync(requireFile(join(dist, `${NAME}.packages.json`), hint), 'utf8'));
  const targets = builtTargets(dist);
  if (targets.length === 0) requireFile(join(dist, NAME), hint);
  const versions = new Set(targets.map((t) => executableVersion(t, executablePath(t, dist))));
  if (versions.size !== 1)
    throw new Error(`the executables in ${dist} report different versions: ${[...versions].join(', ')}`);
  const [version] = versions;
  const epoch = buildEpoch(Math.max(...targets.map((t) => statSync(executablePath(t, dist)).mtimeMs)) / 1000);
  const created = spdxDate(epoch);

  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const notices = join(out, 'THIRD_PARTY_NOTICES');
  writeFileSync(
    notices,
    thirdPartyNotices(
      packages,
      targets.map((t) => ({ version: nodePackageVersion(t), dir: nodePackageDir(t) })),
    ),
  );
  const copies = [
    [bundle, `${NAME}.cjs`, 0o644],
    [sourceMap, `${NAME}.cjs.map`, 0o644],
    [join(root, 'deploy/systemd', `${NAME}.service`), `${NAME}.service`, 0o644],
    [join(root, 'deploy/systemd/infiniband.conf'), `${NAME}-infiniband.conf`, 0o644],
    [join(root, 'install.sh'), 'install.sh', 0o755],
    [licensePath(), 'LICENSE', 0o644],
  ];
  const facts = {};
  for (const target of targets) {
    const path = executablePath(target, dist);
    copies.push([path, `${NAME}-linux-${target.arch}`, 0o755]);
    facts[target.arch] = await executableFacts(target, path, packages);
    writeFileSync(
      join(out, `${NAME}-linux-${target.arch}.spdx.json`),
      `${JSON.stringify(executableSbom(facts[target.arch], created), null, 2)}\n`,
    );
  }
  if (withImage) {
    const built = await image(dist, join(dist, 'image'), targets, {
      LICENSE: licensePath(),
      THIRD_PARTY_NOTICES: notices,
    });
    copies.push([built.archive, IMAGE_ARCHIVE, 0o644]);
    // A reused archive comes with no platform facts: its SBOMs were written by the release that built it.
    for (const p of built.platforms ?? []) {
      const sbom = imageSbom(facts[p.arch], p, p.debs, created);
      writeFileSync(join(out, `${NAME}-image-linux-${p.arch}.spdx.json`), `${JSON.stringify(sbom, null, 2)}\n`);
    }
  }
  for (const [src, name, mode] of copies) {
    copyFileSync(src, join(out, name));
    chmodSync(join(out, name), mode);
  }
  await writeTar(
    treeEntries(join(root, 'deploy/kubernetes'), epoch, 'kubernetes/'),
    join(out, `${NAME}-kubernetes.tar.gz`),
    { gzip: true },
  );
  await krewPlugin(out, targets, version, epoch, krewBaseUrl);

  const names = readdirSync(out).sort();
  const lines = [];
  for (const name of names) lines.push(`${await sha256File(join(out, name))}  ${name}\n`);
  writeFileSync(join(out, 'SHA256SUMS'), lines.join(''));
  if (!key) return { version, arches: targets.map((t) => t.arch), names: [...names, 'SHA256SUMS'] };
  // DER-encoded ECDSA, what `openssl dgst -sha256 -verify` reads. Not listed in SHA256SUMS, which it signs.
  writeFileSync(join(out, 'SHA256SUMS.sig'), sign('sha256', Buffer.from(lines.join('')), key));
  return { version, arches: targets.map((t) => t.arch), names: [...names, 'SHA256SUMS', 'SHA256SUMS.sig'] };
}

function nodePackageVersion(target) {
  return JSON.parse(readFileSync(join(nodePackageDir(target), 'package.json'), 'utf8')).version;
}

function build(dist) {
  const args = [join(root, 'scripts/build.mjs'), ...ARCHES.flatMap((a) => ['--arch', a]), '--out', dist];
  execFileSync(process.execPath, args, { stdio: 'inherit' });
  // The image is rebuilt from these executables, never reused from an earlier build.
  rmSync(join(dist, 'image'), { recursive: true, force: true });
}

/** The names whose content differs between two release directories (or exist in one only). */
function differences(a, b) {
  const sums = (dir) => readFileSync(join(dir, 'SHA256SUMS'), 'utf8');
  if (sums(a) === sums(b)) return [];
  const parse = (dir) =>
    new Map(
      sums(dir)
        .trim()
        .split('\n')
        .map((l) => l.split('  ').reverse()),
    );
  const [x, y] = [parse(a), parse(b)];
  return [...new Set([...x.keys(), ...y.keys()])].filter((n) => x.get(n) !== y.get(n)).sort();
}

async function main() {
  const { values } = parseArgs({
    options: {
      dist: { type: 'string' },
      out: { type: 'string' },
      'no-image': { type: 'boolean' },
      build: { type: 'boolean' },
      'check-reproducible': { type: 'boolean' },
      'krew-base-url': { type: 'string' },
      'signing-key': { type: 'string' },
      unsigned: { type: 'boolean' },
    },
  });
  const envKey = process.env.RELEASE_SIGNING_KEY || undefined;
  if (values.unsigned && (values['signing-key'] !== undefined || envKey))
    throw new Error('--unsigned and a signing key (--signing-key or $RELEASE_SIGNING_KEY) exclude each other');
  if (!values.unsigned && values['signing-key'] === undefined && !envKey)
    throw new Error(
      'no signing key: pass --signing-key FILE or set $RELEASE_SIGNING_KEY to sign SHA256SUMS (docs/deploy.md, "How a release is signed"), or --unsigned for a release install.sh will refuse',
    );
  const key = values.unsigned ? undefined : signingKey(values['signing-key'], envKey);
  const dist = resolve(values.dist ?? join(root, 'dist'));
  const out = resolve(values.out ?? join(dist, 'release'));
  const started = Date.now();
  const once = async (into) => {
    if (values.build) build(dist);
    return release({
      dist,
      out: into,
      withImage: !values['no-image'],
      krewBaseUrl: (values['krew-base-url'] ?? KREW_BASE_URL_PLACEHOLDER).replace(/\/+$/, ''),
      key,
    });
  };
  const result = await once(out);
  console.log(
    `release ${result.version} (linux/${result.arches.join(', linux/')}) in ${relative(process.cwd(), out) || out} (${((Date.now() - started) / 1000).toFixed(0)} s):`,
  );
  for (const name of result.names)
    console.log(`  ${(statSync(join(out, name)).size / 1024 / 1024).toFixed(1).padStart(7)} MiB  ${name}`);
  if (values['check-reproducible']) {
    const again = `${out}.again`;
    if (!values.build) rmSync(join(dist, 'image'), { recursive: true, force: true });
    await once(again);
    const differ = differences(out, again);
    if (differ.length > 0)
      throw new Error(`a second build differs in: ${differ.join(', ')} (compare ${out} with ${again})`);
    rmSync(again, { recursive: true, force: true });
    console.log(
      `reproducible: a second build gave byte-identical files (${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
    );
  }
}

main().catch((err) => {
  console.error(`release: ${err.message}`);
  process.exit(1);
});
