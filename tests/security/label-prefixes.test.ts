// Node-label prefixes under kubernetes.io and k8s.io (docs/security.md §1): a
// ConfigMap that asks `exports.nodeLabels` to write under a domain Kubernetes
// reserves (node-role.kubernetes.io would make every Node a control plane) is
// refused at configuration load, naming the prefix and what to use instead —
// by the running controller (no Node is patched), by `render` in this process
// and by the built executable.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/hypernode/config/loader.ts';
import { render } from '../../src/cmd/render.ts';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import { cleanEnv, runCommand } from '../support/run-command.ts';
import { CONTROLLER_USER, NS, TOPOLOGY_A3_ENTRY, workedExampleNodes } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const s = session(test);
const withPrefix = (prefix: string) =>
  `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY.replace('    enabled: true\n', `    enabled: true\n    exports:\n      nodeLabels: {prefix: ${prefix}}\n`)}`;

const RESERVED = [
  'node-role.kubernetes.io',
  'node.kubernetes.io',
  'kubernetes.io',
  'topology.kubernetes.io',
  'k8s.io',
  'kueue.x-k8s.io.k8s.io',
  'scheduling.k8s.io',
];
const ALLOWED = ['topology.example.com', 'kubernetes.io.example.com', 'k8s.io.example.com', 'x-k8s.io.example.org'];

const REFUSAL = (prefix: string) =>
  new RegExp(
    `exports\\.nodeLabels\\.prefix "${prefix.replaceAll('.', '\\.')}" is under (kubernetes\\.io|k8s\\.io), which Kubernetes reserves for its own labels .*use a domain you own, e\\.g\\. "topology\\.example\\.com"`,
  );

test('a node-label prefix under kubernetes.io or k8s.io is refused at configuration load, naming the prefix', () => {
  for (const prefix of RESERVED) {
    const [entry] = parseConfig(withPrefix(prefix)).entries;
    assert.ok(entry && 'error' in entry, `${prefix} refused`);
    assert.match((entry as { error: string }).error, REFUSAL(prefix));
  }
  for (const prefix of ALLOWED) {
    const [entry] = parseConfig(withPrefix(prefix)).entries;
    assert.ok(entry && 'entry' in entry, `${prefix} accepted: ${JSON.stringify(entry)}`);
  }
});

test('render refuses a node-role.kubernetes.io prefix, in this process and in the built executable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hn-prefix-'));
  try {
    const config = join(dir, 'config.yaml');
    const nodes = join(dir, 'nodes.json');
    writeFileSync(config, withPrefix('node-role.kubernetes.io'));
    writeFileSync(nodes, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: workedExampleNodes() }));
    const args = ['render', '--config', config, '--nodes', nodes];
    const inProcess = await render(args.slice(1), 'vc-hypernode-controller-manager');
    assert.is(inProcess.code, 1, inProcess.stderr);
    assert.is(inProcess.stdout, '');
    assert.match(inProcess.stderr, REFUSAL('node-role.kubernetes.io'));
    if (!existsSync(BINARY) && !existsSync(BUNDLE)) throw new Error(`${BINARY} is missing: run npm run build first`);
    const shipped = existsSync(BINARY)
      ? runCommand(BINARY, args, { env: cleanEnv() })
      : runCommand(process.execPath, [BUNDLE, ...args], { env: cleanEnv() });
    assert.is(shipped.status, 1, shipped.stderr);
    assert.is(shipped.stdout, '');
    assert.match(shipped.stderr, REFUSAL('node-role.kubernetes.io'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the controller refuses a node-role.kubernetes.io prefix: a Warning Event names it and no Node is patched', async () => {
  const { api, controller } = await s.startWorkedExample(withPrefix('node-role.kubernetes.io'));
  type Ev = { type: string; reason: string; message: string };
  await s.converge(
    () =>
      (api.store.list('events', NS) as unknown as Ev[]).some(
        (e) => e.reason === 'DiscovererFailed' && REFUSAL('node-role.kubernetes.io').test(e.message),
      ),
    'a DiscovererFailed Event naming the reserved prefix',
  );
  assert.match(controller.log(), /exports\.nodeLabels\.prefix \\"node-role\.kubernetes\.io\\" is under kubernetes\.io/);
  assert.equal(
    api.requests.writes((r) => r.resource === 'nodes' && r.user === CONTROLLER_USER),
    [],
  );
  for (const n of workedExampleNodes()) {
    const labels = (api.store.get('nodes', n.metadata.name) as { metadata: { labels?: Record<string, string> } })
      .metadata.labels;
    assert.not.ok(
      Object.keys(labels ?? {}).some((k) => k.startsWith('node-role.kubernetes.io/')),
      `${n.metadata.name} has no node-role label`,
    );
  }
});

test.run();
