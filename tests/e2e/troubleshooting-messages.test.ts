// The log lines docs/troubleshooting.md tells an operator to grep for are the
// ones the shipped executable prints when the trouble happens: leader
// election starting and failing to read its Lease, the configuration being
// loaded, a failed watch, and HyperNode creates, updates and deletes the API
// server refuses (each retried), a refused Kueue Topology write, LLDP neighbours
// that are neither a switch nor a Node, and a standby replica seeing the leader: lines no
// other test produced.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { captureWalks, parseLldpCaptures } from '../../src/cmd/lldp-capture.ts';
import { parseConfig } from '../../src/hypernode/config/loader.ts';
import { createLldpDiscovererFactory } from '../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import { newDiscovererRegistry } from '../../src/hypernode/discovery/registry.ts';
import { previewDiscovery } from '../../src/hypernode/preview/preview.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { KUEUE_TOPOLOGY_CRD_FILE } from '../../testing/apiserver/index.ts';
import { nodeLabelOverlayRules } from '../../testing/component-rbac.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import {
  CLUSTER,
  groupOf,
  NS,
  RACK,
  seedConfigMap,
  setNodeLabels,
  TOPOLOGY_A3_CONFIG,
  workedExampleConverged,
  workedExampleNodes,
} from './cluster.ts';
import { session } from './session.ts';

const s = session(test);

test('leader election, the configuration, a failed watch and refused HyperNode writes are logged as troubleshooting.md quotes them', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  api.failNext(1, { code: 403, match: { resource: 'leases', verb: 'get' } });
  api.failNext(1, { code: 403, match: { resource: 'nodes', verb: 'watch' } });
  api.failNext(1, { code: 422, match: { resource: 'hypernodes', verb: 'create' } });
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await s.converge(() => workedExampleConverged(api), 'the worked example, after the refused create is retried');

  // An update (a Node moves to a new rack under s4) and a delete (rack s3 emptied), each refused once.
  api.failNext(1, { code: 422, match: { resource: 'hypernodes', verb: 'update' } });
  api.failNext(1, { code: 422, match: { resource: 'hypernodes', verb: 'delete' } });
  setNodeLabels(api, 'node1', { [RACK]: 's9', [CLUSTER]: 's4' });
  for (const name of ['node6', 'node7']) api.store.delete('nodes', name);
  await s.converge(
    () => groupOf(api, RACK, 's9') !== undefined && groupOf(api, RACK, 's3') === undefined,
    'rack s9 created and rack s3 deleted',
  );

  const log = controller.log();
  for (const line of [
    'Attempting to acquire leader lease',
    'Error retrieving resource lock',
    'Loading config from ConfigMap',
    'Failed to watch',
    'Failed to create HyperNode, will retry',
    'Failed to update HyperNode, will retry',
    'Failed to delete HyperNode, will retry',
  ])
    assert.ok(log.includes(line), `${line}\n--- controller log ---\n${log}`);
});

test('a refused Kueue Topology write is logged as troubleshooting.md quotes it, then retried', async () => {
  const { api, kubeconfig } = await s.startCluster(nodeLabelOverlayRules());
  api.installCrd(KUEUE_TOPOLOGY_CRD_FILE);
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(
    api,
    TOPOLOGY_A3_CONFIG.replace(
      '    enabled: true\n',
      '    enabled: true\n    exports:\n      nodeLabels: {prefix: topo.example.com}\n      kueueTopology: true\n',
    ),
  );
  api.failNext(1, { code: 422, match: { resource: 'topologies', verb: 'create' } });
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await s.converge(
    () => api.store.get('topologies.kueue.x-k8s.io', 'hypernode-label'),
    'the Kueue Topology written on retry',
  );
  assert.match(controller.log(), /Failed to write Kueue Topology objects, will retry: /);
});

test('LLDP neighbours that are neither a switch nor a Node are logged by name, as troubleshooting.md quotes it', async () => {
  const log = capturingLogger({ verbosity: 0 });
  const config = parseConfig(
    'networkTopologyDiscovery:\n  - source: lldp\n    enabled: true\n    credentials: {secretRef: {name: lldp-snmp, namespace: volcano-system}}\n    config: {fabric: roce, switches: [10.0.0.1], hostMapping: {stripSuffix: .fabric.example.com}}\n',
  );
  const nodes = ['su1-h1', 'su1-h2', 'su1-h3', 'su2-h1', 'su2-h2'].map((name) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
  }));
  const captures = parseLldpCaptures([join(import.meta.dirname, '../cmd/lldp-capture')]);
  const registry = newDiscovererRegistry({
    lldp: createLldpDiscovererFactory({ captured: captureWalks(captures ?? { byKey: new Map() }) }),
  });
  await previewDiscovery(
    { config, nodes, existing: [] },
    {
      registry,
      secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no Secrets')) },
      logger: log.logger,
    },
  );
  assert.ok(
    log.lines.some(
      (l) =>
        l.startsWith('LLDP neighbours that are neither a polled switch nor a Node are left out') &&
        l.includes('su2-h3.fabric.example.com') &&
        l.includes('chassis mac 02:cc:00:13:01:01'),
    ),
    log.lines.join('\n'),
  );
});

test('a standby replica reports the leader it observes', async () => {
  const { api, kubeconfig } = await s.startCluster();
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  const now = new Date().toISOString().replace(/Z$/, '000Z');
  api.store.create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'vc-hypernode-controller-manager', namespace: NS },
    spec: {
      holderIdentity: 'the-other-replica',
      leaseDurationSeconds: 3600,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    },
  });
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await s.converge(
    () => controller.log().includes('Observed HyperNode controller leader'),
    'the standby to observe the leader',
  );
  assert.match(controller.log(), /Observed HyperNode controller leader identity="the-other-replica"/);
});

test.run();
