// Every run of a source that wrote something is summed up in one Normal Event
// on the discovery ConfigMap; a run that wrote nothing emits nothing, so the
// steady state costs no API call of any kind.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../../src/kube/errors.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL as SOURCE } from '../../../src/hypernode/model/hypernode-labels.ts';
import { startReconciler } from './fixtures.ts';

const rack = (name: string, nodes: string[]) => build(name, 1, buildMembers(nodes, 'Node'), { [SOURCE]: 'label' });
const summaries = (events: ReturnType<typeof startReconciler>['events']) =>
  events.events.filter((e) => e.reason === 'TopologyChanged').map((e) => `${e.type} ${e.kind}/${e.name}: ${e.message}`);

test('a run that changed something gets one Normal Event counting its writes; an unchanged run gets none', async () => {
  const { client, events, reconciler, stop } = startReconciler();
  await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-b', ['n2']), rack('rack-c', ['n3'])]);
  assert.equal(summaries(events), [
    'Normal ConfigMap/volcano-controller-configmap: Discovery source "label": 3 created, 0 updated, 0 deleted',
  ]);

  client.clearActions();
  await reconciler.reconcile('label', [rack('rack-a', ['n1']), rack('rack-b', ['n2']), rack('rack-c', ['n3'])]);
  assert.equal(client.actions, [], 'no HyperNode write');
  assert.is(events.events.length, 1, 'and no Event: the steady state writes nothing at all');

  await reconciler.reconcile('label', [rack('rack-a', ['n1', 'n4']), rack('rack-b', ['n2', 'n5'])]);
  assert.equal(
    summaries(events).at(-1),
    'Normal ConfigMap/volcano-controller-configmap: Discovery source "label": 0 created, 2 updated, 1 deleted',
  );
  assert.is(events.events.length, 2);
  await stop();
});

test('a run whose only write failed gets its Warning but no summary', async () => {
  const { client, events, reconciler, stop } = startReconciler();
  client.failNext('create', new ApiError('admission webhook denied the request', 422, 'Invalid'));
  await reconciler.reconcile('label', [rack('rack-a', ['n1'])]);
  assert.equal(events.reasons(), ['FailedCreate rack-a']);
  await stop();
});

test.run();
