// The label memory (src/hypernode/discovery/label-memory.ts) on its own, over
// the status writer's board as its reporter and a fake clock: a label that
// vanishes is put back for the grace period and the Node reported held on the
// HyperNode holding it; past it the Node moves once; a changed value, a
// deleted Node and a grace period of 0 hold nothing; after a restart the
// HyperNodes that hold a Node and its recorded condition bring the hold back
// for the rest of its grace period, never a new one.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LabelMemory, type RecallInput } from '../../../src/hypernode/discovery/label-memory.ts';
import { buildMembers, buildWithTierName } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { LabelHoldBoard } from '../../../src/hypernode/reconcile/health/label-holds.ts';
import { conditionTime } from '../../../src/hypernode/reconcile/health/conditions.ts';
import { nullLogger } from '../../../src/log.ts';
import { FakeClock } from '../../kube/fake-clock.ts';

const RACK = 'example.com/rack';
const GRACE = 30 * 60_000;
const node = (name: string, rack?: string): NodeMeta => ({
  metadata: { name, labels: rack === undefined ? {} : { [RACK]: rack } },
});
const rackOf = (n: NodeMeta | undefined) => n?.metadata.labels?.[RACK];
/** The HyperNode of rack `value` holding `nodes`, as the label source writes it. */
const rack = (value: string, nodes: string[]): DiscoveredHyperNode =>
  buildWithTierName(`rack-${value}`, 1, RACK, buildMembers(nodes, 'Node'), {
    'volcano.sh/network-topology-source': 'label',
    [RACK]: value,
  });

function rig(cached: HyperNode[] = [], board = new LabelHoldBoard(() => {})) {
  const clock = new FakeClock();
  let expired = 0;
  board.setLabelGraceMs(GRACE);
  const memory = new LabelMemory({
    source: 'label',
    reporter: board,
    clock,
    logger: nullLogger,
    onExpiry: () => expired++,
  });
  const input = (nodes: NodeMeta[]): RecallInput => ({
    scope: '',
    nodes,
    isLevelKey: (k) => k === RACK,
    cached: () => cached,
    valueFor: (_key, domain) => domain,
  });
  const recall = (nodes: NodeMeta[]) => {
    const r = memory.recall(input(nodes));
    return { ...r, byName: new Map(r.nodes.map((n) => [n.metadata.name, n])) };
  };
  return { clock, board, memory, recall, expired: () => expired };
}

test('a vanished label is put back for the grace period, then the Node moves once and stays moved', async () => {
  const r = rig();
  const start = r.clock.now();
  r.recall([node('a', 'r1'), node('b', 'r1')]);
  await r.clock.advance(60_000);
  const blink = r.recall([node('a'), node('b', 'r1')]);
  assert.is(rackOf(blink.byName.get('a')), 'r1', 'put back');
  assert.equal(blink.held, [{ node: 'a', keys: [RACK], since: start + 60_000, until: start + 60_000 + GRACE }]);
  // Seen again while still missing: the same hold, the grace period running from when it vanished.
  await r.clock.advance(GRACE - 1);
  assert.equal(
    r.recall([node('a'), node('b', 'r1')]).held.map((h) => h.until),
    [start + 60_000 + GRACE],
  );
  assert.is(r.expired(), 0);
  await r.clock.advance(1);
  assert.is(r.expired(), 1, 'the source is woken when the grace period ends');
  const moved = r.recall([node('a'), node('b', 'r1')]);
  assert.is(rackOf(moved.byName.get('a')), undefined, 'past the grace period it moves');
  assert.equal(moved.held, []);
  // Back, and gone again: a new grace period.
  r.recall([node('a', 'r1')]);
  assert.equal(
    r.recall([node('a')]).held.map((h) => h.node),
    ['a'],
  );
});

test('a changed value applies at once; a deleted Node leaves at once and is not held when it comes back; 0s holds nothing', () => {
  const r = rig();
  r.recall([node('a', 'r1'), node('b', 'r1')]);
  const moved = r.recall([node('a', 'r2'), node('b', 'r1')]);
  assert.is(rackOf(moved.byName.get('a')), 'r2');
  assert.equal(moved.held, []);
  r.recall([node('b', 'r1')]);
  assert.equal(r.recall([node('a'), node('b', 'r1')]).held, [], 'a Node deleted and made again is new');
  r.board.setLabelGraceMs(0);
  const off = r.recall([node('a'), node('b')]);
  assert.equal(off.held, []);
  assert.is(rackOf(off.byName.get('b')), undefined);
});

test('after a restart a Node its HyperNode holds keeps the rest of the grace period its condition recorded', async () => {
  const clock = new FakeClock();
  const until = clock.now() + 10 * 60_000;
  const held = rack('r1', ['a', 'b']);
  held.status = {
    conditions: [
      {
        type: 'TopologyLabelsPresent',
        status: 'False',
        reason: 'LabelsMissing',
        message: `1 Node kept in place while labels are missing: a (${RACK}) until ${conditionTime(until)}.`,
        lastTransitionTime: conditionTime(until - GRACE),
      },
    ],
  };
  const r = rig([held, rack('r2', ['c'])]);
  const first = r.recall([node('a'), node('b'), node('c', 'r2'), node('d')]);
  assert.is(rackOf(first.byName.get('a')), 'r1', 'the recorded hold');
  assert.is(rackOf(first.byName.get('b')), 'r1', 'missing since the restart: held from now');
  assert.is(rackOf(first.byName.get('d')), undefined, 'a Node no HyperNode holds is not held');
  const untils = new Map(first.held.map((h) => [h.node, h.until]));
  assert.is(untils.get('a'), Date.parse(conditionTime(until)), 'not restarted');
  assert.is(untils.get('b'), r.clock.now() + GRACE);
  // Seeding happens once: a Node seen before is never seeded again.
  await r.clock.advance(GRACE);
  assert.equal(r.recall([node('a'), node('b'), node('c', 'r2'), node('d')]).held, []);
});

test('the held Nodes are reported on the HyperNodes holding them, and TopologyLabelsPresent names them until when', () => {
  const reports: string[][] = [];
  const board = new LabelHoldBoard((_s, names) => reports.push([...names]));
  const r = rig([], board);
  r.recall([node('a', 'r1'), node('b', 'r1')]);
  const { held } = r.recall([node('a'), node('b', 'r1')]);
  r.memory.report('', held, [rack('r1', ['a', 'b']), rack('r2', ['c'])]);
  assert.equal(
    board.heldOf('label', 'rack-r1').map((h) => h.node),
    ['a'],
  );
  assert.equal(board.heldOf('label', 'rack-r2'), []);
  assert.equal(board.heldNodes(), new Map([['label', 1]]));
  assert.equal(reports, [], 'judged once the snapshot sent with it is reconciled');
  board.reconciled('label');
  assert.equal(reports, [[]], 'the first report judges every HyperNode of the source');
  r.memory.report('', [], [rack('r1', ['a', 'b'])]);
  board.reconciled('label');
  assert.equal(reports.at(-1), ['rack-r1'], 'then only those whose held Nodes changed');
});

test.run();
