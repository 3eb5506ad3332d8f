// The fabric taint (health.taint, docs/health.md "Node taint") on the real
// lldpd + snmpd lab (testing/lldp-lab.ts), the controller in this process
// under the chart's RBAC and deploy/node-taints: two units of two hosts,
// each host cabled to its unit's two rail leaves, the leaves to one spine.
// A host's lldpd stopping (a reboot, both NICs reset) takes it out of both
// leaves' neighbour tables: its Node is tainted once it has been gone for
// taint.after and not before; lldpd starting again removes the taint; one
// Node write each way. A host with one of its two cables pulled is not
// tainted, and its leaf's FabricHealthy names the missing link.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LAB_COMMUNITY, labPerTest, lldpLabUnavailable, type LldpLab } from '../../testing/lldp-lab.ts';
import { nodeTaintOverlayRules } from '../../testing/component-rbac.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import { testNeeding } from '../support/skip.ts';
import {
  NS,
  answeredNodeWrites,
  assertNoForbidden,
  describeWrites,
  fabricHealthSettled,
  fabricHealthy,
  hyperNodes,
  node,
  nodeCountsSettled,
  secretObject,
  seedConfigMap,
  taintsOf,
} from './cluster.ts';
import { TAINT_KEY, taintOf } from './graph-taint-rig.ts';
import { session } from './session.ts';

const SECRET = 'lldp-snmp';
const AFTER_MS = 3_000;
/** Four leaves to the spine, and each of four hosts to its unit's two rail leaves. */
const CABLES = 4 + 4 * 2;
const s = session(test);
const newLab = labPerTest(test);

const config = (l: LldpLab) =>
  `health:\n  taint: {after: 3s}\n  maxTaintPercent: 25\n${l.discoveryConfig({ secret: { name: SECRET, namespace: NS }, version: '2c', fabric: 'lab' })}`;

testNeeding(lldpLabUnavailable())(
  'a host whose lldpd stops is tainted after taint.after and not before, untainted when it starts again, one Node write each way; one cable of two pulled is no taint',
  async () => {
    const { api, kubeconfig } = await s.startCluster(nodeTaintOverlayRules());
    const l = newLab();
    await l.addSwitch('spine-1');
    const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
    for (const su of [1, 2])
      for (const r of [1, 2]) {
        await l.addSwitch(`leaf-su${su}-r${r}`);
        l.cable(`leaf-su${su}-r${r}`, 'spine-1');
      }
    for (const h of hosts) {
      await l.addHost(h);
      for (const r of [1, 2]) l.cable(`leaf-${h.slice(0, 3)}-r${r}`, h);
      api.store.create(node(h, {}));
    }
    api.store.create(secretObject(SECRET, { community: LAB_COMMUNITY }, { hosts: ['127.0.0.1'] }));
    seedConfigMap(api, config(l));
    const controller = s.startInProcess(kubeconfig);
    // The lab's lldpds learn their neighbours over seconds, longer on a busy machine, and a tree of three HyperNodes
    // forms before every cable is known: wait until a poll found all of them, so the links about to go are in the
    // baseline the controller judges their loss against.
    const polled = async (family: string) =>
      seriesValue(await controller.metrics(), family, { source: 'lldp', fabric: 'lab' });
    await s.converge(
      async () =>
        (await polled('hypernode_fabric_links')) === CABLES &&
        (await polled('hypernode_fabric_hosts')) === hosts.length &&
        hyperNodes(api, 'lldp').length === 3 &&
        hyperNodes(api, 'lldp').every((hn) => fabricHealthy(hn)?.status === 'True') &&
        nodeCountsSettled(api) &&
        fabricHealthSettled(api),
      'two leaf groups and a spine from real LLDP, every cable polled, all FabricHealthy=True',
    );
    const own = Object.fromEntries(hosts.map((h) => [h, taintsOf(api, h)]));
    api.requests.clear();

    // su1-h2 goes dark on both rails; su2-h1 loses the cable to its rail-1 leaf.
    const stoppedAt = Date.now();
    await l.stopHostLldpd('su1-h2');
    l.uncable(l.cablesBetween('leaf-su2-r1', 'su2-h1')[0]!);
    await s.converge(() => taintOf(api, 'su1-h2'), 'su1-h2 tainted');
    const writes = await answeredNodeWrites(api);
    assert.equal(describeWrites(writes), ['patch su1-h2 → 200'], 'one Node write');
    const tookMs = Date.parse(writes[0]!.time) - stoppedAt;
    assert.ok(tookMs >= AFTER_MS, `tainted ${tookMs} ms after lldpd stopped; taint.after is ${AFTER_MS} ms`);
    assert.is(taintOf(api, 'su1-h2'), `${TAINT_KEY}=lldp.lab:NoSchedule`);
    assert.equal(taintsOf(api, 'su2-h1'), own['su2-h1'], 'one cable left: not tainted');
    const su2 = () =>
      hyperNodes(api, 'lldp').find((hn) => hn.spec?.members?.some((m) => m.selector?.exactMatch?.name === 'su2-h1'));
    await s.converge(
      () => fabricHealthy(su2())?.message.includes('link to host su2-h1 missing') || undefined,
      'its leaf group naming the pulled cable',
    );
    assert.equal(taintsOf(api, 'su2-h1'), own['su2-h1'], 'still not tainted');
    api.requests.clear();
    l.startHostLldpd('su1-h2');
    await s.converge(() => taintOf(api, 'su1-h2') === undefined || undefined, 'su1-h2 untainted');
    assert.equal(describeWrites(await answeredNodeWrites(api)), ['patch su1-h2 → 200'], 'one Node write');
    for (const h of hosts) assert.equal(taintsOf(api, h), own[h], h);
    assertNoForbidden(api);
  },
);

test.run();
