// FabricHealthy on the real lldpd + snmpd lab (testing/lldp-lab.ts; docs/health.md):
// a host's lldpd stopping (a reboot, a NIC reset) makes its leaf drop the
// neighbour; the host keeps its place and the leaf's HyperNode turns
// FabricHealthy=False naming the leaf and port; lldpd starting again turns it
// True. A leaf's snmpd stopping marks the leaf's HyperNode once the switch is
// silent past staleAfter. Members, names and uids never change and nothing is
// deleted. The controller runs in-process under the chart's RBAC.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memberNames } from '../../testing/hypernode-members.ts';
import { LAB_COMMUNITY, LldpLab, lldpLabUnavailable, labPerTest } from '../../testing/lldp-lab.ts';
import { testNeeding } from '../support/skip.ts';
import {
  NS,
  answeredHyperNodeWrites,
  assertNoDeletes,
  assertNoForbidden,
  describeWrites,
  fabricHealthSettled,
  fabricHealthy,
  hyperNodes,
  leafOf,
  node,
  nodeCountsSettled,
  secretObject,
  seedConfigMap,
  topologyShape,
} from './cluster.ts';
import { session } from './session.ts';

const SECRET = 'lldp-snmp';
const s = session(test);
const newLab = labPerTest(test);

type Api = Parameters<typeof hyperNodes>[0];
const shape = (api: Api) => topologyShape(api, 'lldp');
const named = (api: Api, name: string) => hyperNodes(api, 'lldp').find((hn) => hn.metadata.name === name);

const config = (l: LldpLab) =>
  l.discoveryConfig({ secret: { name: SECRET, namespace: NS }, version: '2c', fabric: 'lab' });

testNeeding(lldpLabUnavailable())(
  'a host whose lldpd stops keeps its leaf, which names the port; it comes back; a silent leaf past staleAfter marks its HyperNode; nothing deleted',
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const l = newLab();
    await l.addSwitch('spine-1');
    const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];
    for (const su of [1, 2]) {
      await l.addSwitch(`leaf-su${su}`);
      l.cable(`leaf-su${su}`, 'spine-1');
    }
    for (const h of hosts) {
      await l.addHost(h);
      l.cable(`leaf-${h.slice(0, 3)}`, h);
      api.store.create(node(h, {}));
    }
    api.store.create(secretObject(SECRET, { community: LAB_COMMUNITY }, { hosts: ['127.0.0.1'] }));
    seedConfigMap(api, config(l));
    s.startInProcess(kubeconfig);
    await s.converge(() => {
      const all = hyperNodes(api, 'lldp');
      return (
        all.length === 3 &&
        all.every((hn) => fabricHealthy(hn)?.status === 'True') &&
        hosts.every((h) => memberNames(leafOf(api, 'lldp', h)).length === 2) &&
        nodeCountsSettled(api) &&
        fabricHealthSettled(api)
      );
    }, 'two leaves and a spine from real LLDP, all FabricHealthy=True');
    const before = shape(api);
    const leaf1 = leafOf(api, 'lldp', 'su1-h2')!.metadata.name;
    const leaf2 = leafOf(api, 'lldp', 'su2-h1')!.metadata.name;
    api.requests.clear();

    // 1. su1-h2's lldpd stops: leaf-su1 drops it as a neighbour.
    await l.stopHostLldpd('su1-h2');
    const port = l.cablesBetween('leaf-su1', 'su1-h2')[0]!.aPort;
    const down = await s.converge(() => {
      const c = fabricHealthy(named(api, leaf1));
      return c?.status === 'False' ? c : undefined;
    }, `${leaf1} FabricHealthy=False`);
    assert.is(down.reason, 'LinksDown');
    assert.is(down.message, `1 fabric problem: leaf-su1 port ${port} (link to host su1-h2 missing).`);
    assert.equal(shape(api), before, 'members, names and uids unchanged');
    assert.equal(
      describeWrites(await answeredHyperNodeWrites(api)),
      [`update ${leaf1}/status → 200`],
      'one status write, on the leaf',
    );

    // 2. It starts again: True, still the same tree.
    api.requests.clear();
    l.startHostLldpd('su1-h2');
    await s.converge(() => fabricHealthy(named(api, leaf1))?.status === 'True', `${leaf1} FabricHealthy=True again`);
    assert.equal(shape(api), before);
    assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [`update ${leaf1}/status → 200`]);

    // 3. leaf-su2's snmpd stops: past staleAfter its HyperNode is marked; nothing else changes.
    api.requests.clear();
    await l.stopSnmpd('leaf-su2');
    const silent = await s.converge(() => {
      const c = fabricHealthy(named(api, leaf2));
      return c?.status === 'False' ? c : undefined;
    }, `${leaf2} FabricHealthy=False once leaf-su2 is silent past staleAfter`);
    assert.is(silent.message, '1 fabric problem: leaf-su2 (not answering SNMP for longer than config.staleAfter).');
    assert.equal(shape(api), before);
    assert.is(fabricHealthy(named(api, leaf1))?.status, 'True');
    assertNoDeletes(api);
    assertNoForbidden(api);
  },
);

test.run();
