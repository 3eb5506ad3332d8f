// TopologyLabelsPresent (docs/health.md): the status writer's one PUT per
// HyperNode carries it once the source reported; False names the held
// Nodes, their keys and until when, the soonest first; a restart reads the
// time back from the message, for a named Node and for one among the "more";
// a source that keeps no label memory, or labelGracePeriod 0s, removes it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_HEALTH } from '../../../../src/hypernode/config/health-config.ts';
import type { HeldNode } from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { conditionTime } from '../../../../src/hypernode/reconcile/health/conditions.ts';
import { judgeTopologyLabelsPresent, recordedUntil } from '../../../../src/hypernode/reconcile/health/label-holds.ts';
import { rig, SOURCE } from './health-rig.ts';

const KEY = 'nvidia.com/gpu.clique';
const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const held = (node: string, minutes: number): HeldNode => ({
  node,
  keys: [KEY],
  since: T0 + minutes * 60_000,
  until: T0 + (minutes + 30) * 60_000,
});
const withCondition = (message: string): HyperNode => ({
  metadata: { name: 'rack-0' },
  spec: { tier: 1 },
  status: {
    conditions: [
      {
        type: 'TopologyLabelsPresent',
        status: 'False',
        reason: 'LabelsMissing',
        message,
        lastTransitionTime: conditionTime(T0),
      },
    ],
  },
});

test('False names the first five Nodes by when they move, then how many more and until when at the latest', () => {
  assert.equal(judgeTopologyLabelsPresent([]), {
    type: 'TopologyLabelsPresent',
    status: 'True',
    reason: 'LabelsPresent',
    message: 'Every Node carries the labels that place it.',
  });
  const one = judgeTopologyLabelsPresent([held('tray-3', 0)]);
  assert.is(one.status, 'False');
  assert.is(one.reason, 'LabelsMissing');
  assert.is(one.message, `1 Node kept in place while labels are missing: tray-3 (${KEY}) until 2026-12-01T10:30:00Z.`);
  const seven = judgeTopologyLabelsPresent([6, 1, 0, 2, 5, 3, 4].map((m) => held(`tray-${m}`, m)));
  assert.is(
    seven.message,
    `7 Nodes kept in place while labels are missing: ${[0, 1, 2, 3, 4].map((m) => `tray-${m} (${KEY}) until 2026-12-01T10:3${m}:00Z`).join(', ')} and 2 more until 2026-12-01T10:36:00Z at the latest.`,
  );
  const hn = withCondition(seven.message);
  assert.is(recordedUntil(hn, 'tray-2'), T0 + 32 * 60_000, 'a named Node: its own time');
  assert.is(recordedUntil(hn, 'tray-5'), T0 + 36 * 60_000, 'one of the more: the latest, never earlier than its own');
  assert.is(recordedUntil(withCondition(one.message), 'tray-30'), undefined, 'a Node it does not hold');
  assert.is(recordedUntil({ metadata: { name: 'x' } }, 'tray-3'), undefined);
});

test('the status writer writes TopologyLabelsPresent in one PUT per HyperNode once the snapshot reported with is reconciled, and removes it when the memory is off', async () => {
  const r = rig(undefined, { ...DEFAULT_HEALTH, nodes: false, fabric: false });
  await r.settle(() => r.client.server('zone')?.status?.nodeCount === 2, 'the counts written');
  assert.is(r.condition('rack-0', 'TopologyLabelsPresent'), undefined, 'nothing before the source says');
  r.client.actions.length = 0;
  r.writer.labelHolds.report(SOURCE, 'f1', new Map([['rack-0', [held('n0', 0)]]]));
  assert.is(r.condition('rack-0', 'TopologyLabelsPresent'), undefined, 'nothing before its snapshot is reconciled');
  r.writer.labelHolds.reconciled(SOURCE);
  await r.settle(() => r.condition('zone', 'TopologyLabelsPresent')?.status === 'True', 'every HyperNode judged');
  assert.equal(
    r.client.actions.map((a) => `${a.verb} ${a.name}`).sort(),
    ['rack-0', 'rack-1', 'rack-2', 'rack-3', 'spine-0', 'spine-1', 'zone'].map((n) => `updateStatus ${n}`),
    'one write per HyperNode',
  );
  assert.match(
    r.condition('rack-0', 'TopologyLabelsPresent')!.message,
    '1 Node kept in place while labels are missing: n0',
  );
  assert.is(r.condition('rack-0', 'TopologyLabelsPresent')!.status, 'False');
  r.writer.labelHolds.report(SOURCE, 'f1', new Map());
  r.writer.labelHolds.reconciled(SOURCE);
  await r.settle(() => r.condition('rack-0', 'TopologyLabelsPresent')?.status === 'True', 'back to True');
  r.writer.labelHolds.report(SOURCE, 'f1', undefined);
  r.writer.labelHolds.reconciled(SOURCE);
  await r.settle(() => r.condition('rack-0', 'TopologyLabelsPresent') === undefined, 'removed: no memory');
  await r.stop();
});

test.run();
