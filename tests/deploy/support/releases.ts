// Test releases and the loopback server that hands them to install.sh: each
// release is made by scripts/release.mjs from a stand-in executable (a shell
// script answering --version like the real one), so the installer is tested
// against the real release layout and the real systemd unit. Releases are
// signed with a key pair made for the test run, never the project's: install.sh
// is handed its public half through --public-key (INSTALL_VC_HNC_PUBLIC_KEY),
// the option of a mirror that signs what it serves. The server speaks HTTPS
// with the test CA (testing/tls), which curl trusts through CURL_CA_BUNDLE and
// wget through a WGETRC file.

import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
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

/** A signing key pair as PEM files. */
export interface SigningKey {
  readonly privateKey: string;
  readonly publicKey: string;
}

/** A new ECDSA P-256 key pair written into `dir` as `<name>.pem` and `<name>.pub.pem`. */
export function makeSigningKey(dir: string, name: string): SigningKey {
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  mkdirSync(dir, { recursive: true });
  const key = { privateKey: join(dir, `${name}.pem`), publicKey: join(dir, `${name}.pub.pem`) };
  writeFileSync(key.privateKey, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(key.publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  return key;
}

/** The key pair test releases under `workDir` are signed with, made on first use. */
export function testSigningKey(workDir: string): SigningKey {
  const key = {
    privateKey: join(workDir, 'test-release-key.pem'),
    publicKey: join(workDir, 'test-release-key.pub.pem'),
  };
  return existsSync(key.privateKey) ? key : makeSigningKey(workDir, 'test-release-key');
}

/**
 * Builds the release of a stand-in `version` with scripts/release.mjs (no
 * image), signed with testSigningKey(workDir), and returns its directory.
 */
export function makeRelease(workDir: string, version: string): string {
  const dist = join(workDir, `dist-${version}`);
  standInBuild(dist, version);
  const out = join(dist, 'release');
  const key = testSigningKey(workDir).privateKey;
  execFileSync(
    process.execPath,
    [join(repoRoot, 'scripts/release.mjs'), '--dist', dist, '--out', out, '--no-image', '--signing-key', key],
    { stdio: 'pipe', timeout: 60_000 },
  );
  return out;
}

/** The test CA that signed the release server's certificate. */
export const TEST_CA = join(repoRoot, 'testing/tls/ca.crt');

/** What install.sh needs in its environment to take the test releases: the CA for curl and wget, the public key. */
export function installerTrust(workDir: string): Record<string, string> {
  const wgetrc = join(workDir, 'wgetrc');
  if (!existsSync(wgetrc)) writeFileSync(wgetrc, `ca_certificate = ${TEST_CA}\n`);
  return {
    CURL_CA_BUNDLE: TEST_CA,
    WGETRC: wgetrc,
    INSTALL_VC_HNC_PUBLIC_KEY: testSigningKey(workDir).publicKey,
  };
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

/**
 * A static file server on 127.0.0.1 for release directories, over HTTPS with
 * the test CA's certificate (plain HTTP with `tls: false`); records every request.
 */
export async function startReleaseServer(opts: { tls?: boolean } = {}): Promise<ReleaseServer> {
  const versions = new Map<string, string>();
  const requests: string[] = [];
  const tls = opts.tls ?? true;
  const serve = (req: IncomingMessage, res: ServerResponse) => {
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
  };
  const tlsFile = (name: string) => readFileSync(join(repoRoot, 'testing/tls', name));
  const server = tls
    ? createHttpsServer({ cert: tlsFile('server.crt'), key: tlsFile('server.key') }, serve)
    : createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/releases`,
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
