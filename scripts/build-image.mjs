#!/usr/bin/env node
// Builds the `FROM scratch` container image without a container engine: stages
// the root filesystem (the executable at /vc-hypernode-controller-manager plus
// the shared libraries `ldd` lists), then writes an OCI image layout and an
// oci-archive tar of it. The image's USER and ENTRYPOINT come from
// deploy/image/Dockerfile, so an engine build of that file gives the same image.
// Mirrors Volcano's `vc-hypernode-controller-manager-image` Makefile target.
//
// Usage: node scripts/build-image.mjs [--executable FILE] [--out DIR]
//   defaults: dist/vc-hypernode-controller-manager, dist/image
// Writes OUT/rootfs/, OUT/oci/ and OUT/vc-hypernode-controller-manager-image-linux-<arch>.oci.tar.
// SOURCE_DATE_EPOCH, when set, fixes every timestamp (reproducible images).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, copyFileSync, chmodSync, renameSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';

export const NAME = 'vc-hypernode-controller-manager';
const root = fileURLToPath(new URL('..', import.meta.url));
const TAR_BLOCK = 512;

/** Go's name for this machine's architecture (`linux/<arch>` in --version). */
export function goArch(arch = process.arch) {
  const names = { x64: 'amd64', arm64: 'arm64' };
  if (!(arch in names)) throw new Error(`unsupported architecture ${arch}: releases exist for amd64 and arm64`);
  return names[arch];
}

export function imageArchiveName(arch = goArch()) {
  return `${NAME}-image-linux-${arch}.oci.tar`;
}

/** The version an executable reports on its `Version:` line (src/version.ts). */
export function executableVersion(executable) {
  const out = execFileSync(executable, ['--version'], { encoding: 'utf8' });
  const m = out.match(/^Version: (.+)$/m);
  if (!m) throw new Error(`${executable} --version printed no "Version:" line:\n${out}`);
  return m[1];
}

/** Timestamp (seconds) for every file and the image config: SOURCE_DATE_EPOCH or the given fallback. */
export function buildEpoch(fallbackSeconds) {
  const env = process.env.SOURCE_DATE_EPOCH;
  if (env === undefined || env === '') return Math.floor(fallbackSeconds);
  if (!/^\d+$/.test(env)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds, got "${env}"`);
  return Number(env);
}

// ---- tar (ustar) writer: deterministic, streams file contents ----

function octal(value, width) {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function tarHeader({ name, type, mode, size, mtime }) {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name longer than 100 bytes: ${name}`);
  const h = Buffer.alloc(TAR_BLOCK);
  h.write(name, 0);
  h.write(octal(mode, 8), 100);
  h.write(octal(0, 8), 108); // uid
  h.write(octal(0, 8), 116); // gid
  h.write(octal(size, 12), 124);
  h.write(octal(mtime, 12), 136);
  h.write('        ', 148); // checksum field counts as spaces while summing
  h.write(type === 'dir' ? '5' : '0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/**
 * Tar chunks for entries `{ name, type: 'dir' | 'file', mode, mtime, path? | data? }`
 * (directories' names end with `/`; files come from `path` on disk or `data`).
 */
async function* tarChunks(entries) {
  for (const e of entries) {
    const size = e.type === 'dir' ? 0 : e.data ? e.data.length : statSync(e.path).size;
    yield tarHeader({ ...e, size });
    if (e.type === 'dir') continue;
    if (e.data) yield e.data;
    else for await (const chunk of createReadStream(e.path)) yield chunk;
    const pad = (TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK;
    if (pad) yield Buffer.alloc(pad);
  }
  yield Buffer.alloc(2 * TAR_BLOCK);
}

function hashTap(hash, counter) {
  return new Transform({
    transform(chunk, _enc, done) {
      hash.update(chunk);
      if (counter) counter.bytes += chunk.length;
      done(null, chunk);
    },
  });
}

/**
 * Writes a tar (gzip-compressed when `gzip`) of `entries` to `outPath`.
 * Returns the sha256 of the uncompressed tar (an OCI diff_id), the sha256 and
 * size of the file written.
 */
export async function writeTar(entries, outPath, { gzip = false } = {}) {
  const raw = createHash('sha256');
  const written = createHash('sha256');
  const counter = { bytes: 0 };
  const stages = [Readable.from(tarChunks(entries)), hashTap(raw)];
  // Level 9 takes three times as long for 0.5% less.
  if (gzip) stages.push(createGzip({ level: 6 }));
  stages.push(hashTap(written, counter), createWriteStream(outPath));
  await pipeline(stages);
  return { diffId: `sha256:${raw.digest('hex')}`, digest: `sha256:${written.digest('hex')}`, size: counter.bytes };
}

/** Tar entries for everything under `dir`, sorted, names relative to it (`prefix` prepended). */
export function treeEntries(dir, mtime, prefix = '') {
  const out = [];
  const walk = (abs) => {
    for (const name of readdirSync(abs).sort()) {
      const p = join(abs, name);
      const st = statSync(p);
      const rel = prefix + relative(dir, p);
      if (st.isDirectory()) {
        out.push({ name: `${rel}/`, type: 'dir', mode: 0o755, mtime });
        walk(p);
      } else {
        out.push({ name: rel, type: 'file', mode: st.mode & 0o777, mtime, path: p });
      }
    }
  };
  walk(dir);
  return out;
}

// ---- image ----

/** USER and ENTRYPOINT from the Dockerfile, which may only use the instructions the engine-less build reproduces. */
export function readDockerfile(path = join(root, 'deploy/image/Dockerfile')) {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const result = { user: '', entrypoint: [] };
  for (const line of lines) {
    const [, instruction, rest] = line.match(/^(\S+)\s+(.*)$/) ?? [];
    if (instruction === 'FROM' && rest === 'scratch') continue;
    if (instruction === 'COPY' && rest === 'rootfs/ /') continue;
    if (instruction === 'USER') result.user = rest;
    else if (instruction === 'ENTRYPOINT') result.entrypoint = JSON.parse(rest);
    else throw new Error(`${path}: scripts/build-image.mjs reproduces only FROM scratch, COPY rootfs/ /, USER and ENTRYPOINT; found "${line}"`);
  }
  if (!result.user || result.entrypoint.length === 0) throw new Error(`${path}: needs USER and an exec-form ENTRYPOINT`);
  return result;
}

/** The absolute paths of the shared libraries (and the loader) `ldd` reports for an executable. */
export function sharedLibraries(executable) {
  let out;
  try {
    out = execFileSync('ldd', [executable], { encoding: 'utf8' });
  } catch (err) {
    throw new Error(`ldd ${executable} failed (is it a dynamically linked ELF executable?): ${err.stderr || err.message}`);
  }
  const libs = [];
  for (const line of out.split('\n')) {
    const m = line.match(/(?:=>\s*)?(\/\S+)\s+\(0x/);
    if (m) libs.push(m[1]);
    else if (/not found/.test(line)) throw new Error(`ldd ${executable}: ${line.trim()}`);
  }
  return libs.sort();
}

/** Stages the root filesystem: the executable at `/<entrypoint>` and each library at the path ldd named (symlinks resolved to files). */
export function stageRootfs(executable, rootfs, entrypoint) {
  rmSync(rootfs, { recursive: true, force: true });
  const place = (src, target, mode) => {
    const dest = join(rootfs, target);
    mkdirSync(dirname(dest), { recursive: true });
    copyFileSync(src, dest);
    chmodSync(dest, mode);
  };
  place(executable, entrypoint, 0o755);
  for (const lib of sharedLibraries(executable)) place(lib, lib, statSync(lib).mode & 0o777);
}

function writeBlob(blobsDir, data) {
  const digest = `sha256:${createHash('sha256').update(data).digest('hex')}`;
  writeFileSync(join(blobsDir, digest.slice('sha256:'.length)), data);
  return { digest, size: data.length };
}

/**
 * Builds the image from `executable` into `out`; returns what it wrote:
 * `{ archive, layout, rootfs, version, arch, layerSize, rootfsSize, manifestDigest }`.
 */
export async function buildImage({ executable = join(root, 'dist', NAME), out = join(root, 'dist/image') } = {}) {
  const { user, entrypoint } = readDockerfile();
  const arch = goArch();
  const version = executableVersion(executable);
  const mtime = buildEpoch(statSync(executable).mtimeMs / 1000);
  const created = new Date(mtime * 1000).toISOString();

  const rootfs = join(out, 'rootfs');
  stageRootfs(executable, rootfs, entrypoint[0]);

  const layout = join(out, 'oci');
  const blobs = join(layout, 'blobs/sha256');
  rmSync(layout, { recursive: true, force: true });
  mkdirSync(blobs, { recursive: true });

  const layerTmp = join(blobs, 'layer.tmp');
  const layer = await writeTar(treeEntries(rootfs, mtime), layerTmp, { gzip: true });
  renameSync(layerTmp, join(blobs, layer.digest.slice('sha256:'.length)));

  const labels = { 'org.opencontainers.image.title': NAME, 'org.opencontainers.image.version': version };
  const config = {
    created,
    architecture: arch,
    os: 'linux',
    config: { User: user, Entrypoint: entrypoint, Labels: labels },
    rootfs: { type: 'layers', diff_ids: [layer.diffId] },
    history: [{ created, created_by: 'scripts/build-image.mjs: COPY rootfs/ / (deploy/image/Dockerfile)' }],
  };
  const configBlob = writeBlob(blobs, Buffer.from(JSON.stringify(config)));
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...configBlob },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layer.digest, size: layer.size }],
    annotations: labels,
  };
  const manifestBlob = writeBlob(blobs, Buffer.from(JSON.stringify(manifest)));
  const index = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      {
        mediaType: manifest.mediaType,
        ...manifestBlob,
        platform: { architecture: arch, os: 'linux' },
        annotations: { 'org.opencontainers.image.ref.name': version },
      },
    ],
  };
  writeFileSync(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(join(layout, 'index.json'), JSON.stringify(index));

  const archive = join(out, imageArchiveName(arch));
  await writeTar(treeEntries(layout, mtime), archive);
  const rootfsSize = treeEntries(rootfs, mtime)
    .filter((e) => e.type === 'file')
    .reduce((sum, e) => sum + statSync(e.path).size, 0);
  return { archive, layout, rootfs, version, arch, layerSize: layer.size, rootfsSize, manifestDigest: manifestBlob.digest };
}

function mib(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function main() {
  const { values } = parseArgs({ options: { executable: { type: 'string' }, out: { type: 'string' } } });
  const started = Date.now();
  const image = await buildImage(values);
  console.log(`image ${NAME}:${image.version} (linux/${image.arch}) ${image.manifestDigest}`);
  console.log(`  root filesystem ${mib(image.rootfsSize)}, compressed layer ${mib(image.layerSize)}, archive ${mib(statSync(image.archive).size)}`);
  console.log(`  ${relative(process.cwd(), image.archive)}  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(`build-image: ${err.message}`);
    process.exit(1);
  });
}
