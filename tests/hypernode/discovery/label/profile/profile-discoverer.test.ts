// The label discoverer with profiles: a selector key change (a Node moving
// between profiles) triggers a run, a fail-closed run publishes nothing and
// is retried, and a bad profile stops the source from being created.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Snapshot } from '../../../../../src/hypernode/model/contracts.ts';
import type { NodeMeta } from '../../../../../src/hypernode/model/hypernode-types.ts';
import { MIXED_CONFIG, mixedNodes } from '../../../../../testing/mixed-cluster.ts';
import { round, startLabelRig } from '../discoverer-round.ts';

const startRig = (config: unknown = MIXED_CONFIG) => startLabelRig(config, mixedNodes());

const relabelled = (name: string, labels: Record<string, string | undefined>): NodeMeta => {
  const n = mixedNodes().find((x) => x.metadata.name === name)!;
  const merged = { ...n.metadata.labels, ...labels };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return { metadata: { name, labels: merged as Record<string, string> } };
};

test('a change to a selector-only key (clique Exists) moves the Node and triggers a run', async () => {
  const rig = await startRig({
    nvl: {
      nodeSelector: { matchExpressions: [{ key: 'nvidia.com/gpu.clique', operator: 'Exists' }] },
      levels: [{ nodeLabel: 'example.com/leaf' }, { nodeLabel: 'kubernetes.io/hostname' }],
    },
  });
  const first = (await round(rig)) as Snapshot;
  assert.is(first.length, 1, 'one leaf: the GB200 Nodes with a clique');
  rig.nodes.apply(relabelled('gb200-0', { 'nvidia.com/gpu.clique': undefined }));
  const second = await round(rig);
  assert.ok(Array.isArray(second), 'the selector key is watched');
  rig.nodes.apply(relabelled('gb200-0', { unrelated: 'x', 'nvidia.com/gpu.clique': undefined }));
  assert.is(await round(rig), 'none', 'other keys are not');
  await rig.d.stop();
});

test('a fail-closed run publishes nothing, reports why, and the next good run publishes', async () => {
  const rig = await startRig();
  assert.ok(Array.isArray(await round(rig)));
  rig.nodes.apply(relabelled('gb200-0', { 'example.com/spine': undefined }));
  assert.is(await round(rig), 'none');
  assert.equal(rig.problems.failures, [
    'Error discover HyperNode: node gb200-0 selected by topology profile gb200 is missing level label example.com/spine',
  ]);
  rig.nodes.apply(mixedNodes().find((n) => n.metadata.name === 'gb200-0')!);
  assert.ok(Array.isArray(await round(rig)), 'repaired: published again');
  await rig.d.stop();
});

test("a bad profile is a construction error with Volcano's text", async () => {
  const err = await startRig({ p: { levels: [{ nodeLabel: 'kubernetes.io/hostname' }] } }).then(
    () => 'created',
    (e: Error) => e.message,
  );
  assert.is(err, 'invalid topology profile "p": at least one topology level and one node level are required');
});

test.run();
