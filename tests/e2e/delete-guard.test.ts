// The mass-delete guard end to end (the executable, chart RBAC): when 60 % of
// the Nodes of a label topology have lost their rack (half deleted, half
// relabelled) while the controller was down, its first run applies the
// update of the cluster HyperNode but sends no DELETE for the 12 racks, and
// says so in a Warning Event, a log line and a gauge; raising
// maxDeletePercent in the ConfigMap restarts the source and lets the deletes
// through. The change is made while no controller runs so that exactly one
// discovery run sees all of it: made live, a loaded machine may split the
// burst across the label source's debounce, and each run is judged alone.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startControllerBinary } from '../support/controller-process.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import {
  CLUSTER,
  CONFIG_MAP,
  NS,
  RACK,
  TOPOLOGY_A3_ENTRY,
  answeredHyperNodeWrites,
  assertNoDeletes,
  assertNoForbidden,
  describeWrites,
  groupOf,
  hyperNodes,
  node,
  seedConfigMap,
  setDiscoveryConfig,
  setNodeLabels,
} from './cluster.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { session } from './session.ts';

const s = session(test);
const converge = s.converge.bind(s);

const NODES = 20;
/** 12 of the 20 Nodes, and so 12 of the 21 label HyperNodes (57 %): above the default limit of 50, below 70. */
const GONE = 12;
const nodeName = (i: number) => `node${String(i).padStart(2, '0')}`;
// A removed rack label applies at once (labelGracePeriod 0s): the label memory, which would keep those Nodes in
// place for a while, is tested in label-blink.test.ts; here every removal reaches the guard in one run.
const config = (maxDeletePercent?: number) =>
  `health: {labelGracePeriod: 0s}\nnetworkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY}${maxDeletePercent === undefined ? '' : `    maxDeletePercent: ${maxDeletePercent}\n`}`;

type Ev = { type: string; reason: string; message: string; involvedObject: { kind: string; name: string } };

test('deleting or relabelling 60 % of the Nodes holds the 12 HyperNode deletes until maxDeletePercent is raised', async () => {
  const { api, kubeconfig } = await s.startCluster();
  // Each Node in its own rack, every rack in one cluster: 20 rack HyperNodes and 1 cluster HyperNode.
  for (let i = 0; i < NODES; i++) api.store.create(node(nodeName(i), { [RACK]: `r${i}`, [CLUSTER]: 'c0' }));
  seedConfigMap(api, config());
  s.controller = await startControllerBinary({ kubeconfig, namespace: NS });
  await converge(() => hyperNodes(api, 'label').length === NODES + 1, `${NODES + 1} label HyperNodes`);
  const racksGoing = Array.from({ length: GONE }, (_, i) => groupOf(api, RACK, `r${i}`)!.metadata.name).sort();
  const clusterName = groupOf(api, CLUSTER, 'c0')!.metadata.name;
  assert.is(await s.controller.stop(), 0);

  // A drained node pool or a botched relabel: half the Nodes deleted, half without their rack.
  for (let i = 0; i < GONE; i++) {
    if (i % 2 === 0) api.store.delete('nodes', nodeName(i));
    else setNodeLabels(api, nodeName(i), { [RACK]: undefined });
  }
  api.requests.clear();
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  const metrics = async () => controller.metrics();

  await converge(
    async () => seriesValue(await metrics(), 'hypernode_deletes_held', { source: 'label' }) === GONE,
    `hypernode_deletes_held{source="label"} = ${GONE}`,
  );
  await converge(
    () => memberNames(groupOf(api, CLUSTER, 'c0')).length === NODES - GONE,
    'the cluster HyperNode updated to the 8 remaining racks',
  );
  assertNoDeletes(api);
  assert.is(hyperNodes(api, 'label').length, NODES + 1, 'every HyperNode is still there');
  assert.ok(
    describeWrites(await answeredHyperNodeWrites(api)).includes(`update ${clusterName} → 200`),
    'the update was applied',
  );

  const events = () => api.store.list('events', NS) as unknown as Ev[];
  const onConfigMap = (reason: string) =>
    events().filter(
      (e) => e.reason === reason && e.involvedObject.kind === 'ConfigMap' && e.involvedObject.name === CONFIG_MAP,
    );
  const heldEvent = await converge(() => onConfigMap('DeletesHeld')[0], 'a DeletesHeld Event on the ConfigMap');
  assert.is(heldEvent.type, 'Warning');
  assert.match(heldEvent.message, `would delete ${GONE} of the ${NODES + 1} HyperNodes it owns`);
  assert.match(heldEvent.message, 'set maxDeletePercent to 58 or more on the "label" entry');
  const summary = await converge(
    () => onConfigMap('TopologyChanged').find((e) => e.message.includes('deletes held')),
    'a TopologyChanged Event naming the held deletes',
  );
  assert.is(summary.type, 'Normal');
  assert.is(summary.message, `Discovery source "label": 0 created, 1 updated, 0 deleted, ${GONE} deletes held`);
  assert.match(controller.log(), /Holding HyperNode deletes of a discovery run.*held=12/);

  // The operator confirms the deletion by raising the limit for the label source.
  setDiscoveryConfig(api, config(70));
  await converge(
    () => hyperNodes(api, 'label').length === NODES - GONE + 1,
    `the ${GONE} racks deleted after maxDeletePercent was raised`,
  );
  await converge(
    async () => seriesValue(await metrics(), 'hypernode_deletes_held', { source: 'label' }) === 0,
    'hypernode_deletes_held back to 0',
  );
  const deletes = (await answeredHyperNodeWrites(api)).filter((r) => r.verb === 'delete');
  assert.equal(
    deletes.map((r) => `${r.name} → ${r.code}`).sort(),
    racksGoing.map((name) => `${name} → 200`),
    'exactly the held racks, each deleted once',
  );
  assertNoForbidden(api);
});

test.run();
