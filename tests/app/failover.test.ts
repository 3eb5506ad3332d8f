// Three replicas of what we ship (the built executable) against the API
// server stand-in with the chart's RBAC: exactly one leader, every replica
// ready (followers through OnNewLeader), /healthz and /metrics served;
// `kill -9` of the leader fails over within the lease duration plus retry
// periods; SIGTERM of the leader releases the Lease so a standby takes over
// well before the lease would expire.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startReplicaCluster, type ReplicaCluster } from '../../testing/replica-process.ts';
import { waitFor } from '../../testing/wait.ts';

const NS = 'volcano-system';
const LEASE = 'vc-hypernode-controller-manager';
const LEASE_S = 6;
const RETRY_MS = 500;
/** Scheduling slack on a loaded 2-core machine. */
const SLACK_MS = 3_000;
const TIMINGS = { leaseDuration: `${LEASE_S}s`, renewDeadline: '4s', retryPeriod: `${RETRY_MS}ms` };

async function httpStatus(port: number, path: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  await res.arrayBuffer();
  return res.status;
}

let cluster: ReplicaCluster;

test.before(async () => {
  cluster = await startReplicaCluster({ namespace: NS, leaseName: LEASE, timings: TIMINGS });
});
test.after(() => cluster.close());

test('one leader among three replicas; kill -9 fails over within the lease; SIGTERM hands over within about two retry periods', async () => {
  for (let i = 0; i < 3; i++) await cluster.start(`system:serviceaccount:${NS}:hn`);
  const replicas = cluster.replicas;

  await waitFor(() => replicas.every((r) => r.identity()), { timeoutMs: 20_000, what: 'every replica campaigning' });
  for (const r of replicas) {
    await waitFor(async () => (await httpStatus(r.health, '/readyz')) === 200, {
      timeoutMs: 20_000,
      what: `replica ${r.identity()} ready`,
    });
    assert.is(await httpStatus(r.health, '/healthz'), 200);
  }
  const leaders = () => replicas.filter((r) => r.identity() === cluster.holder());
  assert.is(leaders().length, 1, 'exactly one leader');
  assert.is(replicas.filter((r) => r.log().includes('Successfully acquired lease')).length, 1);
  const first = leaders()[0]!;
  const metrics = await (await fetch(`http://127.0.0.1:${first.metrics}/metrics`)).text();
  for (const family of [
    'rest_client_requests_total{',
    'rest_client_request_duration_seconds_bucket{',
    `leader_election_master_status{name="${LEASE}"} 1`,
    'process_cpu_seconds_total',
    'workqueue_depth',
  ]) {
    assert.ok(metrics.includes(family), family);
  }

  // kill -9: no release, the others wait for the lease to expire.
  first.child.kill('SIGKILL');
  await first.exit;
  const survivors = replicas.filter((r) => r !== first);
  await waitFor(() => survivors.some((r) => r.identity() === cluster.holder()), {
    timeoutMs: LEASE_S * 1000 + 3 * RETRY_MS + SLACK_MS,
    what: 'a survivor leading after kill -9',
  });
  const second = leaders()[0]!;
  await waitFor(async () => (await httpStatus(second.health, '/readyz')) === 200, {
    timeoutMs: 20_000,
    what: 'new leader ready',
  });

  // SIGTERM: the leader releases the Lease; the standby takes over long before the lease would expire.
  const third = survivors.find((r) => r !== second)!;
  second.child.kill('SIGTERM');
  await waitFor(() => cluster.holder() === third.identity(), {
    timeoutMs: 2 * RETRY_MS + SLACK_MS,
    what: 'standby leading after SIGTERM',
  });
  assert.ok(2 * RETRY_MS + SLACK_MS < LEASE_S * 1000, 'the deadline proves the Lease was released, not expired');
  assert.is(await second.exit, 0);
  assert.match(second.log(), 'Released leader lease');

  third.child.kill('SIGTERM');
  assert.is(await third.exit, 0);
  assert.is(cluster.holder(), '');
});

test.run();
