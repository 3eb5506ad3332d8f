// Node label patches are fenced by the leader's lease like every write. Two
// replicas of the built executable with exports.nodeLabels on and the
// deploy/node-labels RBAC: A leads and labels 32 Nodes, B stands by; 24 Nodes
// move racks, and A is frozen (SIGSTOP) in the middle of patching them, with
// patches in flight and more queued behind them, until B leads and has
// relabelled them; then A resumes (SIGCONT) with answers to read and patches
// queued. A must exit 1 without any write after resuming, and every Node
// keeps B's labels. (Which guard stops A first, the write fence of its client
// set or the shutdown that the lost lease starts, depends on the order its
// event loop wakes in; both are there, and either keeps the stale patches
// from being sent.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiServer, RequestRecord } from '../../testing/apiserver/index.ts';
import { nodeLabelOverlayRules } from '../../testing/component-rbac.ts';
import { startReplicaCluster, type ReplicaCluster } from '../../testing/replica-process.ts';
import { waitFor, within } from '../../testing/wait.ts';
import {
  CLUSTER,
  LEASE,
  NS,
  RACK,
  TOPOLOGY_A3_ENTRY,
  groupOf,
  node,
  seedConfigMap,
  setNodeLabels,
  workedExampleNodes,
  FAST_LEASE_TIMINGS,
  REPLICA_A,
  REPLICA_B,
  WRITE_VERBS,
} from './cluster.ts';

const STEP_TIMEOUT_MS = 30_000;
/** How long A's Node patches are held before the answer, so A can be frozen with one in flight. */
const PATCH_IN_FLIGHT_MS = 1_500;
const KEY = 'topo.example.com/hypernode';
const CONFIG = `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY.replace('    enabled: true\n', '    enabled: true\n    exports:\n      nodeLabels: {prefix: topo.example.com}\n')}`;

let cluster: ReplicaCluster;
let api: ApiServer;

test.before(async () => {
  cluster = await startReplicaCluster({
    namespace: NS,
    leaseName: LEASE,
    timings: FAST_LEASE_TIMINGS,
    extraRules: nodeLabelOverlayRules(),
  });
  api = cluster.api;
});
test.after(() => cluster.close());

async function step<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string): Promise<T> {
  try {
    return await waitFor(probe, { timeoutMs: STEP_TIMEOUT_MS, what });
  } catch (err) {
    throw new Error(
      `${(err as Error).message}\n${cluster.replicas.map((r, i) => `--- replica ${'AB'[i]} log ---\n${r.log()}`).join('\n')}`,
    );
  }
}

const label = (node: string) =>
  (api.store.get('nodes', node) as { metadata: { labels?: Record<string, string> } }).metadata.labels?.[KEY];
/** The rack label value each Node should carry: the name of the rack HyperNode holding it. */
const rackOf = (node: string) =>
  (api.store.get('nodes', node) as { metadata: { labels: Record<string, string> } }).metadata.labels[RACK]!;
const labelsFollowRacks = (nodes: string[]) =>
  nodes.every((n) => label(n) !== undefined && label(n) === groupOf(api, RACK, rackOf(n))?.metadata.name);

test("a leader frozen with a Node patch in flight patches nothing after it resumes; the labels stay the new leader's", async () => {
  const extra = Array.from({ length: 24 }, (_, i) => node(`extra${i}`, { [RACK]: `r${i >> 2}`, [CLUSTER]: 's4' }));
  const nodes = [...workedExampleNodes(), ...extra];
  for (const n of nodes) api.store.create(n);
  seedConfigMap(api, CONFIG);
  const names = nodes.map((n) => n.metadata.name);

  const a = await cluster.start(REPLICA_A);
  await step(
    () => a.identity() && cluster.holder() === a.identity() && labelsFollowRacks(names),
    'A leading and every Node labelled',
  );
  const b = await cluster.start(REPLICA_B);
  await step(
    async () => b.identity() && (await fetch(`http://127.0.0.1:${b.health}/readyz`)).status === 200,
    'B standing by',
  );

  const patchByA = (r: RequestRecord) => r.user === REPLICA_A && r.resource === 'nodes' && r.verb === 'patch';
  const slow = api.latency(PATCH_IN_FLIGHT_MS, patchByA);
  for (const [i, n] of extra.entries()) setNodeLabels(api, n.metadata.name, { [RACK]: `q${i >> 2}` });
  await step(() => api.requests.all((r) => patchByA(r) && r.code === 0).length > 0, 'Node patches by A in flight');
  a.child.kill('SIGSTOP');
  slow();
  await step(() => cluster.holder() === b.identity(), 'B holding the Lease while A is frozen');
  await step(
    () => labelsFollowRacks(names) && api.requests.writes((r) => r.user === REPLICA_B).every((r) => r.code !== 0),
    'B relabelling the Nodes that moved',
  );
  const byB = Object.fromEntries(names.map((n) => [n, label(n)]));

  const resumedIndex = api.requests.all().length;
  a.child.kill('SIGCONT');
  const code = await within(a.exit, STEP_TIMEOUT_MS, 'A exiting after it resumed');
  const writesByA = api.requests
    .all()
    .slice(resumedIndex)
    .filter((r) => r.user === REPLICA_A && WRITE_VERBS.includes(r.verb));
  assert.equal(
    writesByA.map((r) => `${r.method} ${r.path} → ${r.code}`),
    [],
    `A wrote after it resumed\n--- replica A log ---\n${a.log()}`,
  );
  assert.is(code, 1, a.log());
  assert.equal(Object.fromEntries(names.map((n) => [n, label(n)])), byB, 'every Node keeps the labels B wrote');
  assert.ok(b.running());
});

test.run();
