// `--dry-run` on the built executable against the API server stand-in: it
// discovers, reconciles and serves its probes and metrics, but sends no write
// of any kind (no HyperNode, no status, no Event, no Lease: leader election is
// skipped); each would-be write is logged with its diff and counted in
// hypernode_dry_run_writes_total (never in hypernode_api_writes_total, which
// counts writes the server got), its reconcile lines say dryRun=true, and
// since nothing changes in the cluster it decides again only when an input
// changes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startControllerBinary } from '../support/controller-process.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import {
  CLUSTER,
  NS,
  RACK,
  SOURCE_LABEL,
  TOPOLOGY_A3_ENTRY,
  assertNoForbidden,
  node,
  seedConfigMap,
  workedExampleNodes,
} from './cluster.ts';
import { session } from './session.ts';

const s = session(test);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));

const STALE: HyperNode = {
  apiVersion: 'topology.volcano.sh/v1alpha1',
  kind: 'HyperNode',
  metadata: { name: 'hypernode-topologya3-tier1-stale', labels: { [SOURCE_LABEL]: 'label', [RACK]: 'gone' } },
  spec: { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'old-node' } } }] },
};
// Not a source Volcano implements: the manager reports it with a Warning Event (here: a logged one).
const UNSUPPORTED_ENTRY = '  - source: roce\n    enabled: true\n';

const count = (log: string, re: RegExp) => log.split('\n').filter((l) => re.test(l)).length;
/** The samples of `name` that are not 0 (absent counts as 0). */
const nonZero = (metrics: string, name: string) =>
  metrics.split('\n').filter((l) => l.startsWith(`${name}{`) && !l.endsWith(' 0'));

test('--dry-run logs and counts every write it would make and sends none: no HyperNode, status, Event or Lease write', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of workedExampleNodes()) api.store.create(n);
  api.store.create(STALE);
  seedConfigMap(api, `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY}${UNSUPPORTED_ENTRY}`);
  // Returns once /readyz answers 200: the probes are healthy without a Lease.
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['--dry-run'] }));
  const creates =
    /^I.*\] Dry run: would create HyperNode name="hypernode-topologya3-tier[12]-\w{5}" source="label" diff="tier: \(none\) → [12]; tierName: \(none\) → volcano\.sh\/\w+; members: \+\S+ \+\S+; labels: /;
  await s.converge(() => count(controller.log(), creates) === 6, 'six would-be creates in the log');
  await s.converge(
    () =>
      /Dry run: would delete HyperNode name="hypernode-topologya3-tier1-stale" source="label"/.test(controller.log()),
    'the would-be delete of the stale rack',
  );
  await s.converge(
    () =>
      /Dry run: would emit Event kind="ConfigMap" name="volcano-controller-configmap" type="Warning" reason="\w+" message=".*unsupported discoverer type: roce/.test(
        controller.log(),
      ),
    'the would-be Warning Event',
  );
  assert.match(controller.log(), /Dry run: leader election skipped and nothing is written/);
  // The run's summary counts what it would have done, and says so.
  await s.converge(
    () =>
      /^I.*\] Topology reconciliation completed dryRun=true source="label" discovered=6 created=6 .*deleted=1 /m.test(
        controller.log(),
      ),
    'the completion line with dryRun=true',
  );

  const metrics = await controller.metrics();
  assert.is(seriesValue(metrics, 'hypernode_dry_run_writes_total', { source: 'label', verb: 'create' }), 6);
  assert.is(seriesValue(metrics, 'hypernode_dry_run_writes_total', { source: 'label', verb: 'delete' }), 1);
  assert.is(
    seriesValue(metrics, 'hypernode_discovery_results_total', { source: 'label' }),
    1,
    'one round: a recorded write is not retried',
  );
  // Nothing reached the server, so no API write is counted; the recorded status writes are counted as dry-run ones.
  assert.equal(nonZero(metrics, 'hypernode_api_writes_total'), []);
  assert.ok(
    seriesValue(metrics, 'hypernode_dry_run_writes_total', { source: 'label', verb: 'update_status' }) > 0,
    'the would-be nodeCount writes',
  );

  // A new Node is an input change: one more round, wanting the same creates again (nothing was written).
  api.store.create(node('node8', { [RACK]: 's3', [CLUSTER]: 's5' }));
  await s.converge(
    async () => seriesValue(await controller.metrics(), 'hypernode_discovery_results_total', { source: 'label' }) === 2,
    'a second round after the new Node',
  );
  const after = await controller.metrics();
  assert.is(seriesValue(after, 'hypernode_dry_run_writes_total', { source: 'label', verb: 'create' }), 12);
  // The stale rack's delete is not wanted again: the reconciler remembers the uid it deleted until the cache drops it.
  assert.is(seriesValue(after, 'hypernode_dry_run_writes_total', { source: 'label', verb: 'delete' }), 1);
  assert.match(
    controller.log(),
    /Dry run: would create HyperNode name="hypernode-topologya3-tier1-\w{5}" source="label" diff="[^"]*members: \+node6 \+node7 \+node8;/,
  );
  assert.equal(nonZero(after, 'hypernode_api_writes_total'), []);

  assert.equal(
    api.requests.all((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
    [],
    'no request but GETs',
  );
  assert.equal(
    api.requests.all({ resource: 'leases' }).map((r) => `${r.method} ${r.path}`),
    [],
    'the Lease is never touched',
  );
  assert.equal(
    api.store.list('hypernodes').map((hn) => hn.metadata.name),
    [STALE.metadata.name],
  );
  assertNoForbidden(api);
});

test.run();
