// HyperNode writes run side by side, as many at once as the write pace says
// (read again before each write), while the order that matters holds: a
// round's creates and updates are all answered before its first delete, a
// later snapshot's write of an object waits for the earlier one's, a retry
// never overlaps a round (retries of different objects do overlap), and the
// mass-delete guard still holds deletes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../../src/kube/errors.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL as SOURCE } from '../../../src/hypernode/model/hypernode-labels.ts';
import { waitFor, within } from '../../../testing/wait.ts';
import { settle } from '../../kube/fake-clock.ts';
import { HeldHyperNodeClient } from '../../support/held-hypernode-client.ts';
import { newReconciler } from './fixtures.ts';

const rack = (name: string, nodes: string[] = [`${name}-n`]) =>
  build(name, 1, buildMembers(nodes, 'Node'), { [SOURCE]: 'label' });
const racks = (n: number) => Array.from({ length: n }, (_, i) => rack(`rack-${i}`));

/** The reconciler over a client whose writes stay in flight until released; its retry worker running. */
function held(seed = racks(0), writeConcurrency: () => number = () => 3) {
  let client!: HeldHyperNodeClient;
  const r = newReconciler(seed, undefined, {
    wrapClient: (fake) => (client = new HeldHyperNodeClient(fake)),
    writeConcurrency,
  });
  const worker = r.reconciler.run();
  const stop = async () => {
    client.pass();
    r.reconciler.shutDown();
    await within(worker, 2000, 'retry worker exit');
  };
  return { ...r, inner: r.client, client, stop };
}

test('a snapshot’s creates run side by side, no more at once than the write pace allows', async () => {
  const h = held();
  const round = h.reconciler.reconcile('label', racks(7));
  await waitFor(() => h.client.calls().length === 3, { what: 'three creates in flight' });
  await settle();
  assert.equal(h.client.calls(), ['create rack-0', 'create rack-1', 'create rack-2'], 'a fourth waits for a free slot');
  h.client.release('create rack-1');
  await waitFor(() => h.client.calls().includes('create rack-3'), { what: 'the next create in the freed slot' });
  h.client.pass();
  const summary = await round;
  assert.is(summary.created, 7);
  assert.is(h.client.peakInFlight(), 3);
  assert.equal(
    h.inner.serverNames(),
    racks(7)
      .map((hn) => hn.metadata.name)
      .sort(),
  );
  await h.stop();
});

test('the write pace is read again before each write', async () => {
  let pace = 2;
  const h = held(racks(0), () => pace);
  const round = h.reconciler.reconcile('label', racks(8));
  await waitFor(() => h.client.calls().length === 2, { what: 'two creates in flight' });
  pace = 5;
  h.client.release('create rack-0');
  await waitFor(() => h.client.calls().length === 5, { what: 'five creates in flight at the new pace' });
  h.client.pass();
  assert.is((await round).created, 8);
  assert.is(h.client.peakInFlight(), 5);
  await h.stop();
});

test('every create and update of a round is answered before its first delete', async () => {
  const gone = ['old-0', 'old-1'].map((n) => rack(n));
  const changed = rack('rack-0', ['other-node']);
  const h = held([...gone, rack('rack-0')]);
  const round = h.reconciler.reconcile('label', [changed, rack('rack-1'), rack('rack-2')], 100);
  await waitFor(() => h.client.calls().length === 3, { what: 'the update and two creates in flight' });
  assert.equal(h.client.calls(), ['update rack-0', 'create rack-1', 'create rack-2']);
  h.client.release('create rack-1');
  h.client.release('create rack-2');
  await settle();
  assert.equal(h.client.calls(), ['update rack-0'], 'no delete while the update is in flight, though slots are free');
  h.client.release('update rack-0');
  await waitFor(() => h.client.calls().length === 2, { what: 'both deletes in flight' });
  assert.equal(h.client.calls(), ['delete old-0', 'delete old-1']);
  h.client.pass();
  assert.equal((await round).deleted, 2);
  await h.stop();
});

test('a later snapshot’s write of an object starts only after the earlier snapshot’s write of it is answered', async () => {
  const h = held([rack('rack-0')]);
  const first = h.reconciler.reconcile('label', [rack('rack-0', ['n1', 'n2'])]);
  await waitFor(() => h.client.calls().length === 1, { what: 'the update in flight' });
  // The next snapshot no longer describes rack-0: it is deleted, but not before the update is answered.
  const second = h.reconciler.reconcile('label', [rack('rack-1')], 100);
  await settle();
  assert.equal(h.client.calls(), ['update rack-0']);
  h.client.release('update rack-0');
  await first;
  await waitFor(() => h.client.calls().length === 1 && h.client.calls()[0] === 'create rack-1', {
    what: 'the second round',
  });
  h.client.pass();
  await second;
  assert.equal(h.client.log, [
    'start update rack-0',
    'end update rack-0',
    'start create rack-1',
    'end create rack-1',
    'start delete rack-0',
    'end delete rack-0',
  ]);
  await h.stop();
});

test('retries of different objects run side by side, but never beside a round', async () => {
  const h = held();
  const refused = () => new ApiError('Internal error occurred: injected fault', 500, 'InternalError');
  h.inner.failNext('create', refused(), 'rack-0');
  h.inner.failNext('create', refused(), 'rack-1');
  h.client.pass();
  const summary = await h.reconciler.reconcile('label', racks(2));
  assert.is(summary.failed, 2);
  h.client.passing = false;

  // A round is in flight when the retries fall due: they wait for it, and then find nothing left to do.
  const round = h.reconciler.reconcile('label', [...racks(2), rack('rack-9')]);
  await waitFor(() => h.client.calls().length === 3, { what: 'the round’s writes in flight' });
  await h.clock.advance(5);
  await settle();
  assert.equal(h.client.calls(), ['create rack-0', 'create rack-1', 'create rack-9'], 'no retry beside the round');
  h.client.pass();
  await round;
  await settle();
  assert.equal(h.inner.serverNames(), ['rack-0', 'rack-1', 'rack-9']);
  assert.is(
    h.client.log.filter((l) => l === 'start create rack-0').length,
    2,
    'the first round’s and the second’s; the retry wrote nothing',
  );

  // Now two failures and their retries alone: both are in flight at once.
  h.client.passing = false;
  h.inner.failNext('update', refused(), 'rack-0');
  h.inner.failNext('update', refused(), 'rack-1');
  const changing = h.reconciler.reconcile('label', [rack('rack-0', ['x']), rack('rack-1', ['y']), rack('rack-9')]);
  await waitFor(() => h.client.calls().length === 2, { what: 'the two updates' });
  h.client.release('update rack-0');
  h.client.release('update rack-1');
  assert.is((await changing).failed, 2);
  await h.clock.advance(5);
  await waitFor(() => h.client.calls().length === 2, { what: 'both retries in flight at once' });
  assert.equal(h.client.calls().sort(), ['update rack-0', 'update rack-1']);
  // A round queued now waits for the retries in flight.
  const next = h.reconciler.reconcile('label', [
    rack('rack-0', ['x']),
    rack('rack-1', ['y']),
    rack('rack-9'),
    rack('rack-10'),
  ]);
  await settle();
  assert.not.ok(h.client.log.includes('start create rack-10'), 'the round waits for the retries');
  h.client.pass();
  await next;
  assert.ok(h.client.log.indexOf('start create rack-10') > h.client.log.lastIndexOf('end update rack-1'));
  assert.ok(h.client.log.indexOf('start create rack-10') > h.client.log.lastIndexOf('end update rack-0'));
  await h.stop();
});

test('with writes side by side, the mass-delete guard still holds the deletes of a round that would remove too much', async () => {
  const h = held(racks(20), () => 8);
  h.client.pass();
  const summary = await h.reconciler.reconcile('label', racks(2), 50);
  assert.is(summary.held, 18);
  assert.is(summary.deleted, 0);
  assert.equal(
    h.inner.actions.map((a) => a.verb),
    [],
    'nothing deleted',
  );
  await h.stop();
});

test.run();
