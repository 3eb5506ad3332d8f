// docs/security.md §1 and §4: whoever edits the discovery ConfigMap chooses
// which of the operator's files is read and which arguments ibnetdiscover
// gets, never a program, an option that writes or reads a file of its own, or
// a file outside the directories the operator allows (--allow-file-dir). And
// whatever file it names, nothing of the file's content shows in an error, an
// Event, a log line at -v=10, a condition or a metric: a message says what the
// file holds (its kind, its size, a line number), never what it says.
//
// Each attack runs against the controller in this process (the API server
// stand-in records the Events and HyperNodes), and the leak and the program
// cases again against the built executable.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_INPUT_POLICY, type InputPolicy } from '../../src/hypernode/model/input-policy.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { NS, seedConfigMap, setDiscoveryConfig } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { assertNoLeak, eventMessages, evidence, fakePrivateKey, fakeServiceAccountToken } from './leak-evidence.ts';

const s = session(test);
let dir = '';
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'sec-files-'));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

/** One entry of `source` polling every second with `config` (YAML lines under `config:`). */
const entry = (source: string, config: string) =>
  `  - source: ${source}\n    enabled: true\n    interval: 1s\n    config:\n${config
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n')}\n`;
const discovery = (...entries: string[]) => `networkTopologyDiscovery:\n${entries.join('')}`;

/** The files only under `allowed`, public URLs only: the shipped bounds with a directory of the test's own. */
const onlyUnder = (allowed: string): InputPolicy => ({ ...DEFAULT_INPUT_POLICY, fileDirs: [allowed] });

/** Waits for an Event of `reason` whose message holds every one of `parts`; returns it. */
const eventSaying = (api: Parameters<typeof eventMessages>[0], reason: string, ...parts: string[]) =>
  s.converge(
    () => eventMessages(api, reason).find((m) => parts.every((p) => m.includes(p))),
    `a ${reason} Event saying ${parts.join(' … ')}`,
  );

/** A would-be program: creates `marker` with its arguments, and prints nothing. */
function markerProgram(name: string, marker: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho "$@" > ${marker}\n`, { mode: 0o755 });
  return path;
}

test('a ConfigMap that names a program, an option that writes a file, or an output file is refused naming it, and nothing runs', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const evilRan = join(dir, 'evil-ran');
  const operatorRan = join(dir, 'operator-ran');
  const evil = markerProgram('evil.sh', evilRan);
  const operator = markerProgram('site-ibnetdiscover', operatorRan);
  seedConfigMap(api, discovery(entry('ibnetdiscover', `command: [${evil}, -C, mlx5_0]`)));
  const run = s.startInProcess(kubeconfig, { ibnetdiscoverCommand: operator, verbosity: 10 });

  await eventSaying(
    api,
    'DiscovererFailed',
    'config.command starts with "',
    "the program is not the ConfigMap's to choose",
    `--ibnetdiscover-command (now ${operator})`,
  );
  setDiscoveryConfig(api, discovery(entry('ibnetdiscover', `command: [ibnetdiscover, --cache, ${dir}/written]`)));
  await eventSaying(api, 'DiscovererFailed', 'config.command passes --cache, which writes its scan to a file');
  setDiscoveryConfig(api, discovery(entry('ibnetdiscover', `command: [ibnetdiscover, -C, mlx5_0, ${dir}/out.txt]`)));
  await eventSaying(
    api,
    'DiscovererFailed',
    'is not an option: ibnetdiscover writes its output to a file named that way',
  );
  setDiscoveryConfig(api, discovery(entry('ibnetdiscover', 'command: [ibnetdiscover, -z, /etc/shadow]')));
  await eventSaying(api, 'DiscovererFailed', 'config.command passes -z, which reads a configuration file');
  assert.not.ok(existsSync(evilRan), "the ConfigMap's program never ran");
  assert.not.ok(existsSync(operatorRan), "no refused argument list reached the operator's program");
  assert.not.ok(existsSync(join(dir, 'written')) || existsSync(join(dir, 'out.txt')), 'no file was written');

  // The same entry with allowlisted arguments runs the operator's program, with them in their canonical form.
  setDiscoveryConfig(api, discovery(entry('ibnetdiscover', 'command: [ibnetdiscover, -Cmlx5_0, --Port=1, -s]')));
  await s.converge(() => existsSync(operatorRan) && readFileSync(operatorRan, 'utf8'), "the operator's program run");
  assert.is(readFileSync(operatorRan, 'utf8'), '-C mlx5_0 -P 1 -s\n');
  assert.not.ok(existsSync(evilRan));
  assert.match(
    run.log(),
    `Starting InfiniBand fabric discovery source="ibnetdiscover" fabric="ib" command="${operator} -C mlx5_0 -P 1 -s"`,
  );
});

test('a file outside the allowed directories, a symbolic link out of them and ".." are refused naming the key and the flag, and nothing of the file shows', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const allowed = join(dir, 'allowed');
  const outside = join(dir, 'outside');
  mkdirSync(allowed);
  mkdirSync(outside);
  const token = fakeServiceAccountToken();
  writeFileSync(join(outside, 'token'), token);
  symlinkSync(join(outside, 'token'), join(allowed, 'token-link'));
  symlinkSync(outside, join(allowed, 'dir-link'));
  seedConfigMap(api, discovery(entry('graph', `file: ${outside}/token`)));
  const run = s.startInProcess(kubeconfig, { inputPolicy: onlyUnder(allowed), verbosity: 10 });

  await eventSaying(
    api,
    'DiscovererFailed',
    'graph source: config.file "',
    'is outside the allowed directories',
    `--allow-file-dir (now ${allowed})`,
  );
  setDiscoveryConfig(api, discovery(entry('graph', `file: ${allowed}/../outside/token`)));
  await eventSaying(api, 'DiscovererFailed', 'has a ".." segment, which could lead out of the allowed directories');
  // A link inside the directory: the path is allowed as written, the file it leads to is not.
  for (const link of ['token-link', 'dir-link/token']) {
    setDiscoveryConfig(api, discovery(entry('graph', `file: ${allowed}/${link}`)));
    await eventSaying(
      api,
      'DiscoveryFailed',
      `${allowed}/${link}`,
      'leads through a symbolic link out of the allowed directories',
      '--allow-file-dir',
    );
  }
  // The path of the issue's report, and the ibnetdiscover source's file and node-name map.
  setDiscoveryConfig(
    api,
    discovery(
      entry('graph', 'file: /var/run/secrets/kubernetes.io/serviceaccount/token'),
      entry('ibnetdiscover', `command: [ibnetdiscover, --node-name-map, ${outside}/token]`),
    ),
  );
  await eventSaying(
    api,
    'DiscovererFailed',
    'config.file "/var/run/secrets/kubernetes.io/serviceaccount/token" is outside',
  );
  await eventSaying(api, 'DiscovererFailed', 'config.command --node-name-map "', 'is outside the allowed directories');
  setDiscoveryConfig(api, discovery(entry('ibnetdiscover', `file: ${allowed}/token-link`)));
  await eventSaying(api, 'DiscoveryFailed', 'leads through a symbolic link out of the allowed directories');
  assertNoLeak(token, await evidence(api, run), 'the controller');
});

test('a ServiceAccount token or a private key named as the graph or ibnetdiscover file never shows in an error, Event, log line at -v=10, condition or metric', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const token = fakeServiceAccountToken();
  const key = fakePrivateKey();
  writeFileSync(join(dir, 'token'), token);
  writeFileSync(join(dir, 'key.pem'), key);
  const both = (graphFile: string, ibFile: string) =>
    discovery(entry('graph', `file: ${join(dir, graphFile)}`), entry('ibnetdiscover', `file: ${join(dir, ibFile)}`));
  seedConfigMap(api, both('token', 'key.pem'));
  const run = s.startInProcess(kubeconfig, { inputPolicy: onlyUnder(dir), verbosity: 10 });

  // What each says instead: the kind and size of the document, the line that is not ibnetdiscover's.
  await eventSaying(api, 'DiscoveryFailed', 'got a string of', `${Buffer.byteLength(token)} bytes`);
  await eventSaying(api, 'DiscoveryFailed', 'the ibnetdiscover output is not usable: line 1 is neither a node header');
  setDiscoveryConfig(api, both('key.pem', 'token'));
  // YAML reads the key as one folded string: its size is the file's, trimmed.
  await eventSaying(api, 'DiscoveryFailed', 'got a string of', `${Buffer.byteLength(key.trim())} bytes`);
  // The token has no line end: read as ibnetdiscover's output, it is a first line cut short.
  await eventSaying(
    api,
    'DiscoveryFailed',
    'the ibnetdiscover output is not usable: the output ends in the middle of line 1',
  );
  const seen = await evidence(api, run);
  assertNoLeak(token, seen, 'the controller');
  assertNoLeak(key, seen, 'the controller');
});

test('the executable (-v=10): a token and a key named as files, and a program named by the ConfigMap, show nothing and run nothing', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const token = fakeServiceAccountToken();
  const key = fakePrivateKey();
  writeFileSync(join(dir, 'token'), token);
  writeFileSync(join(dir, 'key.pem'), key);
  const evilRan = join(dir, 'evil-ran');
  const evil = markerProgram('evil.sh', evilRan);
  seedConfigMap(
    api,
    discovery(entry('graph', `file: ${join(dir, 'token')}`), entry('ibnetdiscover', `file: ${join(dir, 'key.pem')}`)),
  );
  const run = (s.controller = await startControllerBinary({
    kubeconfig,
    namespace: NS,
    shippedInputPolicy: true,
    flags: ['-v=10', `--allow-file-dir=${dir}`],
  }));
  await eventSaying(api, 'DiscoveryFailed', 'got a string of', `${Buffer.byteLength(token)} bytes`);
  await eventSaying(api, 'DiscoveryFailed', 'line 1 is neither a node header');
  setDiscoveryConfig(api, discovery(entry('ibnetdiscover', `command: [${evil}]`)));
  await eventSaying(
    api,
    'DiscovererFailed',
    'config.command starts with',
    '--ibnetdiscover-command (now ibnetdiscover)',
  );
  assert.not.ok(existsSync(evilRan), "the ConfigMap's program never ran");
  const seen = await evidence(api, run);
  assertNoLeak(token, seen, 'the executable');
  assertNoLeak(key, seen, 'the executable');
});

test.run();
