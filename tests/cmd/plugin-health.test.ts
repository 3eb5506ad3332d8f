// `kubectl hypernode tree` and `why` show health (docs/health.md): a
// HyperNode whose NodesReady or FabricHealthy is False is marked under it in
// the tree with the controller's message, and `why NODE` says why a NotReady
// or cordoned Node counts, next to the HyperNodes it marks, and why a Node
// carries the fabric taint (health.taint), also once it left every
// HyperNode. Healthy ones print as before.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubectlHypernode } from '../../src/cmd/kubectl-hypernode.ts';
import { startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { readerKubeconfig } from './reader-kubeconfig.ts';

let dir = '';
let api: ApiServer;
test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hn-plugin-health-'));
  api = await startApiServer({ namespaces: ['volcano-system'] });
});
test.after.each(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) =>
  kubectlHypernode([`--kubeconfig=${readerKubeconfig(api, dir)}`, ...argv], { color: false, env: {} });

function seed(): void {
  const node = (name: string, ready: string, unschedulable = false) =>
    api.store.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      spec: { unschedulable },
      status: { conditions: [{ type: 'Ready', status: ready }] },
    } as never);
  node('n0', 'True');
  node('n1', 'False');
  node('n2', 'True', true);
  node('n3', 'True');
  const condition = (status: string, reason: string, message: string) => ({
    type: 'NodesReady',
    status,
    reason,
    message,
    lastTransitionTime: '2026-12-01T00:00:00Z',
  });
  const hn = (name: string, tier: number, type: string, members: string[], status: object) =>
    api.store.create({
      apiVersion: 'topology.volcano.sh/v1alpha1',
      kind: 'HyperNode',
      metadata: { name, labels: { 'volcano.sh/network-topology-source': 'label' } },
      spec: { tier, members: members.map((m) => ({ type, selector: { exactMatch: { name: m } } })) },
      status,
    } as never);
  hn('rack-a', 1, 'Node', ['n0', 'n1'], {
    nodeCount: 2,
    conditions: [condition('False', 'NodesNotReady', '1 of 2 Nodes not ready: n1 (NotReady).')],
  });
  hn('rack-b', 1, 'Node', ['n2', 'n3'], {
    nodeCount: 2,
    conditions: [condition('True', 'NodesCordoned', 'Every Node is Ready; 1 cordoned: n2.')],
  });
  hn('spine', 2, 'HyperNode', ['rack-a', 'rack-b'], {
    nodeCount: 2,
    conditions: [condition('False', 'NodesNotReady', '1 of 4 Nodes not ready: n1 (NotReady).')],
  });
}

test('tree marks exactly the HyperNodes with a False condition, with the message', async () => {
  seed();
  const tree = await run('tree');
  assert.is(tree.code, 0, tree.stderr);
  assert.is(
    tree.stdout,
    [
      'spine  tier=2  nodeCount=2',
      '   ✗ UNHEALTHY NodesReady=False: 1 of 4 Nodes not ready: n1 (NotReady).',
      '├─ rack-a  tier=1  nodeCount=2',
      '│     ✗ UNHEALTHY NodesReady=False: 1 of 2 Nodes not ready: n1 (NotReady).',
      '└─ rack-b  tier=1  nodeCount=2',
      '',
    ].join('\n'),
  );
});

test('why says a NotReady Node makes NodesReady False above it, and a cordoned one does not', async () => {
  seed();
  const notReady = await run('why', 'n1');
  assert.is(notReady.code, 0, notReady.stderr);
  assert.match(
    notReady.stdout,
    '  rack-a  tier 1, source label\n    - member by name (exactMatch n1)\n    - NodesReady=False: 1 of 2 Nodes not ready: n1 (NotReady).\n',
  );
  assert.match(notReady.stdout, '    - NodesReady=False: 1 of 4 Nodes not ready: n1 (NotReady).\n');
  assert.match(
    notReady.stdout,
    /\nNode n1 is NotReady: it makes NodesReady False on the 2 HyperNode\(s\) above it\.\n$/,
  );
  const cordoned = await run('why', 'n2');
  assert.match(
    cordoned.stdout,
    /\nNode n2 is Ready and cordoned: NodesReady stays True above it, with reason NodesCordoned\.\n$/,
  );
  // A Ready Node gets no line of its own; the HyperNodes above it still show their health.
  const healthy = await run('why', 'n3');
  assert.not.match(healthy.stdout, /^Node n3 is (?!in)/m);
  assert.match(
    healthy.stdout,
    '  spine  tier 2, source label\n    - through rack-b\n    - NodesReady=False: 1 of 4 Nodes not ready: n1 (NotReady).\n',
  );
});

test('why says a Node carries the fabric taint and when it goes, in a HyperNode or in none; a record without its taint says nothing', async () => {
  seed();
  const taint = { key: 'topology.volcano.sh/fabric-unreachable', value: 'ibnetdiscover.lab', effect: 'NoSchedule' };
  const record = 'topology.volcano.sh/fabric-unreachable=ibnetdiscover.lab:NoSchedule';
  const tainted = (name: string, taints: object[]) => {
    const n = api.store.get('nodes', name) ?? { apiVersion: 'v1', kind: 'Node', metadata: { name } };
    api.store.apply({
      ...n,
      metadata: { ...n.metadata, annotations: { 'topology.volcano.sh/fabric-taint': record } },
      spec: { taints },
    } as never);
  };
  const line = (name: string) =>
    `Node ${name} is tainted ${record} by the controller (health.taint): every link of its hosts on fabric lab of source ibnetdiscover has been missing for health.taint.after; the taint goes once a poll shows a link again, or once the source or health.taint is off.\n`;
  tainted('n3', [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }, taint]);
  const inTree = await run('why', 'n3');
  assert.is(inTree.code, 0, inTree.stderr);
  assert.ok(inTree.stdout.endsWith(line('n3')), inTree.stdout);
  // Past health.linkGracePeriod its host left the topology; the taint stays until a link is back.
  tainted('gone-1', [taint]);
  const outside = await run('why', 'gone-1');
  assert.match(outside.stdout, `Node gone-1 is in no HyperNode`);
  assert.ok(outside.stdout.endsWith(line('gone-1')), outside.stdout);
  tainted('n0', []);
  assert.not.match((await run('why', 'n0')).stdout, 'tainted');
});

test.run();
