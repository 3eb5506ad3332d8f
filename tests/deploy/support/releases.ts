// Test releases and the loopback server that hands them to install.sh: each
// release is made by scripts/release.mjs from a stand-in executable (a shell
// script answering --version like the real one), so the installer is tested
// against the real release layout and the real systemd unit.

import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, createReadStream, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NAME = 'vc-hypernode-controller-manager';
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
/** Go's name for this machine's architecture, as release file names use it. */
export const ARCH = { x64: 'amd64', arm64: 'arm64' }[process.arch as 'x64' | 'arm64'];
export const ASSET = `${NAME}-linux-${ARCH}`;
/** The release's executable for the other architecture. */
export const OTHER_ARCH = ARCH === 'amd64' ? 'arm64' : 'amd64';
export const OTHER_ASSET = `${NAME}-linux-${OTHER_ARCH}`;
export const IMAGE_ARCHIVE = `${NAME}-image.oci.tar`;

/** A shell script that prints the six `--version` lines (as src/version.ts) for `version` on `arch`. */
export function standInExecutable(path: string, version: string, arch = ARCH): void {
  writeFileSync(
    path,
    `#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = --version ]; then
    printf 'API Version: v1alpha1\\nVersion: %s\\nGit SHA: Not provided.\\nBuilt At: Not provided.\\nGo Version: node v26.12.1\\nGo OS/Arch: linux/${arch}\\n' '${version}'
    exit 0
  fi
done
echo "stand-in for ${NAME} ${version}" >&2
`,
  );
  chmodSync(path, 0o755);
}

/** A build directory as scripts/build.mjs leaves it, with stand-in executables for both architectures. */
export function standInBuild(dist: string, version: string): void {
  mkdirSync(dist, { recursive: true });
  standInExecutable(join(dist, NAME), version);
  standInExecutable(join(dist, OTHER_ASSET), version, OTHER_ARCH);
  writeFileSync(join(dist, `${NAME}.cjs`), `// bundle ${version}\n`);
  writeFileSync(join(dist, `${NAME}.cjs.map`), '{"version":3,"sources":[],"mappings":""}\n');
  writeFileSync(join(dist, `${NAME}.packages.json`), '[]\n');
}

/** Builds the release of a stand-in `version` with scripts/release.mjs (no image) and returns its directory. */
export function makeRelease(workDir: string, version: string): string {
  const dist = join(workDir, `dist-${version}`);
  standInBuild(dist, version);
  const out = join(dist, 'release');
  execFileSync(process.execPath, [join(repoRoot, 'scripts/release.mjs'), '--dist', dist, '--out', out, '--no-image'], {
    stdio: 'pipe',
    timeout: 60_000,
  });
  return out;
}

export interface ReleaseServer {
  /** Base URL: releases are served at `<baseUrl>/<version>/<file>`. */
  readonly baseUrl: string;
  /** Paths of every GET so far, in order. */
  readonly requests: string[];
  /** Serves `dir` as release `version`. */
  publish(version: string, dir: string): void;
  close(): Promise<void>;
}

/** A static file server on 127.0.0.1 for release directories; records every request. */
export async function startReleaseServer(): Promise<ReleaseServer> {
  const versions = new Map<string, string>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const [, prefix, version, file] = path.split('/');
    const dir = versions.get(version ?? '');
    const full = dir && file ? normalize(join(dir, file)) : '';
    if (prefix !== 'releases' || !dir || !full.startsWith(dir) || !existsSync(full)) {
      res.writeHead(404).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-length': statSync(full).size });
    createReadStream(full).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/releases`,
    requests,
    publish: (version, dir) => versions.set(version, dir),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs `<shell...> <script> ...args` (shell: `sh`, or a command ending in a
 * shell such as `unshare --mount sh`) with only `env` added to a clean
 * environment (no INSTALL_* leaks in).
 */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
  shell = ['sh'],
): Promise<RunResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INSTALL_')));
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const [cmd, ...pre] = shell as [string, ...string[]];
    const child = spawn(cmd, [...pre, script, ...args], {
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, ms });
    });
  });
}
