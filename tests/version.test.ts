import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { API_VERSION, BUILT, GIT_SHA, goPlatform, runtimeVersion, VERSION, versionText } from '../src/version.ts';

test('from the sources nothing is injected: each build field reads "Not provided."', () => {
  assert.is(VERSION, 'Not provided.');
  assert.is(GIT_SHA, 'Not provided.');
  assert.is(BUILT, 'Not provided.');
  assert.is(API_VERSION, 'v1alpha1');
});

test('the version text is six labelled lines, each ending in a newline', () => {
  const lines = versionText().split('\n');
  assert.is(lines.pop(), '');
  assert.equal(
    lines.map((l) => l.slice(0, l.indexOf(':') + 1)),
    ['API Version:', 'Version:', 'Git SHA:', 'Built At:', 'Go Version:', 'Go OS/Arch:'],
  );
  assert.is(lines[4], `Go Version: node ${process.version}`);
});

test('the runtime line names Deno when running under Deno', () => {
  assert.is(runtimeVersion(), `node ${process.version}`);
  const g = globalThis as { Deno?: unknown };
  g.Deno = { version: { deno: '2.9.6' } };
  try {
    assert.is(runtimeVersion(), 'deno 2.9.6');
  } finally {
    delete g.Deno;
  }
});

test('platforms use Go names', () => {
  const table: [string, string, string][] = [
    ['linux', 'x64', 'linux/amd64'],
    ['linux', 'arm64', 'linux/arm64'],
    ['linux', 'ia32', 'linux/386'],
    ['linux', 'ppc64', 'linux/ppc64le'],
    ['linux', 's390x', 'linux/s390x'],
    ['darwin', 'arm64', 'darwin/arm64'],
    ['win32', 'x64', 'windows/amd64'],
  ];
  for (const [platform, arch, want] of table) assert.is(goPlatform(platform, arch), want);
});

test.run();
