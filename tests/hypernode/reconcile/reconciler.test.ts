import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../../src/kube/errors.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode, HyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL as SOURCE } from '../../../src/hypernode/model/hypernode-labels.ts';
import { FakeClock } from '../../kube/fake-clock.ts';
import { AutoClock } from '../../support/controller-fixtures.ts';
import { registryValue } from '../../support/metric-registry.ts';
import { waitFor } from '../../../testing/wait.ts';
import { newReconciler } from './fixtures.ts';

const setup = (seed: HyperNode[] = [], clock: FakeClock = new AutoClock()) => newReconciler(seed, clock);

const label = { [SOURCE]: 'label' };
const rack = (name: string, nodes: string[], tier = 1) =>
  build(name, tier, buildMembers(nodes, tier === 1 ? 'Node' : 'HyperNode'), label);

/** A 3-tier topology: spine → 2 zones → 2 racks each. */
function threeTier(rackNodes: Record<string, string[]>): DiscoveredHyperNode[] {
  return [
    rack('rack-a', rackNodes['rack-a']!),
    rack('rack-b', rackNodes['rack-b']!),
    rack('rack-c', rackNodes['rack-c']!),
    rack('zone-1', ['rack-a', 'rack-b'], 2),
    rack('zone-2', ['rack-c'], 2),
    rack('spine', ['zone-1', 'zone-2'], 3),
  ];
}

test('a first snapshot creates every HyperNode with the source label, spec.tier and no status', async () => {
  const { client, reconciler } = setup();
  const snapshot = [
    build('hn-0', 0, buildMembers(['n1'], 'Node'), {}),
    { ...rack('hn-1', ['n2']), status: { nodeCount: 0 } },
  ];
  const summary = await reconciler.reconcile('label', snapshot);
  assert.equal(client.verbs(), ['create hn-0', 'create hn-1']);
  for (const { body } of client.actions) {
    assert.is(body!.metadata.labels![SOURCE], 'label');
    assert.is(body!.status, undefined, 'no status on create');
  }
  assert.is(client.actions[0]!.body!.spec!.tier, 0, 'tier 0 is sent, not omitted');
  assert.is(summary.created, 2);
  assert.is(snapshot[0]!.metadata.labels![SOURCE], undefined, 'the discoverer’s objects are not mutated');
});

test('an in-sync round produces zero API writes', async () => {
  const { client, reconciler } = setup();
  const topology = threeTier({ 'rack-a': ['n1', 'n2'], 'rack-b': ['n3'], 'rack-c': ['n4'] });
  await reconciler.reconcile('label', topology);
  client.clearActions();
  const summary = await reconciler.reconcile('label', structuredClone(topology));
  assert.equal(client.actions, []);
  assert.is(summary.unchanged, 6);
});

test('a changed member set produces exactly one update, with the cached resourceVersion and no status', async () => {
  const { client, reconciler } = setup();
  await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  client.clearActions();
  const cachedVersion = client.informer.get('rack-a')!.metadata.resourceVersion;
  await reconciler.reconcile('label', [rack('rack-a', ['n1', 'n5']), rack('rack-b', ['n2'])]);
  assert.equal(client.verbs(), ['update rack-a']);
  const body = client.actions[0]!.body!;
  assert.is(body.metadata.resourceVersion, cachedVersion);
  assert.is(body.status, undefined);
  assert.equal(
    client.server('rack-a')!.spec!.members!.map((m) => m.selector!.exactMatch!.name),
    ['n1', 'n5'],
  );
});

test('a Node moving between racks of a 3-tier topology costs at most tiers+1 writes', async () => {
  const { client, reconciler } = setup();
  await reconciler.reconcile('label', threeTier({ 'rack-a': ['n1', 'n2'], 'rack-b': ['n3'], 'rack-c': ['n4'] }));
  client.clearActions();
  await reconciler.reconcile('label', threeTier({ 'rack-a': ['n1'], 'rack-b': ['n3'], 'rack-c': ['n2', 'n4'] }));
  assert.equal(client.verbs().sort(), ['update rack-a', 'update rack-c']);
});

test('objects that already exist with the source label are adopted: same names, no delete or create', async () => {
  // As left by the Go controller: its label, a uid, a status written by the status writer.
  const goMade = { ...rack('hypernode-rack-tier1-abcde', ['n1', 'n2']), status: { nodeCount: 2 } };
  const { client, reconciler } = setup([goMade]);
  const uid = client.informer.get(goMade.metadata.name)!.metadata.uid;
  await reconciler.reconcile('label', [rack('hypernode-rack-tier1-abcde', ['n1', 'n2'])]);
  assert.equal(client.actions, [], 'identical spec: nothing to write');
  await reconciler.reconcile('label', [rack('hypernode-rack-tier1-abcde', ['n1', 'n2', 'n3'])]);
  assert.equal(client.verbs(), ['update hypernode-rack-tier1-abcde']);
  assert.is(client.server(goMade.metadata.name)!.metadata.uid, uid);
  assert.equal(
    client.server(goMade.metadata.name)!.status,
    { nodeCount: 2 },
    'the status is left to the status writer',
  );
});

test('labels and annotations on existing objects are merged, never removed', async () => {
  const existing = rack('rack-a', ['n1']);
  existing.metadata.labels!.team = 'infra';
  existing.metadata.annotations = { note: 'kept' };
  const { client, reconciler } = setup([existing]);
  const want = rack('rack-a', ['n1', 'n2']);
  want.metadata.labels!.zone = 'z1';
  await reconciler.reconcile('label', [want]);
  const server = client.server('rack-a')!;
  assert.equal(server.metadata.labels, { [SOURCE]: 'label', team: 'infra', zone: 'z1' });
  assert.equal(server.metadata.annotations, { note: 'kept' });
});

test('a new label alone is a change; a label only on the cluster object is not', async () => {
  const existing = rack('rack-a', ['n1']);
  existing.metadata.labels!.team = 'infra';
  const { client, reconciler } = setup([existing]);
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.equal(client.actions, []);
  const relabelled = rack('rack-a', ['n1']);
  relabelled.metadata.labels!.zone = 'z1';
  await reconciler.reconcile('label', [relabelled]);
  assert.equal(client.verbs(), ['update rack-a']);
});

test('a 409 Conflict is retried with the resourceVersion the cache catches up to', async () => {
  const clock = new FakeClock();
  const { client, reconciler } = setup([rack('rack-a', ['n1'])], clock);
  const stale = client.informer.get('rack-a')!.metadata.resourceVersion;
  // Another writer changes the object; our watch has not delivered it yet.
  client.holdCache();
  await client.updateStatus({ ...structuredClone(client.informer.get('rack-a')!), status: { nodeCount: 1 } });
  client.clearActions();

  const done = reconciler.reconcile('label', [rack('rack-a', ['n1', 'n2'])]);
  await waitFor(() => client.actions.length === 1 && clock.pending() === 1, { what: 'the conflicting update' });
  client.releaseCache();
  const caughtUp = client.informer.get('rack-a')!.metadata.resourceVersion;
  await clock.advance(10);
  const summary = await done;

  const fresh = client.informer.get('rack-a')!.metadata.resourceVersion;
  assert.not.equal(fresh, stale);
  assert.equal(
    client.actions.map((a) => `${a.verb} ${a.body!.metadata.resourceVersion}`),
    [`update ${stale}`, `update ${caughtUp}`],
  );
  assert.is(summary.updated, 1);
  assert.equal(client.server('rack-a')!.status, { nodeCount: 1 }, 'the other writer’s status survives');
});

test('an update that keeps conflicting gives up after 5 attempts, with a Warning Event', async () => {
  const { client, reconciler, events, registry } = setup([rack('rack-a', ['n1'])]);
  const conflict = () => new ApiError('the object has been modified', 409, 'Conflict');
  for (let i = 0; i < 5; i++) client.failNext('update', conflict());
  const summary = await reconciler.reconcile('label', [rack('rack-a', ['n1', 'n2'])]);
  assert.is(client.actions.length, 5);
  assert.is(summary.failed, 1);
  assert.equal(events.reasons(), ['FailedUpdate rack-a']);
  assert.is(await registryValue(registry, 'hypernode_reconcile_failures_total', { source: 'label' }), 1);
});

test('a name held by an object the source does not own is reported once, not written every round', async () => {
  const handMade = build('rack-a', 1, buildMembers(['n1'], 'Node'), {});
  const otherSource = build('rack-b', 1, buildMembers(['n2'], 'Node'), { [SOURCE]: 'ufm' });
  const { client, reconciler, events } = setup([handMade, otherSource]);
  const snapshot = [rack('rack-a', ['n9']), rack('rack-b', ['n9'])];
  for (let round = 0; round < 3; round++) await reconciler.reconcile('label', snapshot);
  assert.equal(client.actions, [], 'no create, update or delete of foreign objects');
  assert.equal(events.reasons(), ['NameConflict rack-a', 'NameConflict rack-b']);
  assert.ok(events.events.every((e) => e.type === 'Warning' && e.kind === 'HyperNode'));

  // Once the foreign object changes, the conflict is news again.
  client.seed({ ...handMade, metadata: { ...handMade.metadata, labels: { team: 'x' } } });
  await reconciler.reconcile('label', snapshot);
  assert.equal(events.reasons(), ['NameConflict rack-a', 'NameConflict rack-b', 'NameConflict rack-a']);
});

test('an empty snapshot deletes that source’s HyperNodes only', async () => {
  const { client, reconciler } = setup([
    rack('rack-a', ['n1']),
    rack('rack-b', ['n2']),
    build('ufm-leaf', 1, buildMembers(['n3'], 'Node'), { [SOURCE]: 'ufm' }),
    build('hand-made', 1, buildMembers(['n4'], 'Node'), {}),
  ]);
  const summary = await reconciler.reconcile('label', []);
  assert.equal(client.verbs().sort(), ['delete rack-a', 'delete rack-b']);
  assert.equal(client.serverNames(), ['hand-made', 'ufm-leaf']);
  assert.is(summary.deleted, 2);
});

test('objects the snapshot no longer describes are deleted; the rest stay untouched', async () => {
  const { client, reconciler, registry } = setup([rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-c', ['n3'])]);
  assert.equal(client.verbs(), ['create rack-c', 'delete rack-b']);
  assert.is(await registryValue(registry, 'hypernode_managed', { source: 'label' }), 2);
  assert.is(await registryValue(registry, 'hypernode_api_writes_total', { source: 'label', verb: 'create' }), 1);
  assert.is(await registryValue(registry, 'hypernode_api_writes_total', { source: 'label', verb: 'delete' }), 1);
});

test('when two discovered objects share a name the later one wins', async () => {
  const { client, reconciler } = setup();
  await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-a', ['n2'])]);
  assert.equal(client.verbs(), ['create rack-a']);
  assert.equal(client.actions[0]!.body!.spec!.members![0]!.selector!.exactMatch!.name, 'n2');
});

test('a failed write is reported with a Warning Event and the round goes on', async () => {
  const { client, reconciler, events } = setup([rack('old', ['n0'])]);
  client.failNext('create', new ApiError('admission webhook denied the request', 422, 'Invalid'), 'rack-a');
  client.failNext('delete', new ApiError('etcd timeout', 500, 'InternalError'));
  const summary = await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  assert.equal(client.verbs(), ['create rack-a', 'create rack-b', 'delete old']);
  assert.equal(events.reasons(), [
    'FailedCreate rack-a',
    'FailedDelete old',
    'TopologyChanged volcano-controller-configmap',
  ]);
  assert.match(events.events[0]!.message, /admission webhook denied/);
  assert.is(
    events.events[2]!.message,
    'Discovery source "label": 1 created, 0 updated, 0 deleted',
    'the summary counts what was written',
  );
  assert.is(summary.failed, 2);
  assert.is(summary.created, 1);
});

test('our own create not yet in the cache is not reported as a failure next round', async () => {
  const { client, reconciler, events } = setup();
  client.holdCache();
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  const summary = await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.equal(client.verbs(), ['create rack-a', 'create rack-a']);
  assert.equal(
    events.reasons(),
    ['TopologyChanged volcano-controller-configmap'],
    'no Warning, and no summary for the round that wrote nothing new',
  );
  assert.is(summary.failed, 0);
  client.releaseCache();
  client.clearActions();
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.equal(client.actions, []);
});

test('a cache that cannot be read skips the round without writing', async () => {
  const { client, reconciler } = setup([rack('rack-a', ['n1'])]);
  client.informer.failReads(new Error('cache not ready'));
  const summary = await reconciler.reconcile('label', []);
  assert.equal(client.actions, []);
  assert.is(summary.failed, 1);
});

test('cached objects are never mutated', async () => {
  const { client, reconciler } = setup([{ ...rack('rack-a', ['n1']), status: { nodeCount: 1 } }]);
  // The fake informer freezes what it hands out: any mutation would throw.
  const summary = await reconciler.reconcile('label', [rack('rack-a', ['n1', 'n2'])]);
  assert.is(summary.updated, 1);
  assert.ok(Object.isFrozen(client.informer.get('rack-a')));
});

test('a run that starts before the cache has seen our delete does not send it again', async () => {
  const { client, reconciler } = setup([rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  client.holdCache();
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.equal(client.verbs(), ['delete rack-b']);
  // A second snapshot (a Node event, a source restart) arrives while the informer still shows rack-b.
  const summary = await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.equal(client.verbs(), ['delete rack-b'], 'no second DELETE, which would only earn a 404');
  assert.is(summary.deleted, 0);
  client.releaseCache();
  // A new object of the same name (a new uid) is deleted again when the source does not describe it.
  client.seed(rack('rack-b', ['n9']));
  client.clearActions();
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.equal(client.verbs(), ['delete rack-b']);
});

test.run();
