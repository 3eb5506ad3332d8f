// The fabric taint (health.taint, docs/health.md "Node taint") on the real
// InfiniBand stack (testing/ibsim-lab.ts: Debian's ibsim, the real
// ibnetdiscover through ibsim-run), the controller in this process under the
// chart's RBAC and deploy/node-taints: three rail-optimised units of three
// hosts on two rails, the SM host first on the subnet.
// - `Unlink` of both HCAs of a host: its Node is tainted once its cables have
//   been missing for taint.after, not before; `ReLink` removes the taint; one
//   Node write each way. A host with one HCA of two unlinked is not tainted.
// - `Unlink` of a unit's two leaves past maxTaintPercent: nothing new is
//   tainted, the taint already set stays, and the Event names the value.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addRailFabric, caId, IbFabric, leafId } from '../../testing/ib-fabric.ts';
import { ibsimLabPerTest, ibsimLabUnavailable } from '../../testing/ibsim-lab.ts';
import { nodeTaintOverlayRules } from '../../testing/component-rbac.ts';
import { testNeeding } from '../support/skip.ts';
import {
  answeredNodeWrites,
  assertNoForbidden,
  describeWrites,
  fabricHealthSettled,
  hyperNodes,
  node,
  nodeCountsSettled,
  seedConfigMap,
  taintsOf,
} from './cluster.ts';
import { TAINT_KEY, eventsOf, taintOf } from './graph-taint-rig.ts';
import { session } from './session.ts';

const FABRIC = 'lab';
const AFTER_MS = 3_000;
const s = session(test);
const newLab = ibsimLabPerTest(test);
const withLab = testNeeding(ibsimLabUnavailable());

const hostsOf = (unit: number) => [1, 2, 3].map((h) => `su${unit}-h${h}`);
const HOSTS = [1, 2, 3].flatMap(hostsOf);

function labFabric(): IbFabric {
  const f = new IbFabric().addCa('sm-01', 1, 'sm-01 mlx5_0');
  addRailFabric(f, { units: 3, hostsPerUnit: 3, rails: 2, spines: 1, parallel: 1 });
  f.cable('sm-01', leafId(1, 1));
  return f;
}

const config = (maxTaintPercent = 10) => `health:
  taint: {after: 3s}
  maxTaintPercent: ${maxTaintPercent}
networkTopologyDiscovery:
  - source: ibnetdiscover
    enabled: true
    interval: 1s
    config:
      fabric: ${FABRIC}
      command: [ibnetdiscover, -C, ibsim0, -P, "1"]
      hcas: "^mlx5_[01]$"
`;

async function start(maxTaintPercent?: number) {
  const { api, kubeconfig } = await s.startCluster(nodeTaintOverlayRules());
  const fabric = labFabric();
  const lab = await newLab(fabric);
  for (const h of HOSTS) api.store.create(node(h, {}));
  seedConfigMap(api, config(maxTaintPercent));
  s.startInProcess(kubeconfig, { ibnetdiscoverCommand: lab.ibnetdiscover });
  await s.converge(
    () => hyperNodes(api, 'ibnetdiscover').length === 4 && nodeCountsSettled(api) && fabricHealthSettled(api),
    'the tree from the real ibnetdiscover',
  );
  return { api, fabric, lab };
}

withLab(
  'Unlink of every cable of a host taints its Node after taint.after and not before, ReLink untaints it, one Node write each way; one HCA of two left is no taint',
  async () => {
    const { api, lab } = await start();
    const own = Object.fromEntries(HOSTS.map((h) => [h, taintsOf(api, h)]));
    api.requests.clear();

    const unlinkedAt = Date.now();
    for (const device of ['mlx5_0', 'mlx5_1']) await lab.unlink(caId('su1-h2', device));
    await lab.unlink(caId('su2-h1', 'mlx5_0'));
    await s.converge(() => taintOf(api, 'su1-h2'), 'su1-h2 tainted');
    const writes = await answeredNodeWrites(api);
    assert.equal(describeWrites(writes), ['patch su1-h2 → 200'], 'one Node write');
    const tookMs = Date.parse(writes[0]!.time) - unlinkedAt;
    assert.ok(tookMs >= AFTER_MS, `tainted ${tookMs} ms after Unlink; taint.after is ${AFTER_MS} ms`);
    assert.is(taintOf(api, 'su1-h2'), `${TAINT_KEY}=ibnetdiscover.lab:NoSchedule`);
    assert.equal(taintsOf(api, 'su2-h1'), own['su2-h1'], 'one rail left: not tainted');

    api.requests.clear();
    for (const device of ['mlx5_0', 'mlx5_1']) await lab.relink(caId('su1-h2', device));
    await s.converge(() => taintOf(api, 'su1-h2') === undefined || undefined, 'su1-h2 untainted');
    assert.equal(describeWrites(await answeredNodeWrites(api)), ['patch su1-h2 → 200'], 'one Node write');
    for (const h of HOSTS) assert.equal(taintsOf(api, h), own[h], h);
    assertNoForbidden(api);
  },
);

withLab(
  'Unlink of a unit’s two leaves past maxTaintPercent taints nothing new, keeps the taint already set, and the Event names the value',
  async () => {
    const { api, fabric, lab } = await start();
    for (const device of ['mlx5_0', 'mlx5_1']) await lab.unlink(caId('su1-h2', device));
    await s.converge(() => taintOf(api, 'su1-h2'), 'su1-h2 tainted (one Node alone)');
    api.requests.clear();

    for (let r = 1; r <= 2; r++) await lab.unlink(fabric.nodes.get(leafId(3, r))!.description);
    const held = await s.converge(() => eventsOf(api, 'FabricTaintsHeld')[0], 'the FabricTaintsHeld Event');
    assert.is(
      held.message,
      'Fabric source "ibnetdiscover" would taint 3 more Nodes cut off from its fabric, 4 of the 9 Nodes its fabrics connect (44.4%), ' +
        'more than health.maxTaintPercent of 10, so nothing new is tainted and the taints already set stay; ' +
        'if the hosts are cut off indeed, set health.maxTaintPercent to 45 or more',
    );
    for (const h of hostsOf(3)) assert.is(taintOf(api, h), undefined, `${h} not tainted`);
    assert.ok(taintOf(api, 'su1-h2'), 'the taint already set stays');
    assert.equal(describeWrites(await answeredNodeWrites(api)), [], 'no Node write');
    assertNoForbidden(api);
  },
);

test.run();
