// The topology page (/debug/topology) marks the Nodes the controller tainted
// (health.taint): the shipped executable on the graph source's taint rig,
// with --enable-topology-page. A host whose every link is gone is marked,
// once tainted, with the taint, its source and its fabric; a Node with a
// taint of our key that the controller did not set (no record) and one with
// another writer's taint are never marked; the mark goes with the taint once
// a link is back. The JSON form lists the same Nodes in `fabricTaints`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_TOKEN_AUDIENCE } from '../../src/app/options.ts';
import { accessReviewerRbac } from '../../testing/apiserver/index.ts';
import { nodeTaintOverlayRules } from '../../testing/component-rbac.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { viewData } from '../../testing/view-page.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { NS, seedConfigMap } from './cluster.ts';
import {
  GPU_TAINT,
  TAINT_KEY,
  graphConfig,
  nodesWith,
  setGraph,
  settled,
  taintOf,
  taintOn,
  unlinked,
} from './graph-taint-rig.ts';
import { session } from './session.ts';

const s = session(test);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));

test('the topology page marks a Node the controller tainted, with its source and fabric, and no other taint, in the view and in JSON', async () => {
  const { api, kubeconfig } = await s.startCluster([...nodeTaintOverlayRules(), ...accessReviewerRbac()]);
  const doc = railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 });
  // su2-h1 carries our key set by someone else (no record), su1-h2 a device plugin's taint.
  const foreign = { key: TAINT_KEY, value: 'by-hand', effect: 'NoSchedule' };
  nodesWith(api, ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'], { 'su1-h2': [GPU_TAINT], 'su2-h1': [foreign] });
  setGraph(api, doc);
  seedConfigMap(api, graphConfig(taintOn('1s')));
  api.addUser('viewer', [{ apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: ['/debug/topology'] }]);
  const viewer = api.createToken('viewer', [DEFAULT_TOKEN_AUDIENCE]);
  const controller = (s.controller = await startControllerBinary({
    kubeconfig,
    namespace: NS,
    flags: ['--enable-topology-page=true'],
  }));
  const page = async () => {
    const res = await fetch(`${controller.metricsOrigin}/debug/topology`, {
      headers: { Authorization: `Bearer ${viewer}` },
      signal: AbortSignal.timeout(10_000),
    });
    assert.is(res.status, 200);
    return viewData(await res.text());
  };
  const json = async () => {
    const res = await fetch(`${controller.metricsOrigin}/debug/topology`, {
      headers: { Authorization: `Bearer ${viewer}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    assert.is(res.status, 200);
    return ((await res.json()) as { fabricTaints: unknown[] | null }).fabricTaints;
  };
  await s.converge(() => settled(api, 3), 'the tree');
  await s.converge(async () => (await page()).hyperNodes.length === 3 || undefined, 'the tree on the page');
  assert.is((await page()).fabricTaints, undefined, 'no Node marked: neither taint is the controller’s');
  assert.equal(await json(), [], 'the JSON form lists none either');

  setGraph(api, unlinked(doc, 'su1-h1'));
  const taint = await s.converge(() => taintOf(api, 'su1-h1'), 'su1-h1 tainted');
  assert.is(taint, `${TAINT_KEY}=graph.lab:NoSchedule`);
  const marked = await s.converge(async () => (await page()).fabricTaints, 'the taint marked on the page');
  assert.equal(marked, [{ node: 'su1-h1', taint, source: 'graph', fabric: 'lab' }]);
  assert.equal(await json(), [{ node: 'su1-h1', key: TAINT_KEY, value: 'graph.lab', effect: 'NoSchedule' }]);

  setGraph(api, doc);
  await s.converge(() => taintOf(api, 'su1-h1') === undefined || undefined, 'su1-h1 untainted');
  await s.converge(async () => (await page()).fabricTaints === undefined || undefined, 'the mark gone from the page');
  assert.equal(await json(), []);
});

test.run();
