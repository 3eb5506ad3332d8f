// Which Nodes a label run leaves out although the configuration meant to
// place them (they carry level labels of a topology type), and why: the
// figures behind hypernode_uncovered_nodes{source="label"} and its log line.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { discoverTopology } from '../../../../src/hypernode/discovery/label/label-grouping.ts';
import { topologyTypes } from '../../../../src/hypernode/discovery/label/label-config.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../../src/log.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';

const HOST = { nodeLabel: 'kubernetes.io/hostname' };
const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });
const run = (networkTopologyTypes: Record<string, unknown>, nodes: NodeMeta[]) =>
  discoverTopology(nodes, topologyTypes({ networkTopologyTypes }, nullLogger), new FakeInformer<HyperNode>());
const inSnapshot = (t: ReturnType<typeof run>) =>
  new Set(
    t.snapshot.flatMap((h) => (h.spec.tier === 1 ? h.spec.members.map((m) => m.selector!.exactMatch!.name) : [])),
  );

test('legacy list: a Node with an upper level but no tier-1 label is uncovered; unlabelled and partial-chain Nodes are not', () => {
  const t = run({ racks: [{ nodeLabel: 'spine' }, { nodeLabel: 'rack' }, HOST] }, [
    node('full', { rack: 'r1', spine: 's1' }),
    node('partial', { rack: 'r2' }),
    node('no-rack', { spine: 's1' }),
    node('cpu', { pool: 'cpu' }),
  ]);
  assert.equal(t.uncovered, [
    { name: 'no-rack', reason: 'missing-level', why: 'missing level label rack of topology type racks' },
  ]);
  assert.equal([...inSnapshot(t)].sort(), ['full', 'partial']);
});

test('a Node another type covers is not uncovered', () => {
  const t = run({ a: [{ nodeLabel: 'spine' }, { nodeLabel: 'rack' }, HOST], b: [{ nodeLabel: 'zone' }, HOST] }, [
    node('n', { spine: 's1', zone: 'z1' }),
  ]);
  assert.equal(t.uncovered, []);
});

test('selector-less profile: a tier-1 value its valuePattern rejects, or a missing tier-1 label, is uncovered with the reason', () => {
  const profile = {
    levels: [
      { nodeLabel: 'block' },
      { nodeLabel: 'clique', tierName: 'nvlink', valuePattern: '^([0-9a-f]+)\\.[0-9]+$' },
      HOST,
    ],
  };
  const t = run({ gpu: profile }, [
    node('ok', { clique: 'ab.1', block: 'b1' }),
    node('bad-value', { clique: 'zz', block: 'b1' }),
    node('no-clique', { block: 'b1' }),
    node('cpu', {}),
  ]);
  assert.equal(t.uncovered, [
    {
      name: 'bad-value',
      reason: 'bad-value',
      why: 'value "zz" of clique gives no domain through valuePattern "^([0-9a-f]+)\\\\.[0-9]+$" of topology profile gpu',
    },
    { name: 'no-clique', reason: 'missing-level', why: 'missing level label clique of topology type gpu' },
  ]);
  assert.equal([...inSnapshot(t)], ['ok']);
});

test("a Node an explicit profile selects is that profile's alone: covered, and not counted for the other types", () => {
  const t = run(
    {
      gpu: { nodeSelector: { matchLabels: { pool: 'gpu' } }, levels: [{ nodeLabel: 'rack' }, HOST] },
      racks: [{ nodeLabel: 'spine' }, { nodeLabel: 'row' }, HOST],
    },
    [node('g', { pool: 'gpu', rack: 'r1', spine: 's1' })],
  );
  assert.equal(t.uncovered, []);
  assert.equal([...inSnapshot(t)], ['g']);
});

test.run();
