// `render` through what ships (the SEA, else the bundle on this Node): the
// subcommand is recognised only as the first argument, prints the demo
// cluster's tree, answers --help, and the root command line is unchanged
// (`render` anywhere else is an error saying it must come first).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import {
  DEMO_SHAPE,
  SAMPLE_DISCOVERY_CONFIG,
  discoveryConfigMap,
  expectedHyperNodeCount,
  sampleNodes,
} from '../../testing/sample-cluster.ts';
import { cleanEnv, runCommand } from '../support/run-command.ts';

const shipped = (args: string[]) =>
  existsSync(BINARY)
    ? runCommand(BINARY, args, { env: cleanEnv() })
    : runCommand(process.execPath, [BUNDLE, ...args], { env: cleanEnv() });

let dir = '';
test.before(() => {
  if (!existsSync(BINARY) && !existsSync(BUNDLE))
    throw new Error(`${BINARY} is missing: run \`node scripts/build.mjs\` first`);
  dir = mkdtempSync(join(tmpdir(), 'hn-render-exe-'));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('the executable renders the demo cluster as a tree from a ConfigMap manifest and a Node List', () => {
  const config = join(dir, 'cm.json');
  const nodes = join(dir, 'nodes.json');
  writeFileSync(config, JSON.stringify(discoveryConfigMap('volcano-system', SAMPLE_DISCOVERY_CONFIG)));
  writeFileSync(nodes, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: sampleNodes(DEMO_SHAPE) }));
  const result = shipped(['render', '--config', config, '--nodes', nodes, '-o', 'tree']);
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stderr, '');
  const lines = result.stdout.trimEnd().split('\n');
  assert.is(lines.length, expectedHyperNodeCount(DEMO_SHAPE));
  assert.is(lines.filter((l) => /^hypernode-datacenter-tier3-\S+ {2}tier=3 /.test(l)).length, DEMO_SHAPE.zones);
});

test('a configuration with a collection as a key fails with our one error line, no Node.js warning on stderr', () => {
  const config = join(dir, 'odd-key.yaml');
  writeFileSync(config, '[a]: b\n');
  writeFileSync(join(dir, 'none.json'), '{"apiVersion": "v1", "kind": "List", "items": []}');
  const result = shipped(['render', '--config', config, '--nodes', join(dir, 'none.json')]);
  assert.is(result.status, 1);
  assert.match(
    result.stderr,
    /^error: \S+odd-key\.yaml: the configuration has no top-level key networkTopologyDiscovery \(its keys: \[ a \];/,
  );
  assert.not.match(result.stderr, /Warning|--trace-warnings/);
});

test('render --help prints its usage on stderr and exits 0; without flags it exits 2', () => {
  const help = shipped(['render', '--help']);
  assert.is(help.status, 0);
  assert.match(help.stderr, /Usage of \S+ render:/);
  assert.match(help.stderr, /--ufm-capture stringArray .*the credentials Secret is not read/);
  const bare = shipped(['render']);
  assert.is(bare.status, 2);
  assert.ok(bare.stderr.endsWith('required flag(s) "config", "nodes" not set\n'), bare.stderr);
});

test('render after a flag is an error saying it must come first (Go would ignore it and start the controller)', () => {
  const result = shipped(['--version', 'render']);
  assert.is(result.status, 2, result.stderr);
  assert.is(result.stdout, '');
  assert.match(
    result.stderr,
    /^the command "render" must come first, before any flag: vc-hypernode-controller-manager render \[flags\]\n$/,
  );
});

test.run();
