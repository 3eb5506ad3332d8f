// The label memory against whoever writes HyperNode status or Node labels
// (docs/security.md, "Memory and time"): a TopologyLabelsPresent condition
// written by hand is read back after a restart, but never holds a Node longer
// than one grace period from now; and the condition names Nodes and label
// keys, never a label's value.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LabelMemory } from '../../src/hypernode/discovery/label-memory.ts';
import { buildMembers, buildWithTierName } from '../../src/hypernode/model/hypernode-builders.ts';
import type { NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { conditionTime } from '../../src/hypernode/reconcile/health/conditions.ts';
import { judgeTopologyLabelsPresent, LabelHoldBoard } from '../../src/hypernode/reconcile/health/label-holds.ts';
import { nullLogger } from '../../src/log.ts';
import { FakeClock } from '../kube/fake-clock.ts';

const KEY = 'nvidia.com/gpu.clique';
const GRACE = 30 * 60_000;

function memory(clock: FakeClock) {
  const board = new LabelHoldBoard(() => {});
  board.setLabelGraceMs(GRACE);
  return new LabelMemory({ source: 'label', reporter: board, clock, logger: nullLogger, onExpiry() {} });
}

test('a hand-written TopologyLabelsPresent naming a Node until 2099 holds it no longer than one grace period from now', () => {
  const clock = new FakeClock();
  const domain = buildWithTierName('domain-a', 1, 'nvl-domain', buildMembers(['tray-0'], 'Node'), {
    'volcano.sh/network-topology-source': 'label',
    [KEY]: 'rack-a',
  });
  domain.status = {
    conditions: [
      {
        type: 'TopologyLabelsPresent',
        status: 'False',
        reason: 'LabelsMissing',
        message: `1 Node kept in place while labels are missing: tray-0 (${KEY}) until 2099-01-01T00:00:00Z.`,
        lastTransitionTime: conditionTime(clock.now()),
      },
    ],
  };
  const { held } = memory(clock).recall({
    scope: '',
    nodes: [{ metadata: { name: 'tray-0', labels: {} } }],
    isLevelKey: (k) => k === KEY,
    cached: () => [domain],
    valueFor: (_k, d) => d,
  });
  assert.equal(
    held.map((h) => h.until),
    [clock.now() + GRACE],
    'the forged time is cut to one grace period',
  );
});

test('the condition of a held Node names the Node and the label key, never the value the label had', async () => {
  const clock = new FakeClock();
  const m = memory(clock);
  const value = 'c0ffee00-dead-beef-0000-000000000001.7';
  const recall = (nodes: NodeMeta[]) =>
    m.recall({ scope: '', nodes, isLevelKey: (k) => k === KEY, cached: () => [], valueFor: (_k, d) => d });
  recall([{ metadata: { name: 'tray-0', labels: { [KEY]: value } } }]);
  const { held } = recall([{ metadata: { name: 'tray-0', labels: {} } }]);
  const message = judgeTopologyLabelsPresent(held).message;
  assert.match(message, `tray-0 (${KEY})`);
  assert.not.match(message, 'c0ffee00');
});

test.run();
