// Status has one writer: nodeCount and the health conditions of a HyperNode
// go out in one PUT …/status, a HyperNode judged again before the echo of
// our last write reached the cache is not written from the old version (no
// 409 between our own writes), NodesReady that is on its way holds the first
// write back so it carries both, nothing is written for conditions before a
// configuration is applied, and status writes run side by side up to the
// write pace.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { DEFAULT_HEALTH } from '../../../src/hypernode/config/health-config.ts';
import { newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { HyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import type { NodeHealth } from '../../../src/hypernode/reconcile/health/node-health.ts';
import { STATUS_QUIET_MS } from '../../../src/hypernode/reconcile/status-writer.ts';
import { waitFor, within } from '../../../testing/wait.ts';
import { FakeClock, settle } from '../../kube/fake-clock.ts';
import { FakeHyperNodeClient } from '../../support/fake-hypernode-client.ts';
import { FakeInformer } from '../../support/fake-informer.ts';
import { HeldHyperNodeClient } from '../../support/held-hypernode-client.ts';
import { registryValue } from '../../support/metric-registry.ts';
import { health, NODES, tree } from './health/health-rig.ts';
import { statusWriter } from './status-rig.ts';

const NAMES = tree()
  .map((hn) => hn.metadata.name)
  .sort();
const statusWrites = (client: FakeHyperNodeClient) =>
  client.actions.filter((a) => a.verb === 'updateStatus').map((a) => a.name);

/** The writer over a tree of HyperNodes a source owns, its handlers registered and its workers running. */
function writer(
  o: {
    hyperNodes?: HyperNode[];
    wrap?: (fake: FakeHyperNodeClient) => HeldHyperNodeClient;
    writeConcurrency?: () => number;
  } = {},
) {
  const clock = new FakeClock();
  const client = new FakeHyperNodeClient();
  for (const hn of o.hyperNodes ?? []) client.seed(hn);
  const held = o.wrap?.(client);
  const nodeHealth = new FakeInformer<NodeHealth>({ initial: NODES.map((n) => health(n)) });
  const registry = new Registry();
  const w = statusWriter({
    hyperNodes: client.informer,
    nodes: new FakeInformer<NodeMeta>(),
    client: held ?? client,
    clock,
    metrics: newHyperNodeMetrics(registry),
    ...(o.writeConcurrency ? { writeConcurrency: o.writeConcurrency } : {}),
  });
  const registrations = [
    client.informer.addEventHandler(w.hyperNodeHandler()),
    nodeHealth.addEventHandler(w.nodeHealthHandler()),
  ];
  const worker = w.run();
  const stop = async () => {
    held?.pass();
    w.shutDown();
    await within(worker, 2000, 'status worker exit');
    for (const r of registrations) r.remove();
  };
  return { clock, client, held, nodeHealth, registry, w, stop };
}

test('nodeCount and NodesReady of a new HyperNode go out in one status write', async () => {
  const s = writer();
  s.w.setSettings({ ...DEFAULT_HEALTH, nodes: true });
  s.w.setNodeHealth(s.nodeHealth);
  for (const hn of tree()) s.client.seed(hn);
  await s.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => NAMES.every((n) => s.client.server(n)!.status?.conditions?.length === 1), {
    what: 'every HyperNode judged',
  });
  assert.equal(statusWrites(s.client).sort(), NAMES, 'one write each');
  for (const a of s.client.actions) {
    assert.is(a.body!.status!.nodeCount, 2, `${a.name}: the count`);
    assert.is(a.body!.status!.conditions![0]!.type, 'NodesReady', `${a.name}: the condition, in the same write`);
  }
  await s.stop();
});

test('while the Node health cache syncs, owned HyperNodes wait, so their first write carries NodesReady with the count', async () => {
  const handMade = build('hand', 1, buildMembers(['n0', 'n1', 'n2'], 'Node'), {});
  const s = writer();
  s.w.setSettings({ ...DEFAULT_HEALTH, nodes: true });
  s.w.setNodeHealth('syncing');
  for (const hn of [...tree(), handMade]) s.client.seed(hn);
  await s.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => s.client.server('hand')!.status?.nodeCount === 3, { what: 'the hand-made HyperNode counted' });
  await settle();
  assert.equal(statusWrites(s.client), ['hand'], 'a HyperNode without a source gets no condition: nothing to wait for');
  s.w.setNodeHealth(s.nodeHealth);
  await s.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => NAMES.every((n) => s.client.server(n)!.status?.conditions), {
    what: 'every owned HyperNode judged',
  });
  assert.equal(statusWrites(s.client).slice(1).sort(), NAMES);
  assert.ok(
    NAMES.every((n) => s.client.server(n)!.status?.nodeCount === 2),
    'the count went with the condition',
  );
  await s.stop();
});

test('a HyperNode judged again before the echo of its last write reached the cache is not written from the old version: no 409', async () => {
  const s = writer({ hyperNodes: [tree()[0]!] });
  s.w.setSettings({ ...DEFAULT_HEALTH, nodes: true });
  s.w.setNodeHealth(s.nodeHealth);
  await s.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => s.client.server('rack-0')!.status?.conditions?.[0]?.status === 'True', { what: 'rack-0 judged' });
  await waitFor(() => s.w.queue.len() === 0, { what: 'the echo judged' });
  s.client.clearActions();
  // The watch lags: our next write reaches the server, not yet the cache.
  s.client.holdCache();
  s.nodeHealth.apply(health('n0', 'False'));
  await s.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => statusWrites(s.client).length === 1, { what: 'rack-0 marked' });
  s.nodeHealth.apply(health('n1', 'False'));
  await s.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => s.w.queue.len() === 0, { what: 'rack-0 judged again' });
  await settle();
  assert.equal(statusWrites(s.client), ['rack-0'], 'no write from the version the cache still shows');
  s.client.releaseCache();
  await waitFor(() => s.client.server('rack-0')!.status?.conditions?.[0]?.message.startsWith('2 of 2') === true, {
    what: 'the echo, then the second judgement',
  });
  assert.equal(statusWrites(s.client), ['rack-0', 'rack-0']);
  assert.is(
    await registryValue(s.registry, 'hypernode_api_write_failures_total', {
      source: '',
      verb: 'update_status',
      code_class: '4xx',
    }),
    0,
    'no 409',
  );
  await s.stop();
});

test('before any configuration is applied the count is written and the conditions are left as they are', async () => {
  const condition = {
    type: 'NodesReady',
    status: 'False' as const,
    reason: 'NodesNotReady',
    message: 'from before a restart',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  };
  const s = writer({ hyperNodes: [{ ...tree()[0]!, status: { conditions: [condition] } }] });
  await waitFor(() => s.client.server('rack-0')!.status?.nodeCount === 2, { what: 'the count' });
  assert.equal(s.client.server('rack-0')!.status!.conditions, [condition]);
  await s.stop();
});

test('a member change (a new generation) judges the HyperNodes above it again; a status-only update (the same generation) only itself', async () => {
  const withGeneration = (hn: HyperNode, generation: number): HyperNode => ({
    ...hn,
    metadata: { ...hn.metadata, generation },
  });
  const s = writer({ hyperNodes: tree().map((hn) => withGeneration(hn, 1)) });
  s.nodeHealth.apply(health('n1', 'False'));
  s.w.setSettings({ ...DEFAULT_HEALTH, nodes: true });
  s.w.setNodeHealth(s.nodeHealth);
  await s.clock.advance(STATUS_QUIET_MS);
  const reason = (name: string) => s.client.server(name)?.status?.conditions?.[0]?.reason;
  await waitFor(() => reason('zone') === 'NodesNotReady' && s.w.queue.len() === 0, {
    what: 'n1 marks rack-0, spine-0 and zone',
  });
  s.client.clearActions();
  // n1 leaves rack-0: the API server gives the new spec generation 2.
  s.client.seed(withGeneration(build('rack-0', 1, buildMembers(['n0'], 'Node'), tree()[0]!.metadata.labels!), 2));
  await s.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => ['rack-0', 'spine-0', 'zone'].every((n) => reason(n) === 'AllNodesReady'), {
    what: 'everything above rack-0 judged again',
  });
  assert.equal(statusWrites(s.client).sort(), ['rack-0', 'spine-0', 'zone']);
  assert.is(s.client.server('rack-0')!.status!.nodeCount, 1);
  await s.stop();
});

test('status writes run side by side, no more at once than the write pace allows', async () => {
  let held!: HeldHyperNodeClient;
  const s = writer({
    hyperNodes: tree(),
    wrap: (fake) => (held = new HeldHyperNodeClient(fake)),
    writeConcurrency: () => 3,
  });
  await waitFor(() => held.calls().length === 3, { what: 'three status writes in flight' });
  await settle();
  assert.is(held.calls().length, 3, 'the others wait for a free slot');
  held.release(held.calls()[0]!);
  await waitFor(() => held.log.filter((l) => l.startsWith('start')).length === 4, {
    what: 'the next write in the freed slot',
  });
  held.pass();
  await waitFor(() => NAMES.every((n) => s.client.server(n)!.status?.nodeCount === 2), { what: 'every count written' });
  assert.is(held.peakInFlight(), 3);
  await s.stop();
});

test.run();
