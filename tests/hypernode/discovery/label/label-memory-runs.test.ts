// The label source with its label memory (discovery/label-memory.ts), under a
// fake clock: a level label removed from a Node gives the same snapshot
// (list form, hand-written profile with a valuePattern, preset with the
// NVLink clique), until the grace period ends, when the source runs by itself
// and the Node moves; after a restart (a new memory, the HyperNodes in the
// cache) the HyperNode that holds the Node gives back a value that places it
// where it was, whichever form made it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  labelDiscovererFactory,
  TRIGGER_DEBOUNCE_MS,
} from '../../../../src/hypernode/discovery/label/label-discoverer.ts';
import type { DiscoveryEntry, Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { LabelHoldBoard } from '../../../../src/hypernode/reconcile/health/label-holds.ts';
import { nullLogger } from '../../../../src/log.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { offered } from './discoverer-round.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const GRACE = 10 * 60_000;
const RACK = 'example.com/rack';
const CLIQUE = 'nvidia.com/gpu.clique';
const LEAF = 'fabric.topograph.run/tier-0';
const UUID = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';

const TYPES: Record<string, unknown> = {
  list: { t: [{ nodeLabel: RACK }, { nodeLabel: 'kubernetes.io/hostname' }] },
  profile: {
    p: {
      levels: [
        { nodeLabel: CLIQUE, valuePattern: '^(.+)\\.[0-9]+$', tierName: 'nvl-domain' },
        { nodeLabel: 'kubernetes.io/hostname' },
      ],
    },
  },
  preset: { gb: { preset: 'topograph', nvlink: 'domain' } },
};
/** The label each form reads and a Node's value of it. */
const BLINKING: Record<string, [string, (i: number) => string]> = {
  list: [RACK, (i) => `r${i >> 1}`],
  profile: [CLIQUE, () => `${UUID}.1`],
  preset: [CLIQUE, () => `${UUID}.1`],
};
const nodes = (form: string): NodeMeta[] =>
  [0, 1, 2, 3].map((i) => ({
    metadata: {
      name: `n${i}`,
      labels: { [BLINKING[form]![0]]: BLINKING[form]![1](i), [LEAF]: 'S-1', 'kubernetes.io/hostname': `n${i}` },
    },
  }));

/** A started label source with its memory over `initial`, with `cached` HyperNodes (a restart's). */
async function rig(form: string, initial: NodeMeta[], cached: HyperNode[] = []) {
  const clock = new FakeClock();
  const board = new LabelHoldBoard(() => {});
  board.setLabelGraceMs(GRACE);
  const nodeInformer = new FakeInformer<NodeMeta>({ initial });
  const entry: DiscoveryEntry = {
    source: 'label',
    enabled: true,
    intervalMs: 3_600_000,
    maxDeletePercent: 50,
    config: { networkTopologyTypes: TYPES[form] },
  };
  const d = await labelDiscovererFactory(entry, {
    nodes: nodeInformer,
    hyperNodes: new FakeInformer<HyperNode>({ initial: cached }),
    labelHolds: board,
    clock,
    logger: nullLogger,
    workerErrors: unexpectedWorkerError,
    problems: new RecordingProblems(nullLogger),
    secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no Secrets')) },
  });
  const ch = await d.start();
  const next = async (): Promise<Snapshot> => {
    await clock.advance(TRIGGER_DEBOUNCE_MS);
    const got = await offered(ch);
    assert.ok(Array.isArray(got), `a snapshot, got ${String(got)}`);
    d.resultSynced();
    return got as Snapshot;
  };
  return { clock, board, nodes: nodeInformer, d, ch, next };
}

/** Which HyperNode (by its labels, names vary by form) holds n0 directly. */
const placeOf = (snapshot: Snapshot, node = 'n0') =>
  JSON.stringify(
    snapshot.find((hn) => hn.spec.members.some((m) => m.type === 'Node' && m.selector?.exactMatch?.name === node))
      ?.metadata.labels,
  );
const without = (n: NodeMeta, key: string): NodeMeta => {
  const { [key]: _, ...labels } = n.metadata.labels!;
  return { metadata: { ...n.metadata, labels } };
};

for (const form of ['list', 'profile', 'preset']) {
  test(`${form}: a removed level label gives the same snapshot until the grace period ends, then the source runs by itself and the Node moves`, async () => {
    const r = await rig(form, nodes(form));
    const first = await r.next();
    const key = BLINKING[form]![0];
    r.nodes.apply(without(nodes(form)[0]!, key));
    assert.equal(await r.next(), first, 'held: the same snapshot');
    assert.equal(
      r.board.heldBy('label').map((h) => [h.node, h.keys]),
      [['n0', [key]]],
    );
    await r.clock.advance(GRACE);
    const moved = await r.next();
    assert.not.equal(placeOf(moved), placeOf(first), 'moved once the grace period ended, without a Node event');
    assert.equal(r.board.heldBy('label'), []);
    await r.d.stop();
  });

  test(`${form}: after a restart, the HyperNode holding a Node that lacks its label gives back a value that keeps it there`, async () => {
    const before = await rig(form, nodes(form));
    const tree = await before.next();
    await before.d.stop();
    const key = BLINKING[form]![0];
    const after = await rig(form, [without(nodes(form)[0]!, key), ...nodes(form).slice(1)], tree);
    const again = await after.next();
    assert.equal(placeOf(again), placeOf(tree), 'n0 where it was');
    assert.equal(
      after.board.heldBy('label').map((h) => h.node),
      ['n0'],
    );
    await after.d.stop();
  });
}

test.run();
