// Failed HyperNode writes are retried per object with exponential backoff,
// decided again against the source's latest snapshot and the cache; deletes
// carry preconditions so a re-created object of the same name survives.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Registry } from 'prom-client';
import { ApiError } from '../../../src/kube/errors.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL as SOURCE } from '../../../src/hypernode/model/hypernode-labels.ts';
import { settle } from '../../kube/fake-clock.ts';
import { AutoClock } from '../../support/controller-fixtures.ts';
import { registryValue } from '../../support/metric-registry.ts';
import { startReconciler } from './fixtures.ts';

const setup = startReconciler;

const rack = (name: string, nodes: string[]) => build(name, 1, buildMembers(nodes, 'Node'), { [SOURCE]: 'label' });
/** What the API server answered for 46 of 3,608 creates under concurrent writes. */
const celGlitch = () =>
  new ApiError(
    'HyperNode.topology.volcano.sh "rack-a" is invalid: internal error: runtime error: index out of range [1] with length 1',
    422,
    'Invalid',
  );
const failures = (registry: Registry, verb: string, codeClass: string) =>
  registryValue(registry, 'hypernode_api_write_failures_total', { source: 'label', verb, code_class: codeClass });
const linesWith = (lines: string[], text: string) => lines.filter((l) => l.includes(text));

test('a create rejected with 422 is retried after its backoff until it succeeds, with no new snapshot; logged once', async () => {
  const { client, events, registry, reconciler, clock, lines, stop } = setup();
  for (let i = 0; i < 3; i++) client.failNext('create', celGlitch());
  const summary = await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.is(summary.failed, 1);
  assert.equal(client.verbs(), ['create rack-a']);

  // client-go's per-item backoff: 5 ms, then 10 ms, then 20 ms.
  await clock.advance(4);
  assert.equal(client.verbs(), ['create rack-a'], 'not before the first backoff');
  await clock.advance(1);
  assert.equal(client.verbs(), ['create rack-a', 'create rack-a']);
  await clock.advance(9);
  assert.is(client.actions.length, 2, 'the second backoff is 10 ms');
  await clock.advance(1);
  assert.is(client.actions.length, 3);
  await clock.advance(20);
  assert.equal(client.verbs(), ['create rack-a', 'create rack-a', 'create rack-a', 'create rack-a']);
  assert.ok(client.server('rack-a'), 'the HyperNode exists');
  await clock.advance(60 * 60_000);
  assert.is(client.actions.length, 4, 'nothing more once it succeeded');

  assert.is(await failures(registry, 'create', '4xx'), 3);
  assert.is(linesWith(lines, 'Failed to create HyperNode').length, 1, 'three identical failures, one error line');
  assert.is(linesWith(lines, 'HyperNode write recovered').length, 1);
  assert.equal(events.reasons(), ['FailedCreate rack-a']);
  await stop();
});

test('the last-success time of a source moves on a fully written round, and after a failed write goes through on retry', async () => {
  const { client, registry, reconciler, clock, stop } = setup();
  const lastSuccess = () =>
    registryValue(registry, 'hypernode_reconcile_last_success_timestamp_seconds', { source: 'label' });
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  const written = clock.now() / 1000;
  assert.is(await lastSuccess(), written);

  await clock.advance(60_000);
  client.failNext('create', celGlitch(), 'rack-b');
  await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  assert.is(await lastSuccess(), written, 'a round with a failed write is no success');
  await clock.advance(5);
  assert.ok(client.server('rack-b'), 'the retry created rack-b');
  assert.is(await lastSuccess(), clock.now() / 1000, 'the retry completed the snapshot');
  await stop();
});

test('at -v=2 the Updating HyperNode line says what changes', async () => {
  const { client, reconciler, lines, stop } = setup([
    build('rack-a', 1, buildMembers(['n1', 'n2'], 'Node'), { [SOURCE]: 'label', keep: 'x' }),
  ]);
  await reconciler.reconcile('label', [
    build('rack-a', 2, buildMembers(['n1', 'n3'], 'Node'), { [SOURCE]: 'label', team: 'a' }),
  ]);
  assert.equal(client.verbs(), ['update rack-a']);
  assert.equal(linesWith(lines, 'Updating HyperNode'), [
    'Updating HyperNode name="rack-a" source="label" changes="tier: 1 → 2; members: +n3 -n2; labels: +team=a"',
  ]);
  await stop();
});

test('a changed error text is logged again', async () => {
  const { client, clock, reconciler, lines, stop } = setup();
  client.failNext('create', celGlitch());
  client.failNext(
    'create',
    new ApiError('Internal error occurred: failed calling webhook "validate.volcano.sh"', 500, 'InternalError'),
  );
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  await clock.advance(5);
  await clock.advance(10);
  assert.is(client.actions.length, 3);
  assert.is(linesWith(lines, 'Failed to create HyperNode').length, 2);
  await stop();
});

test('a retry for an object the newer snapshot no longer describes creates nothing and deletes nothing', async () => {
  const { client, reconciler, clock, stop } = setup();
  client.failNext('create', celGlitch(), 'rack-b');
  await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  assert.equal(client.verbs(), ['create rack-a', 'create rack-b']);
  // The next snapshot drops rack-b before its retry is due.
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  await clock.advance(10 * 60_000);
  assert.equal(client.verbs(), ['create rack-a', 'create rack-b']);
  assert.equal(client.serverNames(), ['rack-a']);
  await stop();
});

test('a retry writes the latest snapshot, not the write that failed', async () => {
  const { client, reconciler, clock, stop } = setup([rack('rack-a', ['n1'])]);
  client.failNext('update', new ApiError('etcdserver: request timed out', 500, 'InternalError'));
  await reconciler.reconcile('label', [rack('rack-a', ['n1', 'n2'])]);
  client.failNext('update', new ApiError('etcdserver: request timed out', 500, 'InternalError'));
  await reconciler.reconcile('label', [rack('rack-a', ['n1', 'n3'])]);
  await clock.advance(60_000);
  assert.equal(client.verbs(), ['update rack-a', 'update rack-a', 'update rack-a']);
  assert.equal(
    client.server('rack-a')!.spec!.members!.map((m) => m.selector!.exactMatch!.name),
    ['n1', 'n3'],
  );
  await stop();
});

test('an update failing with 500 and a delete failing with 422 are retried', async () => {
  const { client, registry, reconciler, clock, stop } = setup([rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  client.failNext('update', new ApiError('Internal error occurred: etcd leader changed', 500, 'InternalError'));
  client.failNext(
    'delete',
    new ApiError('admission webhook "validate.volcano.sh" denied the request: transient', 422, 'Invalid'),
  );
  await reconciler.reconcile('label', [rack('rack-a', ['n1', 'n9'])]);
  assert.equal(client.verbs(), ['update rack-a', 'delete rack-b']);
  await clock.advance(5);
  await settle();
  assert.equal(client.verbs().sort(), ['delete rack-b', 'delete rack-b', 'update rack-a', 'update rack-a']);
  assert.equal(client.serverNames(), ['rack-a']);
  assert.equal(
    client.server('rack-a')!.spec!.members!.map((m) => m.selector!.exactMatch!.name),
    ['n1', 'n9'],
  );
  assert.is(await failures(registry, 'update', '5xx'), 1);
  assert.is(await failures(registry, 'delete', '4xx'), 1);
  await stop();
});

test('a delete carries the uid and resourceVersion of the cached object as preconditions', async () => {
  const { client, reconciler, stop } = setup([rack('rack-a', ['n1'])]);
  const cached = client.informer.get('rack-a')!;
  await reconciler.reconcile('label', []);
  assert.equal(
    client.actions.map((a) => [a.verb, a.name, a.preconditions]),
    [['delete', 'rack-a', { uid: cached.metadata.uid, resourceVersion: cached.metadata.resourceVersion }]],
  );
  await stop();
});

test('a delete whose precondition fails (re-created by hand under the same name) deletes nothing and is not resent', async () => {
  const { client, reconciler, clock, events, stop } = setup([rack('rack-a', ['n1'])], new AutoClock());
  // Between the decision and the delete, someone deletes rack-a and creates their own object under its name.
  const handMade = build('rack-a', 1, buildMembers(['n7'], 'Node'), { team: 'infra' });
  handMade.metadata.uid = 'hand-made-uid';
  client.beforeNext('delete', () => client.seed(handMade));
  const summary = await reconciler.reconcile('label', []);
  assert.equal(client.verbs(), ['delete rack-a']);
  assert.is(client.server('rack-a')!.metadata.uid, 'hand-made-uid', 'the hand-made object survives');
  assert.is(summary.deleted, 0);
  assert.is(summary.failed, 0);
  await clock.advance(10 * 60_000);
  assert.equal(client.verbs(), ['delete rack-a'], 'no retry of the delete');
  assert.equal(events.events, []);
  await stop();
});

test.run();
