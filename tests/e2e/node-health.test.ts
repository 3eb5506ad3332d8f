// NodesReady end to end (runServer in-process against the API server
// stand-in, chart RBAC; docs/health.md): with `health: {nodes: true}` every
// label HyperNode carries NodesReady; a Node turning NotReady or Unknown
// marks exactly the HyperNodes above it, one status write each, recovery
// clears it, cordoning has its own reason, and none of it touches members,
// names or uids. Turning health.nodes off removes the conditions.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode, HyperNodeCondition } from '../../src/hypernode/model/hypernode-types.ts';
import { SAMPLE_DISCOVERY_CONFIG, sampleNodes, type SampleShape } from '../../testing/sample-cluster.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import {
  answeredHyperNodeWrites,
  assertNoDeletes,
  assertNoForbidden,
  byName,
  describeWrites,
  hyperNodes,
  NS,
  nodeCountsSettled,
  seedConfigMap,
  setDiscoveryConfig,
  topologyShape,
} from './cluster.ts';
import { session } from './session.ts';

const s = session(test);
const SHAPE: SampleShape = { zones: 1, spinesPerZone: 2, racksPerSpine: 2, nodesPerRack: 2 };
const HEALTH_ON = `${SAMPLE_DISCOVERY_CONFIG}health:\n  nodes: true\n`;

type Ready = 'True' | 'False' | 'Unknown';
function setNode(api: ApiServer, name: string, change: { ready?: Ready; unschedulable?: boolean }): void {
  const n = api.store.get('nodes', name) as {
    spec?: Record<string, unknown>;
    status?: { conditions?: { type: string; status: string }[] };
  };
  const ready = change.ready ?? n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'True';
  api.store.update({
    ...n,
    spec: { ...n.spec, unschedulable: change.unschedulable ?? n.spec?.unschedulable ?? false },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready,
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastTransitionTime: '2026-12-01T00:00:00Z',
          lastHeartbeatTime: '2026-12-01T00:00:00Z',
        },
      ],
    },
  } as never);
}

const nodesReady = (hn: HyperNode | undefined): HyperNodeCondition | undefined =>
  hn?.status?.conditions?.find((c) => c.type === 'NodesReady');
/** name → `status reason` of NodesReady, for whole-cluster comparisons. */
const readiness = (api: ApiServer) =>
  new Map(
    hyperNodes(api, 'label').map((hn) => [hn.metadata.name, `${nodesReady(hn)?.status} ${nodesReady(hn)?.reason}`]),
  );
/** The HyperNodes above a Node: its rack, then every HyperNode naming one already found. */
function above(api: ApiServer, node: string): string[] {
  const all = hyperNodes(api, 'label');
  const found = new Set<string>();
  let frontier = [node];
  while (frontier.length > 0) {
    const next = all.filter((hn) => memberNames(hn).some((m) => frontier.includes(m))).map((hn) => hn.metadata.name);
    for (const n of next) found.add(n);
    frontier = next;
  }
  return [...found].sort();
}

async function startHealthy() {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of sampleNodes(SHAPE)) api.store.create(n);
  for (const n of sampleNodes(SHAPE)) setNode(api, n.metadata.name, { ready: 'True' });
  seedConfigMap(api, HEALTH_ON);
  const controller = s.startInProcess(kubeconfig);
  await s.converge(() => {
    const all = hyperNodes(api, 'label');
    return all.length === 7 && all.every((hn) => nodesReady(hn)?.reason === 'AllNodesReady') && nodeCountsSettled(api);
  }, 'seven label HyperNodes with NodesReady=True');
  return { api, controller };
}

/**
 * Waits until the HyperNodes above `node` are `status reason` and all others are as `before`; returns the status writes
 * since `api.requests.clear()`.
 */
async function expectAbove(api: ApiServer, node: string, want: string, before: Map<string, string>, what: string) {
  const marked = above(api, node);
  await s.converge(
    () => {
      const now = readiness(api);
      return [...now].every(([name, r]) => (marked.includes(name) ? r === want : r === before.get(name)));
    },
    `${what}: ${marked.join(', ')} ${want}, the others unchanged (now ${JSON.stringify([...readiness(api)])})`,
  );
  const writes = await answeredHyperNodeWrites(api);
  assert.equal(
    describeWrites(writes).sort(),
    marked.map((n) => `update ${n}/status → 200`).sort(),
    `${what}: one status write per HyperNode above ${node}`,
  );
  return marked;
}

test('a NotReady, then Unknown, then Ready Node marks exactly the HyperNodes above it, one write each per flip', async () => {
  const { api } = await startHealthy();
  const healthy = readiness(api);
  const shape = topologyShape(api);
  api.requests.clear();

  setNode(api, 'node-2', { ready: 'False' });
  const marked = await expectAbove(api, 'node-2', 'False NodesNotReady', healthy, 'node-2 NotReady');
  assert.is(marked.length, 3, 'rack, spine and zone');
  const rack = byName(hyperNodes(api)).get(
    marked.find((n) => memberNames(byName(hyperNodes(api)).get(n)).includes('node-2'))!,
  )!;
  assert.is(nodesReady(rack)!.message, '1 of 2 Nodes not ready: node-2 (NotReady).');
  const zone = hyperNodes(api, 'label').find((hn) => hn.spec?.tier === 3)!;
  assert.is(nodesReady(zone)!.message, '1 of 8 Nodes not ready: node-2 (NotReady).');

  api.requests.clear();
  setNode(api, 'node-2', { ready: 'Unknown' });
  await s.converge(
    () => marked.every((n) => nodesReady(byName(hyperNodes(api)).get(n))?.message.includes('node-2 (Unknown)')),
    'the messages above node-2 to say Unknown',
  );
  await expectAbove(api, 'node-2', 'False NodesNotReady', healthy, 'node-2 Unknown');

  api.requests.clear();
  setNode(api, 'node-2', { ready: 'True' });
  await expectAbove(api, 'node-2', 'True AllNodesReady', healthy, 'node-2 Ready again');

  assert.equal(topologyShape(api), shape, 'members, names and uids unchanged');
  const events = () =>
    (api.store.list('events', NS) as unknown as { reason: string; message: string }[]).filter((e) =>
      e.message.includes(rack.metadata.name),
    );
  // Events are filed after the write they follow, best effort: wait for them.
  await s.converge(() => events().some((e) => e.reason === 'HyperNodeUnhealthy'), 'a Warning on the way down');
  await s.converge(() => events().some((e) => e.reason === 'HyperNodeHealthy'), 'a Normal Event on the way up');
  assertNoDeletes(api);
  assertNoForbidden(api);
});

test('a cordoned Node keeps NodesReady True with its own reason; a deleted Node leaves through the label source, nothing else moves', async () => {
  const { api } = await startHealthy();
  const healthy = readiness(api);
  api.requests.clear();
  setNode(api, 'node-5', { unschedulable: true });
  await expectAbove(api, 'node-5', 'True NodesCordoned', healthy, 'node-5 cordoned');
  const rackOf5 = above(api, 'node-5')
    .map((n) => byName(hyperNodes(api)).get(n)!)
    .find((hn) => hn.spec?.tier === 1)!;
  assert.is(nodesReady(rackOf5)!.message, 'Every Node is Ready; 1 cordoned: node-5.');

  setNode(api, 'node-5', { unschedulable: false });
  await s.converge(() => [...readiness(api).values()].every((r) => r === 'True AllNodesReady'), 'node-5 uncordoned');
  const others = topologyShape(api).filter((t) => !t.includes(rackOf5.metadata.name));
  api.store.delete('nodes', 'node-5');
  await s.converge(() => {
    const rack = byName(hyperNodes(api)).get(rackOf5.metadata.name);
    return memberNames(rack).join() === 'node-4' && nodesReady(rack)?.message === 'Every Node is Ready.';
  }, 'the rack without node-5, judged on its remaining Node');
  assert.equal(
    topologyShape(api).filter((t) => !t.includes(rackOf5.metadata.name)),
    others,
    'every other HyperNode unchanged',
  );
  assertNoDeletes(api);
});

test('turning health.nodes off removes NodesReady (one write each) and stops the Node health watch; on again brings it back', async () => {
  const { api } = await startHealthy();
  api.requests.clear();
  setDiscoveryConfig(api, SAMPLE_DISCOVERY_CONFIG);
  await s.converge(() => hyperNodes(api, 'label').every((hn) => nodesReady(hn) === undefined), 'NodesReady removed');
  const writes = await answeredHyperNodeWrites(api);
  assert.equal(
    describeWrites(writes).sort(),
    hyperNodes(api, 'label')
      .map((hn) => `update ${hn.metadata.name}/status → 200`)
      .sort(),
  );
  // With the watch stopped a Node failing writes nothing.
  await s.converge(() => s.log().includes('Node health off'), 'the Node health watch to stop');
  api.requests.clear();
  setNode(api, 'node-1', { ready: 'False' });
  setDiscoveryConfig(api, HEALTH_ON);
  await s.converge(
    () => hyperNodes(api, 'label').every((hn) => nodesReady(hn) !== undefined),
    'NodesReady back on every HyperNode',
  );
  await s.converge(
    () => above(api, 'node-1').every((n) => readiness(api).get(n) === 'False NodesNotReady'),
    'node-1 judged NotReady above it',
  );
  assert.equal(
    hyperNodes(api, 'label')
      .filter((hn) => nodesReady(hn)?.status === 'False')
      .map((hn) => hn.metadata.name)
      .sort(),
    above(api, 'node-1'),
  );
});

test('a broken health mapping is reported and changes nothing: node health stays on and keeps judging', async () => {
  const { api } = await startHealthy();
  setDiscoveryConfig(api, `${SAMPLE_DISCOVERY_CONFIG}health:\n  nodes: maybe\n`);
  const warning = await s.converge(
    () =>
      (api.store.list('events', NS) as unknown as { reason: string; message: string }[]).find(
        (e) => e.reason === 'DiscoveryConfigInvalid',
      ),
    'a DiscoveryConfigInvalid Warning',
  );
  assert.match(warning.message, 'health.nodes must be true or false, got "maybe"');
  setNode(api, 'node-6', { ready: 'False' });
  await s.converge(
    () => above(api, 'node-6').every((n) => readiness(api).get(n) === 'False NodesNotReady'),
    'node-6 still judged',
  );
  assert.ok(
    hyperNodes(api, 'label').every((hn) => nodesReady(hn) !== undefined),
    'NodesReady kept everywhere',
  );
});

test.run();
