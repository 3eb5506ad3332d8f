// A fabric source's NVLink tier with the label memory (NvlinkDomains over
// discovery/label-memory.ts): a clique removed from a Node places the same
// tree and reports the Node held on its domain; when the grace period ends
// the source is asked for a rebuild and the Node moves to its leaf group; a
// restarted source finds the domain HyperNode in the cache and keeps the
// Node there; without config.nvlink the source keeps no label memory; the
// placement is sliced work, a Node, HyperNode or domain a step.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import { parseNvlinkConfig } from '../../../../src/hypernode/discovery/fabric/nvlink-config.ts';
import { NvlinkDomains } from '../../../../src/hypernode/discovery/fabric/nvlink-domains.ts';
import { nvlinkHyperNodeName } from '../../../../src/hypernode/discovery/fabric/nvlink-tier.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { LabelHoldBoard } from '../../../../src/hypernode/reconcile/health/label-holds.ts';
import { nullLogger } from '../../../../src/log.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { hostLink, swLink } from './fabric-links.ts';

const CLIQUE = 'nvidia.com/gpu.clique';
const RACK = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';
const GRACE = 5 * 60_000;
const LABELS = { 'volcano.sh/network-topology-source': 'graph' };
const HOSTS = ['h1', 'h2', 'h3'];
const DOMAIN = nvlinkHyperNodeName('lab', 'nvl-domain', RACK);

/** One leaf, one spine, three hosts. */
const base = () =>
  fabricHyperNodes({
    graph: {
      switches: [
        { id: 'l1', name: 'l1' },
        { id: 's1', name: 's1' },
      ],
      hosts: HOSTS.map((name) => ({ name })),
      links: [...HOSTS.map((h) => hostLink(h, 'l1')), swLink('l1', 's1')],
    },
    fabric: 'lab',
    source: 'graph',
    mapHost: (h) => h,
    logger: nullLogger,
  }).snapshot;
const node = (name: string, clique = true): NodeMeta => ({
  metadata: { name, labels: clique ? { [CLIQUE]: `${RACK}.${name.slice(1)}` } : {} },
});
const domainMembers = (
  tree: { metadata: { name: string }; spec: { members: { selector: { exactMatch?: { name: string } } }[] } }[],
) => tree.find((hn) => hn.metadata.name === DOMAIN)?.spec.members.map((m) => m.selector.exactMatch?.name);

function rig(initial: NodeMeta[], cached: HyperNode[] = [], board = new LabelHoldBoard(() => {})) {
  const clock = new FakeClock();
  board.setLabelGraceMs(GRACE);
  const nodes = new FakeInformer<NodeMeta>({ initial });
  let rebuilds = 0;
  const domains = new NvlinkDomains(parseNvlinkConfig('domain'), {
    nodes,
    hyperNodes: new FakeInformer<HyperNode>({ initial: cached }),
    problems: new RecordingProblems(nullLogger),
    logger: nullLogger,
    clock,
    source: 'graph',
    labelHolds: board,
    onExpiry: () => rebuilds++,
  });
  return { clock, board, nodes, domains, rebuilds: () => rebuilds };
}

test('a clique removed keeps its Node in the domain, held on it, until the grace period ends; then a rebuild moves it', async () => {
  const r = rig(HOSTS.map((h) => node(h)));
  const first = r.domains.place('lab', base(), LABELS);
  assert.equal(domainMembers(first), HOSTS);
  r.nodes.apply(node('h1', false));
  assert.equal(r.domains.place('lab', base(), LABELS), first, 'the same tree');
  assert.equal(
    r.board.heldOf('graph', DOMAIN).map((h) => [h.node, h.keys]),
    [['h1', [CLIQUE]]],
  );
  await r.clock.advance(GRACE);
  assert.is(r.rebuilds(), 1, 'the source is asked for a rebuild when the grace period ends');
  assert.equal(domainMembers(r.domains.place('lab', base(), LABELS)), ['h2', 'h3']);
  assert.equal(r.board.heldOf('graph', DOMAIN), []);
  r.domains.stop();
});

test('after a restart the domain HyperNode in the cache keeps a Node whose clique is missing; without nvlink no memory is kept', () => {
  const first = rig(HOSTS.map((h) => node(h)));
  const tree = first.domains.place('lab', base(), LABELS) as HyperNode[];
  const board = new LabelHoldBoard(() => {});
  const r = rig([node('h1', false), node('h2'), node('h3')], tree, board);
  assert.equal(domainMembers(r.domains.place('lab', base(), LABELS)), HOSTS);
  assert.equal(
    board.heldOf('graph', DOMAIN).map((h) => h.node),
    ['h1'],
  );
  assert.is(board.stateOf('graph'), 'reporting');
  const off = new NvlinkDomains(undefined, {
    nodes: r.nodes,
    hyperNodes: new FakeInformer<HyperNode>(),
    problems: new RecordingProblems(nullLogger),
    logger: nullLogger,
    clock: r.clock,
    source: 'graph',
    labelHolds: board,
    onExpiry() {},
  });
  off.place('lab', base(), LABELS);
  assert.is(board.stateOf('graph'), 'off', 'TopologyLabelsPresent is removed from its HyperNodes');
});

test('placing the tier is sliced work: each step recalls one Node or places one HyperNode or domain, and the tree is the whole placement', () => {
  const sliced = rig(HOSTS.map((h) => node(h)));
  const whole = rig(HOSTS.map((h) => node(h)));
  const work = sliced.domains.placeSteps('lab', base(), LABELS);
  let steps = 0;
  let step = work.next();
  for (; !step.done; step = work.next()) steps++;
  const tree = whole.domains.place('lab', base(), LABELS);
  assert.equal(step.value, tree, 'the same tree as placed whole');
  // A step per Node recalled, per HyperNode of the fabric (read, then raised) and per domain.
  assert.is(steps, HOSTS.length + 2 * base().length + 1);
});

test.run();
