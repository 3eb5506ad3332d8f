// `plan` with exports.nodeLabels: beside the HyperNode changes it lists the
// Node label patches the controller then makes (per Node, the keys set and
// removed), counts them in its summary line and JSON summary, exits 2 while
// any label would change and 0 once the controller has written them, and
// shows the removals of turning the option off (the option removed, the
// entry disabled or removed) with the reason they are not guarded.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { plan } from '../../src/cmd/plan.ts';
import type { PlannedLabelChange } from '../../src/hypernode/exports/node-labels/node-label-preview.ts';
import { NS, TOPOLOGY_A3_ENTRY, seedConfigMap, setDiscoveryConfig, workedExampleNodes } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { plannerKubeconfig } from './reader-kubeconfig.ts';
import { nodeLabelOverlayRules } from '../../testing/component-rbac.ts';

const s = session(test);
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-plan-labels-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

const ENV = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
const PREFIX = 'topo.example.com';
const WITH = `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY.replace('    enabled: true\n', `    enabled: true\n    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n`)}`;
const WITHOUT = `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY}`;

async function planOf(kubeconfig: string) {
  const text = await plan([`--kubeconfig=${kubeconfig}`], 'x', { color: false, env: ENV });
  const json = await plan([`--kubeconfig=${kubeconfig}`, '-o', 'json'], 'x', { color: false, env: ENV });
  assert.is(json.code, text.code, json.stderr);
  const data = JSON.parse(json.stdout) as {
    nodeLabels?: PlannedLabelChange[];
    nodeLabelsOff?: unknown[];
    summary: { nodeLabels?: Record<string, number> };
  };
  return {
    code: text.code,
    text: text.stdout,
    labels: data.nodeLabels ?? [],
    off: data.nodeLabelsOff,
    summary: data.summary.nodeLabels,
  };
}

test('plan lists the label patches the controller then makes, and none once it has', async () => {
  const { api } = await s.startCluster(nodeLabelOverlayRules());
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(api, WITH);
  const kubeconfig = plannerKubeconfig(api, dir, { secrets: true, fileName: 'reader.yaml' });

  const before = await planOf(kubeconfig);
  assert.is(before.code, 2);
  assert.equal(before.summary, { nodes: 8, set: 16, removed: 0, held: 0 });
  assert.equal(
    before.labels.map((c) => c.node),
    ['node0', 'node1', 'node2', 'node3', 'node4', 'node5', 'node6', 'node7'],
  );
  assert.equal(Object.keys(before.labels[0]!.set), [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`]);
  assert.match(
    before.text,
    /\nNode labels:\n {2}~ node0\n {6}topo\.example\.com\/hypercluster=hypernode-topologya3-tier2-\w{5}\n/,
  );
  assert.match(
    before.text,
    /\nPlan: 6 to create, 0 to update, 0 to delete\. Node labels: 8 Nodes to patch \(16 set, 0 removed\)\.\n$/,
  );

  const kubeconfigController = s.cluster!.kubeconfig;
  s.startInProcess(kubeconfigController);
  const labelled = (n: string) =>
    ((api.store.get('nodes', n) as { metadata: { labels: Record<string, string> } }).metadata.labels[
      `${PREFIX}/hypernode`
    ] ?? '') !== '';
  await s.converge(
    () => ['node0', 'node7'].every(labelled) && /Updated Node labels nodes=8/.test(s.log()),
    'the controller labelled the Nodes',
  );
  await s.controller!.stop();
  s.controller = undefined;

  const after = await planOf(kubeconfig);
  assert.is(after.code, 0, after.text);
  assert.equal(after.labels, []);

  setDiscoveryConfig(api, WITHOUT);
  const off = await planOf(kubeconfig);
  assert.is(off.code, 2);
  assert.equal(off.summary, { nodes: 8, set: 0, removed: 16, held: 0 });
  assert.equal(off.labels[0], { node: 'node0', set: {}, removed: [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`] });
  assert.match(off.text, /\n {6}topo\.example\.com\/hypernode removed\n/);
  // Why they go unguarded is said in the plan, for the option removed, the entry disabled, or the entry removed.
  const reason =
    /^Node labels:\n {2}Node labels of discovery source "label" are off \(its entry is disabled, removed, or has no exports\.nodeLabels\): its labels are removed from 8 Nodes, not held by maxDeletePercent; its HyperNodes stay\n {2}~ node0\n/;
  assert.match(off.text, reason, off.text);
  assert.equal(off.off, [{ source: 'label', nodes: 8 }]);
  for (const conf of [
    WITHOUT.replace('    enabled: true\n', '    enabled: false\n'),
    'networkTopologyDiscovery: []\n',
  ]) {
    setDiscoveryConfig(api, conf);
    const gone = await planOf(kubeconfig);
    assert.is(gone.code, 2, conf);
    assert.equal(gone.summary, { nodes: 8, set: 0, removed: 16, held: 0 }, conf);
    assert.match(gone.text, reason, conf);
    assert.match(
      gone.text,
      /\nPlan: 0 to create, 0 to update, 0 to delete\. Node labels: 8 Nodes to patch \(0 set, 16 removed\)\.\n$/,
      conf,
    );
  }
});

test.run();
