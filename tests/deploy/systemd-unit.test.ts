// deploy/systemd/vc-hypernode-controller-manager.service: systemd accepts it,
// it passes the chart's flags plus the kubeconfig credential and /metrics on
// loopback only, and it keeps its hardening (the exposure score is printed
// for the operator docs). Its drop-in
// for an InfiniBand host (deploy/systemd/infiniband.conf) opens only the MAD
// devices ibnetdiscover needs, and the unit with it keeps the rest.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHART_ARGS } from './support/chart.ts';
import { NAME, repoRoot, standInExecutable } from './support/releases.ts';
import { missingCommand, testNeeding } from '../support/skip.ts';

const unitText = readFileSync(join(repoRoot, 'deploy/systemd', `${NAME}.service`), 'utf8');

/** `key → values` of the [Service] section, continuation lines joined, comments dropped. */
function serviceSection(text: string): Map<string, string[]> {
  const joined = text.replace(/\\\n\s*/g, ' ');
  const section = joined.split(/^\[Service\]$/m)[1]!.split(/^\[/m)[0]!;
  const out = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const m = line.match(/^([A-Za-z]+)=(.*)$/);
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!.trim()]);
  }
  return out;
}

const service = serviceSection(unitText);
const one = (key: string) => {
  const v = service.get(key);
  assert.ok(v && v.length === 1, `${key}= set once`);
  return v![0]!;
};

const analyzeTest = testNeeding(missingCommand('systemd-analyze', 'systemd'));

/**
 * Calls `check` with a copy of the unit whose ExecStart points at a stand-in
 * executable (verify checks that the binary exists).
 */
function withVerifiableUnit(check: (unitPath: string) => void, dropIn = ''): void {
  const dir = mkdtempSync(join(tmpdir(), 'unit-test-'));
  try {
    const exe = join(dir, NAME);
    standInExecutable(exe, '0.0.0');
    const path = join(dir, `${NAME}.service`);
    // A drop-in's settings apply after the unit's, as if its sections followed them in the unit file.
    writeFileSync(path, `${unitText.replace(`ExecStart=/usr/local/bin/${NAME} `, `ExecStart=${exe} `)}\n${dropIn}`);
    check(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('ExecStart passes the kubeconfig credential, the chart flags (minus the shell redirection), /metrics on loopback, then the extra flags', () => {
  const argv = one('ExecStart').split(/\s+/);
  assert.equal(argv, [
    `/usr/local/bin/${NAME}`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a systemd specifier, kept literally, not a template
    '--kubeconfig=${CREDENTIALS_DIRECTORY}/kubeconfig',
    ...CHART_ARGS.filter((a) => a !== '2>&1'),
    // Not the chart's: on a bare node /metrics listens on loopback only.
    '--listen-address=127.0.0.1:8081',
    '$VC_HNC_EXTRA_FLAGS',
  ]);
  assert.is(one('LoadCredential'), `kubeconfig:/etc/${NAME}/kubeconfig`);
  assert.is(one('EnvironmentFile'), `-/etc/${NAME}/env`);
  assert.is(one('Environment'), 'KUBE_POD_NAMESPACE=volcano-system HELM_RELEASE_NAME=volcano');
  assert.is(one('Type'), 'exec');
  assert.is(one('Restart'), 'on-failure');
});

test('the service is sandboxed, and never forbids the writable-executable memory V8 needs', () => {
  const expected: Record<string, string> = {
    DynamicUser: 'yes',
    NoNewPrivileges: 'yes',
    ProtectSystem: 'strict',
    ProtectHome: 'yes',
    PrivateTmp: 'yes',
    PrivateDevices: 'yes',
    CapabilityBoundingSet: '',
    RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
    LockPersonality: 'yes',
    ProtectKernelTunables: 'yes',
    ProtectKernelModules: 'yes',
    ProtectKernelLogs: 'yes',
    ProtectControlGroups: 'yes',
    ProtectClock: 'yes',
    ProtectHostname: 'yes',
    RestrictNamespaces: 'yes',
    RestrictRealtime: 'yes',
    RestrictSUIDSGID: 'yes',
    SystemCallArchitectures: 'native',
    ProcSubset: 'pid',
  };
  for (const [key, value] of Object.entries(expected)) assert.is(one(key), value, key);
  assert.equal(service.get('SystemCallFilter'), ['@system-service', '~@privileged']);
  assert.not.ok(service.has('MemoryDenyWriteExecute'));
});

analyzeTest('systemd-analyze verify accepts the unit', () => {
  withVerifiableUnit((unit) => {
    const res = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    assert.is(res.status, 0, res.stderr);
    assert.not.match(res.stderr, NAME, res.stderr);
  });
});

analyzeTest('systemd-analyze security rates the unit at most 2.0 (exposure printed)', () => {
  withVerifiableUnit((unit) => {
    const out = execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', unit], {
      encoding: 'utf8',
    });
    const m = out.match(/Overall exposure level for \S+: ([\d.]+) (\w+)/);
    assert.ok(m, out);
    console.log(`systemd-analyze security: exposure ${m![1]} ${m![2]}`);
    assert.ok(Number(m![1]) <= 2.0, out);
  });
});

const dropInText = readFileSync(join(repoRoot, 'deploy/systemd/infiniband.conf'), 'utf8');

test('the InfiniBand drop-in lets the service reach the MAD devices, and changes nothing else', () => {
  const dropIn = serviceSection(dropInText);
  assert.equal(Object.fromEntries([...dropIn].map(([k, v]) => [k, v.join(' | ')])), {
    DynamicUser: 'no',
    PrivateDevices: 'no',
    DevicePolicy: 'closed',
    DeviceAllow: 'char-infiniband_mad rw',
    RestrictAddressFamilies: 'AF_NETLINK',
  });
  // What it leaves: no capability, no new privileges, the system read-only.
  for (const key of ['CapabilityBoundingSet', 'NoNewPrivileges', 'ProtectSystem', 'SystemCallFilter'])
    assert.not.ok(dropIn.has(key), key);
  assert.match(
    dropInText,
    /^# +\/etc\/systemd\/system\/vc-hypernode-controller-manager\.service\.d\/infiniband\.conf$/m,
    'says where it goes',
  );
});

analyzeTest(
  'systemd-analyze verify accepts the unit with the InfiniBand drop-in, and rates it at most 2.5 (exposure printed)',
  () => {
    withVerifiableUnit((unit) => {
      const res = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
      assert.is(res.status, 0, res.stderr);
      assert.not.match(res.stderr, NAME, res.stderr);
      const out = execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', unit], {
        encoding: 'utf8',
      });
      const m = out.match(/Overall exposure level for \S+: ([\d.]+) (\w+)/);
      assert.ok(m, out);
      console.log(`systemd-analyze security, with the InfiniBand drop-in: exposure ${m![1]} ${m![2]}`);
      assert.ok(Number(m![1]) <= 2.5, out);
    }, dropInText);
  },
);

test.run();
