// The HTML view's data and page without a browser: the model lists children
// by index and the Nodes regex and label members select, keeps a plan's
// deleted objects in place marked delete or held, and carries the diff; the
// page cannot be broken out of by a crafted label value; nodeMemberships
// explains regexMatch and labelMatch members and hand-made HyperNodes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode, MemberSpec, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { diffHyperNodes } from '../../../../src/hypernode/reconcile/hypernode-diff.ts';
import { planDrawing, type Plan } from '../../../../src/hypernode/preview/cluster-plan.ts';
import { nodeMemberships } from '../../../../src/hypernode/exports/view/node-membership.ts';
import { topologyHtml } from '../../../../src/hypernode/exports/view/topology-html.ts';
import { planView, topologyView } from '../../../../src/hypernode/exports/view/topology-model.ts';
import { viewData } from '../../../../testing/view-page.ts';

const SOURCE = 'volcano.sh/network-topology-source';
const node = (name: string, labels: Record<string, string> = {}): NodeMeta => ({ metadata: { name, labels } });
const exact = (type: 'Node' | 'HyperNode', name: string): MemberSpec => ({ type, selector: { exactMatch: { name } } });
const hn = (
  name: string,
  tier: number,
  members: MemberSpec[],
  labels: Record<string, string> = {},
  tierName?: string,
): HyperNode => ({
  apiVersion: 'topology.volcano.sh/v1alpha1',
  kind: 'HyperNode',
  metadata: { name, labels },
  spec: { tier, members, ...(tierName ? { tierName } : {}) },
});

const NODES = [node('gpu-1', { rack: 'r1' }), node('gpu-2', { rack: 'r1' }), node('cpu-1', { rack: 'r2' })];

test('the model indexes children and resolves exact, regex and label members against the Nodes', () => {
  const view = topologyView(
    't',
    [
      hn('spine', 2, [
        exact('HyperNode', 'rack-regex'),
        exact('HyperNode', 'rack-labels'),
        exact('HyperNode', 'missing'),
      ]),
      hn('rack-regex', 1, [{ type: 'Node', selector: { regexMatch: { pattern: '^gpu-' } } }]),
      hn(
        'rack-labels',
        1,
        [{ type: 'Node', selector: { labelMatch: { matchLabels: { rack: 'r2' } } } }, exact('Node', 'not-a-node-yet')],
        { [SOURCE]: 'label', 'volcano.sh/network-topology-profile': 'p1' },
        'rack',
      ),
    ],
    NODES,
  );
  const byName = new Map(view.hyperNodes.map((h, i) => [h.name, { ...h, i }]));
  assert.equal(
    view.hyperNodes.map((h) => h.name),
    ['rack-labels', 'rack-regex', 'spine'],
  );
  assert.equal(
    byName.get('spine')!.children,
    [byName.get('rack-labels')!.i, byName.get('rack-regex')!.i],
    'a member that is no HyperNode is left out',
  );
  assert.equal(byName.get('rack-regex')!.nodes, ['gpu-1', 'gpu-2']);
  assert.equal(
    byName.get('rack-labels')!.nodes,
    ['cpu-1', 'not-a-node-yet'],
    'exact names count without a Node, as nodeCount does',
  );
  assert.equal(
    [byName.get('rack-labels')!.source, byName.get('rack-labels')!.profile, byName.get('rack-labels')!.tierName],
    ['label', 'p1', 'rack'],
  );
  assert.is(view.plan, false);
});

test('an LLDP fabric is named like a UFM one: the view carries it and why gives it as the reason', () => {
  const leaf = hn(
    'roce-leaf-02aa00030001',
    1,
    [exact('Node', 'gpu-1')],
    { [SOURCE]: 'lldp', 'volcano.sh/lldp-fabric': 'roce' },
    'leaf',
  );
  const [viewed] = topologyView('t', [leaf], NODES).hyperNodes;
  assert.equal([viewed!.source, viewed!.fabric], ['lldp', 'roce']);
  assert.equal(nodeMemberships(NODES[0]!, [leaf]), [
    {
      hyperNode: 'roce-leaf-02aa00030001',
      tier: 1,
      tierName: 'leaf',
      source: 'lldp',
      reasons: [
        'member by name (exactMatch gpu-1)',
        "LLDP fabric roce: the Node's host ports link to the switches of this group",
      ],
    },
  ]);
});

test('a plan view keeps deleted objects in place, marks each change and carries its diff', () => {
  const existing = [
    hn('spine', 2, [exact('HyperNode', 'a'), exact('HyperNode', 'b'), exact('HyperNode', 'c')]),
    hn('a', 1, [exact('Node', 'gpu-1')]),
    hn('b', 1, [exact('Node', 'gpu-2')]),
    hn('c', 1, [exact('Node', 'cpu-1')]),
  ];
  const aAfter = hn('a', 1, [exact('Node', 'gpu-1'), exact('Node', 'gpu-2')]);
  const d = hn('d', 1, [exact('Node', 'cpu-2')]);
  const plan: Plan = {
    changes: [
      { action: 'create', source: 'label', name: 'd', diff: diffHyperNodes(undefined, d), object: d },
      { action: 'update', source: 'label', name: 'a', diff: diffHyperNodes(existing[1], aAfter), object: aAfter },
      { action: 'delete', source: 'label', name: 'b', diff: diffHyperNodes(existing[2], undefined) },
      { action: 'delete', source: 'label', name: 'c', diff: diffHyperNodes(existing[3], undefined), held: true },
    ],
    warnings: ['held'],
    nodeLabels: [],
    nodeLabelsHeld: 0,
    nodeLabelsOff: [],
    topologies: [],
    labelHolds: [],
    taints: [],
  };
  const view = planView('p', planDrawing(plan), existing, NODES);
  assert.equal(
    view.hyperNodes.map((h) => [h.name, h.change ?? '']),
    [
      ['a', 'update'],
      ['b', 'delete'],
      ['c', 'held'],
      ['d', 'create'],
      ['spine', ''],
    ],
  );
  assert.equal(view.hyperNodes[0]!.diff, ['members: +gpu-2']);
  assert.equal(view.hyperNodes[0]!.nodes, ['gpu-1', 'gpu-2'], 'an update shows the object as it will be');
  assert.equal([view.plan, view.notes], [true, ['held']]);
});

test("a label value cannot end the page's script or inject markup", () => {
  const evil = '</script><script>alert(1)</script><!--';
  const page = topologyHtml(
    topologyView('<b>title</b>', [hn('x', 1, [exact('Node', 'n')], { k: evil }, evil)], [node('n')]),
  );
  assert.is(page.match(/<script/g)!.length, 2, 'the data script and the view script, nothing more');
  assert.ok(page.includes('<title>&lt;b&gt;title&lt;/b&gt;</title>'));
  assert.is(viewData(page).hyperNodes[0]!.tierName, evil, 'the value survives, escaped');
  assert.match(page, /Content-Security-Policy" content="default-src 'none';/);
});

test('why: regexMatch and labelMatch members, and a hand-made HyperNode without a source', () => {
  const hyperNodes = [
    hn('by-regex', 1, [{ type: 'Node', selector: { regexMatch: { pattern: '^gpu-' } } }], {
      [SOURCE]: 'label',
      rack: 'r1',
    }),
    hn('by-labels', 1, [{ type: 'Node', selector: { labelMatch: { matchLabels: { rack: 'r1' } } } }]),
    hn('top', 2, [exact('HyperNode', 'by-labels')]),
    hn('elsewhere', 1, [exact('Node', 'cpu-1')]),
  ];
  assert.equal(nodeMemberships(NODES[0]!, hyperNodes), [
    { hyperNode: 'by-labels', tier: 1, reasons: ['its labels match labelMatch {"matchLabels":{"rack":"r1"}}'] },
    {
      hyperNode: 'by-regex',
      tier: 1,
      source: 'label',
      reasons: ['its name matches regexMatch "^gpu-"', "label rack=r1 (the Node's value)"],
    },
    { hyperNode: 'top', tier: 2, through: 'by-labels', reasons: [] },
  ]);
  assert.equal(nodeMemberships(node('nowhere'), hyperNodes), []);
});

test.run();
