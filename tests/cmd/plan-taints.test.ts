// `plan` with health.taint (docs/health.md, "Node taint"): it decides the
// fabric taints as a controller restarted now would, from the taints the
// Nodes carry and what each source's one poll finds: a taint whose host the
// graph shows cabled again is listed to remove, one of a host still without
// links stays, turning the taint off removes every one, a new effect
// rewrites them; each counts in the summary line and JSON, and exits 2.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { plan } from '../../src/cmd/plan.ts';
import type { TaintChange } from '../../src/hypernode/reconcile/health/fabric-taints.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { NS, seedConfigMap, setDiscoveryConfig } from '../e2e/cluster.ts';
import { TAINT_KEY, graphConfig, nodesWith, setGraph, taintOn, unlinked } from '../e2e/graph-taint-rig.ts';
import { session } from '../e2e/session.ts';
import { plannerKubeconfig } from './reader-kubeconfig.ts';

const s = session(test);
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-plan-taints-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

const ENV = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
const RECORD = `${TAINT_KEY}=graph.lab:NoSchedule`;

async function planOf(kubeconfig: string) {
  // The graph ConfigMap asked live, as the controller asks it (a source without it is planned as published).
  const args = [`--kubeconfig=${kubeconfig}`, '--use-cluster-credentials'];
  const text = await plan(args, 'x', { color: false, env: ENV });
  const json = await plan([...args, '-o', 'json'], 'x', { color: false, env: ENV });
  assert.is(json.code, text.code, json.stderr);
  const data = JSON.parse(json.stdout) as { taints?: TaintChange[]; summary: { taints?: Record<string, number> } };
  return { code: text.code, text: text.stdout, taints: data.taints ?? [], summary: data.summary.taints };
}

test('plan lists the fabric taints a restarted controller removes or rewrites, and adds none for a host it cannot time', async () => {
  const { api } = await s.startCluster();
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  const tainted = { key: TAINT_KEY, value: 'graph.lab', effect: 'NoSchedule' };
  nodesWith(api, ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'], { 'su1-h1': [tainted], 'su2-h1': [tainted] });
  for (const name of ['su1-h1', 'su2-h1']) {
    const n = api.store.get('nodes', name)!;
    api.store.update({
      ...n,
      metadata: { ...n.metadata, annotations: { 'topology.volcano.sh/fabric-taint': RECORD } },
    });
  }
  // su1-h1 is cabled again, su2-h1 still has no link, su2-h2 has none either but was never tainted.
  setGraph(api, unlinked(unlinked(doc, 'su2-h1'), 'su2-h2'));
  seedConfigMap(api, graphConfig(taintOn('2m')));
  const kubeconfig = plannerKubeconfig(api, dir, { secrets: true, fileName: 'reader.yaml' });

  const back = await planOf(kubeconfig);
  assert.is(back.code, 2);
  assert.equal(back.taints, [
    { node: 'su1-h1', from: { key: TAINT_KEY, value: 'graph.lab', effect: 'NoSchedule' }, reason: 'link back' },
  ]);
  assert.equal(back.summary, { add: 0, change: 0, remove: 1 });
  assert.match(back.text, `\nNode taints (health.taint):\n  - su1-h1 ${RECORD} (a link is back)\n`);
  assert.match(back.text, '. Node taints: 0 to add, 1 to remove.');

  setDiscoveryConfig(api, graphConfig('health:\n  taint: {effect: PreferNoSchedule}\n'));
  const effect = await planOf(kubeconfig);
  assert.match(effect.text, `  ~ su2-h1 ${RECORD} -> ${TAINT_KEY}=graph.lab:PreferNoSchedule (settings changed)\n`);

  setDiscoveryConfig(api, graphConfig(''));
  const off = await planOf(kubeconfig);
  assert.equal(
    off.taints.map((t) => `${t.node} ${t.reason}`),
    ['su1-h1 taint off', 'su2-h1 taint off'],
  );
  assert.match(off.text, `  - su2-h1 ${RECORD} (health.taint is off)\n`);
});

test.run();
