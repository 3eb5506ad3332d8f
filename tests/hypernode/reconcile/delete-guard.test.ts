// The mass-delete guard: the decision on counts alone, and in the live
// reconciler, where a run deleting more than maxDeletePercent (and at least
// 10) of a source's HyperNodes applies its creates and updates but holds its
// deletes until a snapshot no longer exceeds the limit or the limit is raised.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../../src/kube/errors.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { HyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL as SOURCE } from '../../../src/hypernode/model/hypernode-labels.ts';
import { MIN_HELD_DELETES, deleteGuard } from '../../../src/hypernode/reconcile/delete-guard.ts';
import { registryValue } from '../../support/metric-registry.ts';
import { startReconciler } from './fixtures.ts';

const rack = (i: number, nodes = [`n${i}`]) =>
  build(`rack-${String(i).padStart(2, '0')}`, 1, buildMembers(nodes, 'Node'), { [SOURCE]: 'label' });
const racks = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => rack(from + k));
const held = (registry: Parameters<typeof registryValue>[0]) =>
  registryValue(registry, 'hypernode_deletes_held', { source: 'label' });

test('deleteGuard: holds more than maxDeletePercent of what is owned, and only from 10 deletes on', () => {
  const decide = (owned: number, toDelete: number, max: number) => deleteGuard(owned, toDelete, max).hold;
  assert.is(decide(20, 12, 50), true, '60 % of 20');
  assert.is(decide(20, 11, 50), true, '55 % of 20');
  assert.is(decide(20, 10, 50), false, 'exactly 50 % is allowed');
  assert.is(decide(20, 12, 60), false, 'exactly the limit is allowed');
  assert.is(decide(20, 12, 59), true);
  assert.is(decide(9, 9, 50), false, 'all of 9: below 10 deletes nothing is held');
  assert.is(decide(1000, MIN_HELD_DELETES - 1, 0), false, 'below 10 even with a limit of 0');
  assert.is(decide(1000, MIN_HELD_DELETES, 0), true, 'a limit of 0 holds every deletion of 10 or more');
  assert.is(decide(50, 50, 100), false, 'a limit of 100 never holds');
  assert.is(decide(0, 0, 50), false);
  assert.equal(deleteGuard(21, 12, 50), { hold: true, percent: (12 * 100) / 21, allowedFrom: 58 });
});

test('a run deleting 60 % of 20 owned HyperNodes applies its creates and updates, holds its deletes, and says how to allow them', async () => {
  const { client, events, registry, reconciler, lines, stop } = startReconciler(racks(0, 20));
  // Racks 0–7 stay (rack 0 gains a Node), 8–19 are gone, two new racks appear.
  const shrunk = () => [rack(0, ['n0', 'n100']), ...racks(1, 8), rack(20), rack(21)];
  const summary = await reconciler.reconcile('label', shrunk());

  assert.equal(client.verbs(), ['update rack-00', 'create rack-20', 'create rack-21'], 'no delete');
  assert.is(summary.held, 12);
  assert.is(summary.deleted, 0);
  assert.is(client.serverNames().length, 22, 'every held HyperNode still exists');
  assert.is(await held(registry), 12);
  assert.equal(
    events.events.map((e) => `${e.type} ${e.reason} ${e.kind}/${e.name}`),
    [
      'Warning DeletesHeld ConfigMap/volcano-controller-configmap',
      'Normal TopologyChanged ConfigMap/volcano-controller-configmap',
    ],
  );
  assert.is(
    events.events[0]!.message,
    'Discovery source "label" would delete 12 of the 20 HyperNodes it owns (60%), more than its maxDeletePercent of 50, so these deletes are held; ' +
      'if the deletion is intended, set maxDeletePercent to 60 or more on the "label" entry of networkTopologyDiscovery',
  );
  assert.is(events.events[1]!.message, 'Discovery source "label": 2 created, 1 updated, 0 deleted, 12 deletes held');
  const warning = lines.filter((l) => l.includes('Holding HyperNode deletes'));
  assert.is(warning.length, 1);
  assert.match(warning[0]!, 'held=12');
  assert.match(warning[0]!, 'set maxDeletePercent to 60 or more');

  // The same snapshot again: still held, nothing written, nothing reported again.
  client.clearActions();
  await reconciler.reconcile('label', shrunk());
  assert.equal(client.actions, []);
  assert.is(events.events.length, 2, 'no new Event while the hold is unchanged');
  assert.is(await held(registry), 12);

  // The operator raises maxDeletePercent to 70; the restarted source runs again.
  const released = await reconciler.reconcile('label', shrunk(), 70);
  assert.equal(
    client.verbs(),
    racks(8, 20).map((hn) => `delete ${hn.metadata.name}`),
  );
  assert.is(released.deleted, 12);
  assert.is(released.held, 0);
  assert.equal(
    client.serverNames(),
    [...racks(0, 8), rack(20), rack(21)].map((hn) => hn.metadata.name),
  );
  assert.is(await held(registry), 0);
  assert.is(events.events.at(-1)!.message, 'Discovery source "label": 0 created, 0 updated, 12 deleted');
  assert.is(lines.filter((l) => l.includes('HyperNode deletes no longer held')).length, 1);
  await stop();
});

test('held deletes are released by a snapshot that no longer exceeds the limit', async () => {
  const { client, registry, reconciler, stop } = startReconciler(racks(0, 20));
  await reconciler.reconcile('label', racks(0, 8));
  assert.equal(client.actions, []);
  // The Nodes of racks 8–15 come back: only 4 of 20 are still to go.
  await reconciler.reconcile('label', racks(0, 16));
  assert.equal(client.verbs(), ['delete rack-16', 'delete rack-17', 'delete rack-18', 'delete rack-19']);
  assert.is(await held(registry), 0);
  await stop();
});

test('fewer than 10 deletes are never held, even when they are all a source owns', async () => {
  const { client, events, registry, reconciler, stop } = startReconciler(racks(0, 9));
  const summary = await reconciler.reconcile('label', []);
  assert.is(summary.deleted, 9);
  assert.is(summary.held, 0);
  assert.is(client.verbs().filter((v) => v.startsWith('delete')).length, 9);
  assert.equal(events.reasons(), ['TopologyChanged volcano-controller-configmap']);
  assert.is(await held(registry), 0);
  await stop();
});

test('a failed delete waiting for its retry is not sent once the guard holds it', async () => {
  const { client, reconciler, clock, stop } = startReconciler(racks(0, 20));
  client.failNext('delete', new ApiError('etcdserver: request timed out', 500, 'InternalError'));
  await reconciler.reconcile('label', racks(0, 19));
  assert.equal(client.verbs(), ['delete rack-19']);
  // Before the retry is due, the next run drops 12 of the 20: held, rack-19 among them.
  await reconciler.reconcile('label', racks(0, 8));
  await clock.advance(10 * 60_000);
  assert.equal(client.verbs(), ['delete rack-19'], 'the retry did not delete a held HyperNode');
  assert.is(client.serverNames().length, 20);
  await stop();
});

test('each source is guarded on its own HyperNodes', async () => {
  const ufm = (i: number): HyperNode => build(`leaf-${i}`, 1, buildMembers([`n${i}`], 'Node'), { [SOURCE]: 'ufm' });
  // 30 UFM HyperNodes do not dilute the label source's 12 of 20.
  const { client, reconciler, stop } = startReconciler([
    ...racks(0, 20),
    ...Array.from({ length: 30 }, (_, i) => ufm(i)),
  ]);
  await reconciler.reconcile('label', racks(0, 8));
  assert.equal(client.actions, []);
  await stop();
});

test.run();
