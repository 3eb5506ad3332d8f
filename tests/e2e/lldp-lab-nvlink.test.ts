// config.nvlink on the lldp source over a real lab (testing/lldp-lab.ts:
// network namespaces, real lldpd on every switch and host, real snmpd per
// switch), with the built executable as the controller: two rail-optimised
// units of four hosts under two spines, the hosts as Nodes carrying GB200
// clique labels, and the NVLink scenario of nvlink-scenario.ts (mixed
// labelled and unlabelled Nodes, a rack split over units, a clique appearing
// later, nvlink on and off on the running fabric, every HyperNode write
// counted). Polls are an hour apart once every leaf has heard its cables, so
// every change after a (re)start is a rebuild from the last walk.

import { test } from 'uvu';
import { parseLldpTable } from '../../src/hypernode/discovery/lldp/lldp-mib.ts';
import { snmpWalker } from '../../src/hypernode/discovery/lldp/snmp-walker.ts';
import { LAB_COMMUNITY, labPerTest, lldpLabUnavailable, type LldpLab } from '../../testing/lldp-lab.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { testNeeding } from '../support/skip.ts';
import { NS, assertNoForbidden, secretObject } from './cluster.ts';
import { nvlinkScenario, seedNvlinkCluster, type NvlinkFabric } from './nvlink-scenario.ts';
import { session } from './session.ts';

const FABRIC = 'lab';
const SECRET = 'lldp-snmp';
const HOSTS_PER_UNIT = 4;
const s = session(test);
const newLab = labPerTest(test);
const withLab = testNeeding(lldpLabUnavailable());

const switchId = (lab: LldpLab, name: string) => lab.switches.get(name)!.mac.replaceAll(':', '');
const hostsOf = (su: number) => Array.from({ length: HOSTS_PER_UNIT }, (_, i) => `su${su}-h${i + 1}`);

/** How many LLDP neighbours a lab switch reports over SNMP right now. */
async function neighbours(lab: LldpLab, name: string): Promise<number> {
  const [host, port] = lab.address(name).split(':');
  const walk = snmpWalker(
    { version: '2c', community: LAB_COMMUNITY },
    { timeoutMs: 1_000, retries: 0, maxRepetitions: 50, maxVarbinds: 10_000 },
  );
  return parseLldpTable(await walk({ host: host!, port: Number(port) }, AbortSignal.timeout(5_000))).neighbours.length;
}

withLab(
  'a real lldpd + snmpd lab (the executable): GB200 cliques on the lab Nodes give NVLink domains inside the LLDP tree, in place both ways',
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const lab = newLab();
    const spines = ['spine-1', 'spine-2'];
    for (const sp of spines) await lab.addSwitch(sp);
    for (const su of [1, 2]) {
      for (const rail of [1, 2]) {
        await lab.addSwitch(`leaf-su${su}-r${rail}`);
        for (const sp of spines) lab.cable(`leaf-su${su}-r${rail}`, sp);
      }
      for (const host of hostsOf(su)) {
        await lab.addHost(host);
        for (const rail of [1, 2]) lab.cable(`leaf-su${su}-r${rail}`, host);
      }
    }
    // One walk a start: every leaf must have heard its hosts and spines before the source starts.
    for (const su of [1, 2])
      for (const rail of [1, 2])
        await s.converge(
          async () => (await neighbours(lab, `leaf-su${su}-r${rail}`)) === HOSTS_PER_UNIT + spines.length || undefined,
          `leaf-su${su}-r${rail} hears its cables`,
        );
    api.store.create(secretObject(SECRET, { community: LAB_COMMUNITY }, { hosts: ['127.0.0.1'] }));
    const base = lab
      .discoveryConfig({ secret: { name: SECRET, namespace: NS }, version: '2c', fabric: FABRIC })
      .replace('interval: 1s', 'interval: 1h');
    const leafGroup = (su: number) =>
      `${FABRIC}-leaf-${[switchId(lab, `leaf-su${su}-r1`), switchId(lab, `leaf-su${su}-r2`)].sort()[0]}`;
    const f: NvlinkFabric = {
      source: 'lldp',
      config: (nvlink) => (nvlink === undefined ? base : `${base}      nvlink: ${nvlink}\n`),
      units: [hostsOf(1), hostsOf(2)],
      fabric: FABRIC,
      leafGroups: [leafGroup(1), leafGroup(2)],
      spine: `${FABRIC}-spine-${spines.map((sp) => switchId(lab, sp)).sort()[0]}`,
      tierNames: { leaf: 'leaf', spine: 'spine' },
      reads: () => (s.log().match(/Polled LLDP fabric/g) ?? []).length,
    };
    seedNvlinkCluster(api, f);
    s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=3'] });
    await nvlinkScenario(s, api, f);
    assertNoForbidden(api);
  },
);

test.run();
