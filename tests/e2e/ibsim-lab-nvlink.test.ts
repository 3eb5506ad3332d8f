// config.nvlink on the ibnetdiscover source over the real InfiniBand stack
// (testing/ibsim-lab.ts: Debian's ibsim, the real ibnetdiscover through
// ibsim-run), with the built executable as the controller: two
// rail-optimised units of four hosts under two spines, every leaf cabled
// twice to each spine, the SM host first on the subnet, the hosts as Nodes
// carrying GB200 clique labels, and the NVLink scenario of nvlink-scenario.ts
// (mixed labelled and unlabelled Nodes, a rack split over units, a clique
// appearing later, nvlink on and off on the running fabric, every HyperNode
// write counted). Polls are an hour apart, so every change after a (re)start
// is a rebuild from the last output; config.command is a wrapper that counts
// each run of ibnetdiscover, so a rebuild that ran it would be seen.

import { test } from 'uvu';
import { addRailFabric, IbFabric, leafId, spineId } from '../../testing/ib-fabric.ts';
import { ibsimLabPerTest, ibsimLabUnavailable } from '../../testing/ibsim-lab.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { testNeeding } from '../support/skip.ts';
import { NS, assertNoForbidden } from './cluster.ts';
import { nvlinkScenario, seedNvlinkCluster, type NvlinkFabric } from './nvlink-scenario.ts';
import { session } from './session.ts';

const FABRIC = 'lab';
const HOSTS_PER_UNIT = 4;
const s = session(test);
const newLab = ibsimLabPerTest(test);
const withLab = testNeeding(ibsimLabUnavailable());

const hostsOf = (unit: number) => Array.from({ length: HOSTS_PER_UNIT }, (_, i) => `su${unit}-h${i + 1}`);

withLab(
  'the real ibnetdiscover on ibsim (the executable): GB200 cliques on the lab Nodes give NVLink domains inside the InfiniBand tree, in place both ways',
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const fabric = new IbFabric().addCa('sm-01', 1, 'sm-01 mlx5_0');
    addRailFabric(fabric, { units: 2, hostsPerUnit: HOSTS_PER_UNIT, rails: 2, spines: 2, parallel: 2 });
    fabric.cable('sm-01', leafId(1, 1));
    const lab = await newLab(fabric);
    const counted = lab.countedIbnetdiscover();
    const guid = (id: string) => fabric.nodes.get(id)!.guid.toString(16).padStart(16, '0');
    const base = `networkTopologyDiscovery:
  - source: ibnetdiscover
    enabled: true
    interval: 1h
    config:
      fabric: ${FABRIC}
      command: [ibnetdiscover, -C, ibsim0, -P, "1"]
      hcas: "^mlx5_[01]$"
`;
    const f: NvlinkFabric = {
      source: 'ibnetdiscover',
      config: (nvlink) => (nvlink === undefined ? base : `${base}      nvlink: ${nvlink}\n`),
      units: [hostsOf(1), hostsOf(2)],
      fabric: FABRIC,
      // A unit's group is named by its lowest switch GUID (rail 1's leaf), the spines' by spine 1's.
      leafGroups: [`${FABRIC}-leaf-${guid(leafId(1, 1))}`, `${FABRIC}-leaf-${guid(leafId(2, 1))}`],
      spine: `${FABRIC}-spine-${guid(spineId(1))}`,
      tierNames: { leaf: 'leaf', spine: 'spine' },
      reads: () => counted.runs(),
    };
    seedNvlinkCluster(api, f);
    s.controller = await startControllerBinary({
      kubeconfig,
      namespace: NS,
      flags: ['-v=3'],
      ibnetdiscoverCommand: counted.command,
    });
    await nvlinkScenario(s, api, f);
    assertNoForbidden(api);
  },
);

test.run();
