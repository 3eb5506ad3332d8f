// A leader frozen past its lease must never write after it resumes. Two
// replicas of the built executable, each with its own ServiceAccount token so
// the stand-in's request log tells them apart: A leads and writes the
// topology, B stands by; A is frozen (SIGSTOP) until B holds the Lease and has
// written the topology for relabelled Nodes; then A resumes (SIGCONT).
//
// A is frozen in the middle of a reconcile, with one HyperNode write in
// flight. On resuming, the answer arrives as I/O, before any overdue timer
// runs, and the reconcile goes straight on to its next write: the renew loop
// cannot notice the lost lease first. More relabels wait on A's open Node
// watch. Without the fence A writes its outdated topology over B's. A must
// exit non-zero with "lost lease", make no write of any kind (HyperNode,
// status, Event, Lease) after resuming, and its log must show the write it
// tried being refused.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiServer, RequestRecord } from '../../testing/apiserver/index.ts';
import { startReplicaCluster, type ReplicaCluster } from '../../testing/replica-process.ts';
import { waitFor, within } from '../../testing/wait.ts';
import {
  CLUSTER,
  LEASE,
  NS,
  RACK,
  groupOf,
  hyperNodes,
  nodeCount,
  seedConfigMap,
  setNodeLabels,
  TOPOLOGY_A3_CONFIG,
  workedExampleConverged,
  workedExampleNodes,
  FAST_LEASE_TIMINGS,
  REPLICA_A,
  REPLICA_B,
  WRITE_VERBS,
} from './cluster.ts';
import { memberNames } from '../../testing/hypernode-members.ts';

const LEASE_MS = 4_000;
/** Generous for a loaded 2-core machine. */
const STEP_TIMEOUT_MS = 30_000;
/** How long A's HyperNode writes are held before the answer, so A can be frozen with one in flight. */
const WRITE_IN_FLIGHT_MS = 1_500;

let cluster: ReplicaCluster;
let api: ApiServer;

test.before(async () => {
  cluster = await startReplicaCluster({ namespace: NS, leaseName: LEASE, timings: FAST_LEASE_TIMINGS });
  api = cluster.api;
});
test.after(() => cluster.close());

const describe = (rs: RequestRecord[]) => rs.map((r) => `${r.method} ${r.path} → ${r.code}`);
/** name → resourceVersion of every HyperNode: any write to one changes it. */
const snapshot = () => Object.fromEntries(hyperNodes(api).map((hn) => [hn.metadata.name, hn.metadata.resourceVersion]));

async function step<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string): Promise<T> {
  try {
    return await waitFor(probe, { timeoutMs: STEP_TIMEOUT_MS, what });
  } catch (err) {
    const logs = cluster.replicas.map((r, i) => `--- replica ${'AB'[i]} log ---\n${r.log()}`).join('\n');
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}

test('a leader frozen past its lease writes nothing after it resumes and exits with "lost lease"; the topology stays the new leader\'s', async () => {
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);

  const a = await cluster.start(REPLICA_A);
  await step(() => a.identity() && cluster.holder() === a.identity(), 'A leading');
  await step(() => workedExampleConverged(api), 'A writing the six HyperNodes of the worked example');
  const b = await cluster.start(REPLICA_B);
  await step(
    async () => b.identity() && (await fetch(`http://127.0.0.1:${b.health}/readyz`)).status === 200,
    'B standing by (ready as a follower)',
  );

  // A is frozen in the middle of a reconcile, with one HyperNode write in
  // flight: node0 moves into a new rack s6 while A's HyperNode writes are slow.
  const hyperNodeWriteByA = (r: RequestRecord) =>
    r.user === REPLICA_A && r.resource === 'hypernodes' && WRITE_VERBS.includes(r.verb);
  const slowWrites = api.latency(WRITE_IN_FLIGHT_MS, hyperNodeWriteByA);
  setNodeLabels(api, 'node0', { [RACK]: 's6' });
  await step(
    () => api.requests.all((r) => hyperNodeWriteByA(r) && r.code === 0).length > 0,
    'a HyperNode write by A in flight',
  );
  a.child.kill('SIGSTOP');
  const stoppedAt = Date.now();
  slowWrites();
  await step(() => cluster.holder() === b.identity(), 'B holding the Lease while A is frozen');
  const takeoverMs = Date.now() - stoppedAt;
  assert.ok(takeoverMs >= LEASE_MS - 500, `B took over after ${takeoverMs} ms, before A's lease could have expired`);

  // More input for A while it is frozen (it waits on A's Node watch): node6 and node7 into s2, rack s3 emptied.
  setNodeLabels(api, 'node6', { [RACK]: 's2' });
  setNodeLabels(api, 'node7', { [RACK]: 's2' });
  const newTopology = () =>
    memberNames(groupOf(api, RACK, 's6')).join() === 'node0' &&
    memberNames(groupOf(api, RACK, 's2')).join() === 'node4,node5,node6,node7' &&
    groupOf(api, RACK, 's3') === undefined &&
    memberNames(groupOf(api, CLUSTER, 's5')).length === 1 &&
    // nodeCount: Nodes in a rack, member racks in a cluster.
    [
      nodeCount(groupOf(api, RACK, 's6')),
      nodeCount(groupOf(api, RACK, 's2')),
      nodeCount(groupOf(api, CLUSTER, 's4')),
      nodeCount(groupOf(api, CLUSTER, 's5')),
    ].join() === '1,4,3,1';
  await step(
    () =>
      newTopology() &&
      api.requests.writes((r) => r.user === REPLICA_B && r.resource === 'hypernodes').every((r) => r.code !== 0),
    'B writing the new topology',
  );
  const byB = snapshot();

  const resumedIndex = api.requests.all().length;
  const frozenMs = Date.now() - stoppedAt;
  a.child.kill('SIGCONT');

  const code = await within(a.exit, STEP_TIMEOUT_MS, 'A exiting after it resumed').catch((err: Error) => {
    throw new Error(`${err.message}\n--- replica A log ---\n${a.log()}`);
  });
  const afterResume = api.requests.all().slice(resumedIndex);
  const writesByA = afterResume.filter((r) => r.user === REPLICA_A && WRITE_VERBS.includes(r.verb));
  assert.equal(describe(writesByA), [], `A wrote after it resumed\n--- replica A log ---\n${a.log()}`);
  assert.is(code, 1, `A exits 1 like Go on a lost lease\n${a.log()}`);
  assert.match(a.log(), /Failed to renew lease, leadership lost/);
  assert.match(a.log(), /^lost lease$/m);
  assert.ok(
    /write refused, this process no longer leads/.test(a.log()),
    `A acted on its input and the fence refused the write\n--- replica A log ---\n${a.log()}`,
  );

  // B still leads and the topology is the one B wrote, untouched.
  assert.is(cluster.holder(), b.identity());
  assert.ok(b.running());
  assert.ok(newTopology());
  assert.equal(snapshot(), byB, 'no HyperNode changed since B wrote the new topology');
  const refused = (a.log().match(/write refused/g) ?? []).length;
  const inFlight = afterResume.filter((r) => r.user === REPLICA_A).length;
  console.log(
    `  frozen ${frozenMs} ms (takeover after ${takeoverMs} ms); A exited ${code}; ` +
      `A's requests after resuming: ${inFlight}, writes refused by the fence: ${refused}`,
  );
});

test.run();
