#!/usr/bin/env node
// Assembles the release directory from what `npm run build` and
// scripts/build-image.mjs produced (it rebuilds nothing that is already
// built): the executable as vc-hypernode-controller-manager-linux-<arch>, the
// bundle and its source map, the systemd unit, install.sh, a tarball of the
// Kubernetes manifests, the OCI image archive, and SHA256SUMS over all of
// them (the file install.sh verifies against). Counterpart of Volcano's
// Makefile `image_bins` / `save-images` targets.
//
// Usage: node scripts/release.mjs [--dist DIR] [--out DIR] [--no-image]
//   defaults: dist, dist/release (emptied first, so no stale file is listed).
//   The image archive is taken from DIST/image/ when it is newer than the
//   executable, otherwise built there first.

import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NAME, buildEpoch, buildImage, executableVersion, goArch, imageArchiveName, treeEntries, writeTar } from './build-image.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

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

/** The image archive for `executable`: reused from `imageDir` when it is newer than the executable, else built. */
async function imageArchive(executable, imageDir) {
  const archive = join(imageDir, imageArchiveName());
  if (existsSync(archive) && statSync(archive).mtimeMs >= statSync(executable).mtimeMs) {
    console.log(`using ${relative(process.cwd(), archive)} (newer than the executable)`);
    return archive;
  }
  console.log('building the image (scripts/build-image.mjs)');
  return (await buildImage({ executable, out: imageDir })).archive;
}

/** Writes the release into `out`; returns the names written (SHA256SUMS last). */
async function release({ dist = join(root, 'dist'), out = join(dist, 'release'), image = true } = {}) {
  const executable = requireFile(join(dist, NAME), 'run `npm run build` first');
  const bundle = requireFile(join(dist, `${NAME}.cjs`), 'run `npm run build` first');
  const sourceMap = requireFile(join(dist, `${NAME}.cjs.map`), 'run `npm run build` first');
  const version = executableVersion(executable);
  const arch = goArch();

  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const copies = [
    [executable, `${NAME}-linux-${arch}`, 0o755],
    [bundle, `${NAME}.cjs`, 0o644],
    [sourceMap, `${NAME}.cjs.map`, 0o644],
    [join(root, 'deploy/systemd', `${NAME}.service`), `${NAME}.service`, 0o644],
    [join(root, 'install.sh'), 'install.sh', 0o755],
  ];
  if (image) copies.push([await imageArchive(executable, join(dist, 'image')), imageArchiveName(arch), 0o644]);
  for (const [src, name, mode] of copies) {
    copyFileSync(src, join(out, name));
    chmodSync(join(out, name), mode);
  }
  const mtime = buildEpoch(statSync(executable).mtimeMs / 1000);
  await writeTar(treeEntries(join(root, 'deploy/kubernetes'), mtime, 'kubernetes/'), join(out, `${NAME}-kubernetes.tar.gz`), { gzip: true });

  const names = readdirSync(out).sort();
  const lines = [];
  for (const name of names) lines.push(`${await sha256File(join(out, name))}  ${name}\n`);
  writeFileSync(join(out, 'SHA256SUMS'), lines.join(''));
  return { version, arch, names: [...names, 'SHA256SUMS'] };
}

async function main() {
  const { values } = parseArgs({ options: { dist: { type: 'string' }, out: { type: 'string' }, 'no-image': { type: 'boolean' } } });
  const dist = values.dist ?? join(root, 'dist');
  const out = values.out ?? join(dist, 'release');
  const result = await release({ dist, out, image: !values['no-image'] });
  console.log(`release ${result.version} (linux/${result.arch}) in ${relative(process.cwd(), out) || out}:`);
  for (const name of result.names) console.log(`  ${(statSync(join(out, name)).size / 1024 / 1024).toFixed(1).padStart(7)} MiB  ${name}`);
}

main().catch((err) => {
  console.error(`release: ${err.message}`);
  process.exit(1);
});
