// The label discoverer with a preset on a running cluster: a mislabelled Node
// leaves every other Node's HyperNodes updated, is counted per reason in
// hypernode_uncovered_nodes and named (with its labels) in one Warning per
// distinct problem; Topograph tiers of any depth are watched; and hand-written
// profiles giving one tierName two tiers get one Warning, not one per run.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Snapshot } from '../../../../../src/hypernode/model/contracts.ts';
import type { NodeMeta } from '../../../../../src/hypernode/model/hypernode-types.ts';
import { MIXED_CONFIG, mixedNodes } from '../../../../../testing/mixed-cluster.ts';
import { round, startLabelRig } from '../discoverer-round.ts';

const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const k = (n: number) => `fabric.topograph.run/tier-${n}`;

const leafMembers = (s: Snapshot, leaf: string) =>
  s.find((h) => h.metadata.labels?.[k(0)] === leaf)?.spec.members.map((m) => m.selector!.exactMatch!.name) ?? [];

test('a mislabelled Node: the others keep being placed and updated; it is counted per reason and named once per distinct problem', async () => {
  const rig = await startLabelRig({ fabric: { preset: 'topograph' } }, [
    node('a0', { [k(0)]: 'S-a', [k(1)]: 'S-x' }),
    node('a1', { [k(0)]: 'S-a', [k(1)]: 'S-x' }),
    node('bad', { [k(2)]: 'S-core' }),
  ]);
  const first = (await round(rig)) as Snapshot;
  assert.equal(leafMembers(first, 'S-a'), ['a0', 'a1']);
  assert.is(rig.metrics.uncovered.get('label'), 1);
  assert.is(rig.metrics.uncoveredByReason.get('label/missing-level'), 1);
  assert.is(rig.metrics.uncoveredByReason.get('label/empty-value'), 0);
  assert.equal(rig.problems.warnings, [
    `NodesLeftOut: 1 Node(s) left out of the topology (missing-level), the other Nodes are placed: bad: it carries ${k(2)}=S-core but no ${k(0)} (preset profile fabric)`,
  ]);
  assert.equal(rig.problems.failures, []);

  // Another Node joins the leaf: the run still publishes, the same problem is not reported again.
  rig.nodes.apply(node('a2', { [k(0)]: 'S-a', [k(1)]: 'S-x' }));
  const second = (await round(rig)) as Snapshot;
  assert.equal(leafMembers(second, 'S-a'), ['a0', 'a1', 'a2']);
  assert.is(rig.problems.warnings.length, 1);

  // A second kind of problem gets its own Warning; fixing both brings the counts to 0.
  rig.nodes.apply(node('empty', { [k(0)]: '' }));
  await round(rig);
  assert.is(rig.problems.warnings.length, 2);
  assert.match(rig.problems.warnings[1]!, `(empty-value), the other Nodes are placed: empty: its ${k(0)} is empty`);
  rig.nodes.apply(node('bad', { [k(0)]: 'S-b', [k(1)]: 'S-x', [k(2)]: 'S-core' }));
  rig.nodes.apply(node('empty', { [k(0)]: 'S-b' }));
  const fixed = (await round(rig)) as Snapshot;
  assert.equal(leafMembers(fixed, 'S-b'), ['bad', 'empty']);
  assert.is(rig.metrics.uncovered.get('label'), 0);
  assert.is(rig.metrics.uncoveredByReason.get('label/missing-level'), 0);
  await rig.d.stop();
});

test('a Topograph tier above tier-3 is watched: adding one triggers a run', async () => {
  const rig = await startLabelRig({ fabric: { preset: 'topograph' } }, [node('a0', { [k(0)]: 'S-a' })]);
  assert.ok(Array.isArray(await round(rig)));
  rig.nodes.apply(node('a0', { [k(0)]: 'S-a', [k(1)]: 'S-b', [k(2)]: 'S-c', [k(3)]: 'S-d', [k(4)]: 'S-e' }));
  const s = (await round(rig)) as Snapshot;
  assert.ok(s.some((h) => h.spec.tierName === 'tier-4' && h.spec.tier === 5));
  rig.nodes.apply(
    node('a0', { [k(0)]: 'S-a', [k(1)]: 'S-b', [k(2)]: 'S-c', [k(3)]: 'S-d', [k(4)]: 'S-e', unrelated: 'x' }),
  );
  assert.is(await round(rig), 'none', 'other keys are not watched');
  await rig.d.stop();
});

test('hand-written profiles giving one tierName two tiers: published as written, one TierNameAmbiguous Warning while it lasts', async () => {
  const rig = await startLabelRig(MIXED_CONFIG, mixedNodes());
  assert.ok(Array.isArray(await round(rig)));
  const ambiguous = () => rig.problems.warnings.filter((w) => w.startsWith('TierNameAmbiguous: '));
  assert.equal(ambiguous().length, 1);
  assert.match(ambiguous()[0]!, 'tierName "leaf" is at tiers 1 and 2 (profiles: gb200, gb200-pending, h100)');
  assert.match(ambiguous()[0]!, 'tierName "spine" is at tiers 2 and 3');
  assert.match(ambiguous()[0]!, 'Released Volcano schedulers keep one tier per tierName');
  rig.nodes.apply(
    node('h100-0', {
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
      'example.com/leaf': 'leaf-h9',
      'example.com/spine': 'spine-h',
    }),
  );
  assert.ok(Array.isArray(await round(rig)));
  assert.equal(ambiguous().length, 1, 'not repeated every run');
  await rig.d.stop();
});

test.run();
