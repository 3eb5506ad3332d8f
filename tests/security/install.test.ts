// The release host and install.sh, and the bare node it installs
// (docs/security.md §8): whoever serves the release files cannot make
// install.sh take them over plain http unless the operator says so, follow
// a redirect from https to http, or install, and above all run, a binary the
// release key did not sign for: a swapped binary with a SHA256SUMS computed
// again (unsigned, with the old signature, or signed with another key) is
// refused before it is even downloaded, and the marker the fake binary would
// write stays absent. By default the key is the one pinned in install.sh.
// The unit install.sh writes serves /metrics on loopback only (the built
// executable, run with the unit's flags in a network namespace of its own).

import { createHash, createPrivateKey, sign } from 'node:crypto';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BINARY } from '../../testing/executables.ts';
import { missingCommand, missingRoot, testNeeding } from '../support/skip.ts';
import {
  ASSET,
  NAME,
  installerTrust,
  makeRelease,
  makeSigningKey,
  repoRoot,
  runScript,
  startReleaseServer,
  testSigningKey,
  type ReleaseServer,
  type RunResult,
} from '../deploy/support/releases.ts';

const installSh = join(repoRoot, 'install.sh');
const work = mkdtempSync(join(tmpdir(), 'install-security-'));
/** The file a swapped binary writes when it is run at all, even for --version. */
const MARKER = join(work, 'the-swapped-binary-ran');
let https: ReleaseServer;
let http: ReleaseServer;
let good = '';

test.before(async () => {
  https = await startReleaseServer();
  http = await startReleaseServer({ tls: false });
  good = makeRelease(work, '1.0.0');
  for (const s of [https, http]) s.publish('1.0.0', good);
});
test.after(async () => {
  await https.close();
  await http.close();
  rmSync(work, { recursive: true, force: true });
});

/** install.sh into a new root under the work directory, trusting the test CA; `env` on top. */
async function install(
  server: ReleaseServer,
  label: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<RunResult & { root: string; requests: string[] }> {
  const root = join(work, `root-${label}`);
  const before = server.requests.length;
  const res = await runScript(installSh, ['--root', root, '--skip-systemd', ...args], {
    ...installerTrust(work),
    ...env,
  });
  return { ...res, root, requests: server.requests.slice(before) };
}

/** Every file under `dir`, relative; none when it does not exist. */
function files(dir: string): string[] {
  return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).sort() : [];
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * A copy of the good release whose binary is a script that leaves MARKER
 * behind when run, with SHA256SUMS computed again over it: what a release
 * host (or anyone on the way) can serve without the release key.
 */
function swappedRelease(name: string): string {
  const dir = join(work, name);
  cpSync(good, dir, { recursive: true });
  writeFileSync(
    join(dir, ASSET),
    `#!/bin/sh\ntouch '${MARKER}'\nprintf 'API Version: v1alpha1\\nVersion: 1.0.0\\n'\n`,
    { mode: 0o755 },
  );
  const sums = readFileSync(join(good, 'SHA256SUMS'), 'utf8').replace(
    new RegExp(`^[0-9a-f]{64}(  ${ASSET})$`, 'm'),
    `${sha256(join(dir, ASSET))}$1`,
  );
  writeFileSync(join(dir, 'SHA256SUMS'), sums);
  return dir;
}

test('an http:// release URL is refused before anything is downloaded, unless --allow-http is given', async () => {
  const refused = await install(http, 'http', ['--base-url', http.baseUrl, '--version', '1.0.0']);
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, `refusing the http:// release URL ${http.baseUrl}`);
  assert.match(refused.stderr, '--allow-http (INSTALL_VC_HNC_ALLOW_HTTP=true)');
  assert.equal(refused.requests, [], 'not one request');
  assert.equal(files(refused.root), []);
  const allowed = await install(http, 'http-allowed', ['--base-url', http.baseUrl, '--version', '1.0.0'], {
    INSTALL_VC_HNC_ALLOW_HTTP: 'true',
  });
  assert.is(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /SHA256SUMS from .* is signed by the public key/, 'checked all the same');
  const other = await install(http, 'ftp', ['--base-url', 'ftp://127.0.0.1/releases']);
  assert.is.not(other.code, 0);
  assert.match(other.stderr, 'the release URL must start with https://');
});

test('a redirect from https to http is not followed', async () => {
  // Answers every request with a redirect to the same path on the http server.
  const redirector = createServer(
    {
      cert: readFileSync(join(repoRoot, 'testing/tls/server.crt')),
      key: readFileSync(join(repoRoot, 'testing/tls/server.key')),
    },
    (req, res) => res.writeHead(302, { Location: `${new URL(http.baseUrl).origin}${req.url}` }).end(),
  );
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
  try {
    const base = `https://127.0.0.1:${(redirector.address() as AddressInfo).port}/releases`;
    const res = await install(http, 'redirect', ['--base-url', base, '--version', '1.0.0']);
    assert.is.not(res.code, 0);
    assert.match(res.stderr, `could not download ${base}/1.0.0/SHA256SUMS`);
    assert.equal(res.requests, [], 'the http server was never asked');
  } finally {
    redirector.closeAllConnections();
    await new Promise((r) => redirector.close(r));
  }
});

test('a swapped binary with SHA256SUMS computed again is refused and never run: unsigned, old signature, another key', async () => {
  const stale = swappedRelease('swapped-stale-signature');
  const unsigned = swappedRelease('swapped-unsigned');
  rmSync(join(unsigned, 'SHA256SUMS.sig'));
  const resigned = swappedRelease('swapped-resigned');
  const attacker = makeSigningKey(work, 'attacker');
  writeFileSync(
    join(resigned, 'SHA256SUMS.sig'),
    sign('sha256', readFileSync(join(resigned, 'SHA256SUMS')), createPrivateKey(readFileSync(attacker.privateKey))),
  );
  https.publish('swapped-stale', stale);
  https.publish('swapped-unsigned', unsigned);
  https.publish('swapped-resigned', resigned);

  for (const version of ['swapped-stale', 'swapped-resigned']) {
    const res = await install(https, version, ['--base-url', https.baseUrl, '--version', version]);
    assert.is.not(res.code, 0, version);
    assert.match(res.stderr, /the signature of SHA256SUMS from .* does not verify with the public key/, version);
    assert.match(res.stderr, 'Nothing was run, installed or changed.');
    assert.not.ok(
      res.requests.some((r) => r.endsWith(ASSET)),
      `${version}: the binary was not even downloaded`,
    );
    assert.equal(files(res.root), [], version);
  }
  const res = await install(https, 'unsigned', ['--base-url', https.baseUrl, '--version', 'swapped-unsigned']);
  assert.is.not(res.code, 0);
  assert.match(res.stderr, `could not download ${https.baseUrl}/swapped-unsigned/SHA256SUMS.sig`);
  assert.equal(files(res.root), []);

  // The same from a local copy of the release.
  const local = await install(https, 'local-swapped', ['--bin-file', join(stale, ASSET)]);
  assert.is.not(local.code, 0);
  assert.match(local.stderr, 'does not verify');
  const localUnsigned = await install(https, 'local-unsigned', ['--bin-file', join(unsigned, ASSET)]);
  assert.is.not(localUnsigned.code, 0);
  assert.match(localUnsigned.stderr, 'is not signed (no SHA256SUMS.sig)');

  assert.not.ok(existsSync(MARKER), 'the swapped binary was run');
});

test('by default the release key pinned in install.sh is the one that counts: a release signed otherwise is refused', async () => {
  const { INSTALL_VC_HNC_PUBLIC_KEY: _, ...trustWithoutKey } = installerTrust(work);
  const root = join(work, 'root-pinned');
  const res = await runScript(
    installSh,
    ['--root', root, '--skip-systemd', '--base-url', https.baseUrl, '--version', '1.0.0'],
    trustWithoutKey,
  );
  assert.is.not(res.code, 0);
  assert.match(res.stderr, 'does not verify with the release key pinned in install.sh');
  assert.equal(files(root), []);
  // The pinned key is a P-256 public key, and the test key is not it.
  const pinned = /^RELEASE_PUBLIC_KEYS='([^']*)'/m.exec(readFileSync(installSh, 'utf8'))![1]!;
  assert.match(pinned, /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----$/);
  assert.not.ok(pinned.includes(readFileSync(testSigningKey(work).publicKey, 'utf8').split('\n')[1]!));
});

/** Why the unit cannot be run in a network namespace of its own here, if it cannot. */
function missingNetworkNamespace(): string | undefined {
  if (!existsSync(BINARY)) return `${BINARY} is missing: run \`npm run build\` first`;
  return missingRoot() ?? missingCommand('unshare', 'util-linux') ?? missingCommand('ip', 'iproute2');
}

testNeeding(missingNetworkNamespace())(
  'the bare-node unit serves /metrics on loopback only, probes on every address',
  async () => {
    // The unit's ExecStart, its continuation lines joined, run as systemd would (the kubeconfig credential aside).
    const unit = readFileSync(join(repoRoot, 'deploy/systemd', `${NAME}.service`), 'utf8').replace(/\\\n\s*/g, ' ');
    const argv = /^ExecStart=(.*)$/m.exec(unit)![1]!.trim().split(/\s+/);
    const flags = argv
      .slice(1)
      .filter((a) => a !== '$VC_HNC_EXTRA_FLAGS')
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the systemd specifier in the unit
      .map((a) => a.replace('${CREDENTIALS_DIRECTORY}/kubeconfig', join(work, 'kubeconfig')));
    // An API server that is not there: the probes and /metrics are served all the same.
    writeFileSync(
      join(work, 'kubeconfig'),
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n',
    );
    // In a namespace of its own, with a second address on loopback standing for the node's own.
    const script = `set -eu
ip link set lo up
ip addr add 10.200.0.1/32 dev lo
"$@" >"${join(work, 'unit.log')}" 2>&1 &
pid=$!
trap 'kill $pid' EXIT
for i in $(seq 100); do curl -sf -o /dev/null http://10.200.0.1:11251/healthz && break; sleep 0.1; done
echo "healthz on the node address: $(curl -s -o /dev/null -w '%{http_code}' http://10.200.0.1:11251/healthz)"
echo "metrics on loopback: $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8081/metrics)"
echo "metrics on the node address: $(curl -s -o /dev/null -w '%{http_code}' http://10.200.0.1:8081/metrics || true)"
`;
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('unshare', ['--net', 'sh', '-c', script, 'sh', BINARY, ...flags], {
        env: { PATH: process.env.PATH ?? '', KUBE_POD_NAMESPACE: 'volcano-system', HELM_RELEASE_NAME: 'volcano' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', () => (clearTimeout(timer), resolve(text)));
    });
    assert.match(out, 'healthz on the node address: 200', out);
    assert.match(out, 'metrics on loopback: 200', out);
    assert.match(out, 'metrics on the node address: 000', 'the connection is refused');
  },
);

test.run();
