// config.nvlink with the built executable under the chart's RBAC, on UFM
// fabric mode and UFM legacy mode (the UFM stand-in) and on the graph source
// (the inventory stand-in): the NVLink scenario of nvlink-scenario.ts on a
// running fabric, with every HyperNode write counted (mixed labelled and
// unlabelled Nodes, a rack split over units, a clique appearing later,
// turning nvlink on and off). Polls are an hour apart, so every change after
// a (re)start is a rebuild from the last poll.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lowestGuid } from '../../testing/fat-tree.ts';
import { GraphServer, railGraphDocument } from '../../testing/graph-server.ts';
import { computerPorts, TEST_CA, UfmServer } from '../../testing/ufm-server.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { NS, UFM_SECRET, assertNoForbidden, secretObject } from './cluster.ts';
import { nvlinkScenario, seedNvlinkCluster, twoUnitUfmFabric, type NvlinkFabric } from './nvlink-scenario.ts';
import { session } from './session.ts';

const s = session(test);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));
let graphServer: GraphServer | undefined;
test.after.each(async () => {
  await graphServer?.close();
  graphServer = undefined;
});

const pad2 = (n: number) => String(n).padStart(2, '0');
const nvlinkLine = (nvlink?: string) => (nvlink === undefined ? '' : `      nvlink: ${nvlink}\n`);
const ufmEntry = (config: string) => `networkTopologyDiscovery:
  - source: ufm
    enabled: true
    interval: 1h
    credentials:
      secretRef: {name: ${UFM_SECRET}, namespace: ${NS}}
    config:
${config}`;

/** The UFM stand-in with its Secret (basic auth and the stand-in's CA) in the cluster. */
async function startUfm(api: Parameters<typeof seedNvlinkCluster>[0]): Promise<UfmServer> {
  const ufm = (s.ufm = await new UfmServer().start());
  const credentials = { username: ufm.username, password: ufm.password, 'ca.crt': TEST_CA };
  api.store.apply(secretObject(UFM_SECRET, credentials, { endpoints: [ufm.endpoint()] }));
  return ufm;
}

/**
 * Seeds the Nodes and the document, starts the executable (chart RBAC, -v=3) and runs the scenario; no request may be
 * refused.
 */
async function runScenario(
  api: Parameters<typeof seedNvlinkCluster>[0],
  kubeconfig: string,
  f: NvlinkFabric,
): Promise<void> {
  seedNvlinkCluster(api, f);
  s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=3'] });
  await nvlinkScenario(s, api, f);
  assertNoForbidden(api);
}

test('UFM fabric mode (the executable): NVLink domains inside the fabric tree, turned on and off in place, a later clique moved without a poll', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const ufm = await startUfm(api);
  const fabric = twoUnitUfmFabric();
  ufm.answer = { kind: 'fabric', fabric };
  const f: NvlinkFabric = {
    source: 'ufm',
    config: (nvlink) =>
      ufmEntry(`      mode: fabric\n      fabric: gb200\n      endpoint: "${ufm.endpoint()}"\n${nvlinkLine(nvlink)}`),
    units: [fabric.hosts.slice(0, 4), fabric.hosts.slice(4)],
    fabric: 'gb200',
    leafGroups: [
      `gb200-leaf-${[...fabric.leafGuids[0]!].sort()[0]}`,
      `gb200-leaf-${[...fabric.leafGuids[1]!].sort()[0]}`,
    ],
    spine: `gb200-spine-${lowestGuid(fabric, 'spine-')}`,
    tierNames: { leaf: 'leaf', spine: 'spine' },
    reads: () => ufm.requests.length,
  };
  await runScenario(api, kubeconfig, f);
});

test("UFM legacy mode (the executable): NVLink domains below Volcano's leaf-hn-<i>, spine-hn on top, in place both ways", async () => {
  const { api, kubeconfig } = await s.startCluster();
  const ufm = await startUfm(api);
  const units = [1, 2].map((su) => [1, 2, 3, 4].map((n) => `gb-su${pad2(su)}-n${pad2(n)}`)) as [string[], string[]];
  ufm.answer = {
    kind: 'ports',
    ports: [
      ...computerPorts(units[0], ['su01-leaf-r1', 'su01-leaf-r2']),
      ...computerPorts(units[1], ['su02-leaf-r1', 'su02-leaf-r2']),
    ],
  };
  const f: NvlinkFabric = {
    source: 'ufm',
    config: (nvlink) => ufmEntry(`      endpoint: "${ufm.endpoint()}"\n${nvlinkLine(nvlink)}`),
    units,
    // Legacy mode's one endpoint is fabric "ufm".
    fabric: 'ufm',
    leafGroups: ['leaf-hn-0', 'leaf-hn-1'],
    spine: 'spine-hn',
    reads: () => ufm.requests.length,
  };
  await runScenario(api, kubeconfig, f);
});

test('graph source (the executable): NVLink domains inside the graph tree, in place both ways, a later clique moved without fetching the graph', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const server = (graphServer = await new GraphServer().start());
  server.token = 'inventory-token';
  server.answer = {
    status: 200,
    body: JSON.stringify(railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 4, spines: 2 })),
  };
  api.store.create(
    secretObject('inventory', { token: 'inventory-token', 'ca.crt': TEST_CA }, { endpoints: [server.url()] }),
  );
  const f: NvlinkFabric = {
    source: 'graph',
    config: (nvlink) => `networkTopologyDiscovery:
  - source: graph
    enabled: true
    interval: 1h
    credentials: {secretRef: {name: inventory, namespace: ${NS}}}
    config:
      fabric: lab
      url: "${server.url()}"
${nvlinkLine(nvlink)}`,
    units: [1, 2].map((su) => [1, 2, 3, 4].map((h) => `su${su}-h${h}`)) as [string[], string[]],
    fabric: 'lab',
    leafGroups: ['lab-leaf-leaf-su1-r1', 'lab-leaf-leaf-su2-r1'],
    spine: 'lab-spine-spine-1',
    tierNames: { leaf: 'leaf', spine: 'spine' },
    reads: () => server.authorizations.length,
  };
  await runScenario(api, kubeconfig, f);
});

test.run();
