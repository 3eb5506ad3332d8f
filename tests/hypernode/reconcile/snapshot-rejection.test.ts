// A snapshot that breaks one of the HyperNode rules is refused whole before
// anything is written: no create, update or delete for that source, one
// Warning Event on the discovery ConfigMap per distinct rejection, every
// rejected run counted by rule, and pending retries keep writing the last
// accepted snapshot, never the rejected one.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../../src/kube/errors.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL as SOURCE } from '../../../src/hypernode/model/hypernode-labels.ts';
import { MAX_OBJECT_BYTES } from '../../../src/hypernode/reconcile/snapshot-validation.ts';
import type { SnapshotRule } from '../../../src/hypernode/hypernode-metrics.ts';
import { registryValue } from '../../support/metric-registry.ts';
import { startReconciler } from './fixtures.ts';

const label = { [SOURCE]: 'label' };
const node = (name: string, nodes: string[], tier = 1) =>
  build(name, tier, buildMembers(nodes, tier === 1 ? 'Node' : 'HyperNode'), label);
/** Two racks under one zone: what the cluster holds before each crafted snapshot arrives. */
const accepted = () => [node('rack-a', ['n1']), node('rack-b', ['n2']), node('zone-1', ['rack-a', 'rack-b'], 2)];
const rejected = (registry: Parameters<typeof registryValue>[0], rule: SnapshotRule) =>
  registryValue(registry, 'hypernode_snapshot_rejected_total', { source: 'label', rule });

/**
 * Per rule, a snapshot that breaks it. Each also changes rack-b, drops
 * rack-a or adds rack-c, so that without the check there would be writes.
 */
const crafted: Record<SnapshotRule, { snapshot: () => DiscoveredHyperNode[]; objects: string[] }> = {
  'member-selector': {
    snapshot: () => [
      node('rack-a', ['n1']),
      node('rack-b', ['n2', 'n3']),
      build('zone-1', 2, [{ type: 'HyperNode', selector: { regexMatch: { pattern: '^rack-' } } }], label),
    ],
    objects: ['zone-1'],
  },
  cycle: {
    snapshot: () => [
      node('rack-a', ['n1']),
      node('rack-b', ['n2', 'n3']),
      node('zone-1', ['rack-a', 'zone-2'], 2),
      node('zone-2', ['zone-1'], 3),
    ],
    objects: ['zone-1', 'zone-2'],
  },
  parents: {
    snapshot: () => [
      node('rack-a', ['n1']),
      node('rack-b', ['n2', 'n3']),
      node('zone-1', ['rack-a', 'rack-b'], 2),
      node('zone-2', ['rack-b'], 2),
    ],
    objects: ['rack-b', 'zone-1', 'zone-2'],
  },
  'tier-order': {
    snapshot: () => [
      node('rack-a', ['n1']),
      node('rack-b', ['n2', 'n3']),
      build('zone-1', 1, buildMembers(['rack-a', 'rack-b'], 'HyperNode'), label),
    ],
    objects: ['zone-1', 'rack-a'],
  },
  name: {
    snapshot: () => [
      node('rack-a', ['n1']),
      node('rack-b', ['n2']),
      node('zone-1', ['rack-a', 'rack-b'], 2),
      node('Rack_C', ['n3']),
    ],
    objects: ['Rack_C'],
  },
  label: {
    snapshot: () => {
      const bad = node('rack-c', ['n3']);
      bad.metadata.labels!['topology.example.com/rack'] = 'rack c!';
      return [node('rack-b', ['n2']), node('zone-1', ['rack-b'], 2), bad];
    },
    objects: ['rack-c'],
  },
  size: {
    snapshot: () => {
      const huge = node('rack-b', ['n2']);
      huge.metadata.annotations = { 'example.com/notes': 'x'.repeat(MAX_OBJECT_BYTES) };
      return [node('rack-a', ['n1']), huge, node('zone-1', ['rack-a', 'rack-b'], 2)];
    },
    objects: ['rack-b'],
  },
};

for (const [rule, { snapshot, objects }] of Object.entries(crafted) as Array<
  [SnapshotRule, (typeof crafted)[SnapshotRule]]
>) {
  test(`a snapshot breaking the ${rule} rule writes nothing, is reported once and counted every run`, async () => {
    const { client, events, registry, reconciler, lines, stop } = startReconciler();
    await reconciler.reconcile('label', accepted());
    const before = structuredClone(client.serverNames().map((n) => client.server(n)));
    client.clearActions();
    events.events.length = 0;

    for (let run = 0; run < 3; run++) {
      const summary = await reconciler.reconcile('label', snapshot());
      assert.ok(summary.rejected, `run ${run} rejected`);
    }

    assert.equal(client.actions, [], 'no create, update or delete');
    assert.equal(
      client.serverNames().map((n) => client.server(n)),
      before,
      'the cluster is as the last accepted snapshot left it',
    );
    assert.equal(
      events.events.map((e) => `${e.type} ${e.reason} ${e.kind}/${e.name}`),
      ['Warning SnapshotRejected ConfigMap/volcano-controller-configmap'],
      'one Warning Event for three identical rejections',
    );
    const { message } = events.events[0]!;
    assert.match(message, `${rule}: `);
    for (const name of objects) assert.match(message, name, `the Event names ${name}`);
    assert.is(await rejected(registry, rule), 3, 'every rejected run counted under its rule');
    const errors = lines.filter((l) => l.includes('Discovery snapshot rejected, nothing written for this source'));
    assert.is(errors.length, 1, 'one error line');
    for (const name of objects) assert.match(errors[0]!, name, `the log line names ${name}`);
    await stop();
  });
}

test('a pending retry after a rejected snapshot writes the last accepted snapshot, not the rejected one', async () => {
  const { client, reconciler, clock, stop } = startReconciler();
  client.failNext('create', new ApiError('etcdserver: request timed out', 500, 'InternalError'), 'rack-b');
  await reconciler.reconcile('label', [node('rack-a', ['n1']), node('rack-b', ['n2'])]);
  assert.equal(client.verbs(), ['create rack-a', 'create rack-b']);

  // Before rack-b's retry is due, a snapshot arrives that changes rack-b and breaks the name rule.
  const summary = await reconciler.reconcile('label', [
    node('rack-a', ['n1']),
    node('rack-b', ['n2', 'n9']),
    node('Rack_C', ['n3']),
  ]);
  assert.ok(summary.rejected);
  await clock.advance(60_000);

  assert.equal(client.verbs(), ['create rack-a', 'create rack-b', 'create rack-b']);
  assert.equal(
    client.server('rack-b')!.spec!.members!.map((m) => m.selector!.exactMatch!.name),
    ['n2'],
    'the accepted content, not n9',
  );
  assert.equal(client.serverNames(), ['rack-a', 'rack-b']);
  await stop();
});

test('a rejection after an accepted snapshot is news again; a different rejection is reported too', async () => {
  const { events, reconciler, lines, stop } = startReconciler();
  const badName = () => [node('rack-a', ['n1']), node('Rack_C', ['n3'])];
  await reconciler.reconcile('label', badName());
  await reconciler.reconcile('label', [node('rack-a', ['n1'])]);
  await reconciler.reconcile('label', badName());
  await reconciler.reconcile('label', [node('rack-a', ['n1']), node('Rack_D', ['n3'])]);
  assert.equal(
    events.events.filter((e) => e.type === 'Warning').map((e) => e.message.match(/Rack_[CD]/)?.[0]),
    ['Rack_C', 'Rack_C', 'Rack_D'],
  );
  assert.is(lines.filter((l) => l.includes('Discovery snapshot accepted again')).length, 1);
  await stop();
});

test('another source’s snapshots are still applied while one source’s are rejected', async () => {
  const { client, reconciler, stop } = startReconciler();
  const ufm = (name: string, nodes: string[]) => build(name, 1, buildMembers(nodes, 'Node'), { [SOURCE]: 'ufm' });
  await reconciler.reconcile('label', [node('rack-a', ['n1']), node('Rack_C', ['n3'])]);
  await reconciler.reconcile('ufm', [ufm('leaf-0', ['n1'])]);
  assert.equal(client.verbs(), ['create leaf-0']);
  await stop();
});

test.run();
