// The label decisions, pure: desired labels from a snapshot (one per tier,
// values naming the HyperNode, valid and stable however long the name), the
// exact patches against the Nodes (none when they already match), removal of
// only the keys the ownership annotation lists, sources off or unknown, the
// guard, labels a live Topology object names kept whatever the snapshot
// says, and the `exports` validation.

import { isLabelValue } from '../../../../src/kube/name-validation.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildWithTierName } from '../../../../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { parseExports } from '../../../../src/hypernode/config/exports-config.ts';
import {
  nodeLabelChanges,
  type NodeLabelPatch,
  type SourceLabelState,
} from '../../../../src/hypernode/exports/node-labels/node-label-changes.ts';
import { desiredNodeLabels, domainValue } from '../../../../src/hypernode/exports/node-labels/node-label-values.ts';
import { mergePatch } from '../../../../testing/apiserver/patch.ts';

const P = 'topo.example.com';
const OWNED = 'topology.volcano.sh/owned-labels.label';
const hn = (
  name: string,
  tier: number,
  tierName: string,
  type: 'Node' | 'HyperNode',
  members: string[],
): DiscoveredHyperNode =>
  buildWithTierName(
    name,
    tier,
    tierName,
    members.map((m) => ({ type, selector: { exactMatch: { name: m } } })),
    {},
  );
const node = (name: string, labels: Record<string, string> = {}, annotations?: Record<string, string>): NodeMeta => ({
  metadata: { name, labels, ...(annotations ? { annotations } : {}) },
});

// rack-a: n1 n2; rack-b: n3; both under zone-x; n4 is in no HyperNode.
const SNAPSHOT = [
  hn('rack-a', 1, 'example.com/rack', 'Node', ['n1', 'n2']),
  hn('rack-b', 1, 'example.com/rack', 'Node', ['n3', 'gone']),
  hn('zone-x', 2, 'zone', 'HyperNode', ['rack-a', 'rack-b']),
];
const NODES = [node('n1'), node('n2', { [`${P}/owner`]: 'ops' }), node('n3'), node('n4')];

/** The Nodes after the patches, as the API server's merge patch would leave them. */
function apply(nodes: NodeMeta[], patches: NodeLabelPatch[]): NodeMeta[] {
  const merge = (cur: Record<string, string> | undefined, ch: Readonly<Record<string, string | null>>) =>
    mergePatch(cur, ch) as Record<string, string>;
  return nodes.map((n) => {
    const p = patches.find((x) => x.node === n.metadata.name);
    return p
      ? {
          metadata: {
            name: n.metadata.name,
            labels: merge(n.metadata.labels, p.labels),
            annotations: merge(n.metadata.annotations, p.annotations),
          },
        }
      : n;
  });
}

const desired = (snapshot = SNAPSHOT, nodes = NODES, maxDeletePercent = 50): Map<string, SourceLabelState> =>
  new Map([['label', { kind: 'desired', labels: desiredNodeLabels(P, snapshot, nodes), maxDeletePercent }]]);

test('one label per tier for every Node of the snapshot, named after the tier, valued after the HyperNode', () => {
  const labels = desiredNodeLabels(P, SNAPSHOT, NODES);
  assert.equal(Object.fromEntries([...labels].map(([n, l]) => [n, Object.fromEntries(l)])), {
    n1: { [`${P}/rack`]: 'rack-a', [`${P}/zone`]: 'zone-x' },
    n2: { [`${P}/rack`]: 'rack-a', [`${P}/zone`]: 'zone-x' },
    n3: { [`${P}/rack`]: 'rack-b', [`${P}/zone`]: 'zone-x' },
  });
  // A tier without a usable name is tier<N>.
  assert.equal(
    [
      ...desiredNodeLabels(P, [hn('r', 3, '', 'Node', ['n1'])], NODES)
        .get('n1')!
        .keys(),
    ],
    [`${P}/tier3`],
  );
});

test('a HyperNode name too long for a label value gives a valid value that is stable and tells names apart', () => {
  const long = `${'a'.repeat(70)}.example`;
  const v = domainValue(long);
  assert.ok(isLabelValue(v) && v.length <= 63, v);
  assert.is(domainValue(long), v);
  assert.is.not(domainValue(`${long}2`), v);
  assert.is(domainValue('short-name'), 'short-name');
});

test('the first round sets the labels and the ownership record; a second round against the result writes nothing', () => {
  const first = nodeLabelChanges(NODES, desired());
  assert.equal(first.patches, [
    {
      node: 'n1',
      labels: { [`${P}/rack`]: 'rack-a', [`${P}/zone`]: 'zone-x' },
      annotations: { [OWNED]: `${P}/rack,${P}/zone` },
    },
    {
      node: 'n2',
      labels: { [`${P}/rack`]: 'rack-a', [`${P}/zone`]: 'zone-x' },
      annotations: { [OWNED]: `${P}/rack,${P}/zone` },
    },
    {
      node: 'n3',
      labels: { [`${P}/rack`]: 'rack-b', [`${P}/zone`]: 'zone-x' },
      annotations: { [OWNED]: `${P}/rack,${P}/zone` },
    },
  ]);
  assert.equal(first.counts.get('label'), { set: 6, removed: 0, held: 0 });
  const after = apply(NODES, first.patches);
  assert.equal(nodeLabelChanges(after, desired(SNAPSHOT, after)).patches, []);
});

test('a Node leaving the topology loses only the keys we recorded; a foreign label under the prefix stays', () => {
  const labelled = apply(NODES, nodeLabelChanges(NODES, desired()).patches);
  const without = [hn('rack-a', 1, 'example.com/rack', 'Node', ['n1']), SNAPSHOT[1]!, SNAPSHOT[2]!];
  const { patches } = nodeLabelChanges(labelled, desired(without, labelled));
  assert.equal(patches, [
    { node: 'n2', labels: { [`${P}/rack`]: null, [`${P}/zone`]: null }, annotations: { [OWNED]: null } },
  ]);
  assert.is(apply(labelled, patches).find((n) => n.metadata.name === 'n2')!.metadata.labels![`${P}/owner`], 'ops');
});

test('a source turned off loses every label it wrote; a source with no state keeps them', () => {
  const labelled = apply(NODES, nodeLabelChanges(NODES, desired()).patches);
  const off = nodeLabelChanges(labelled, new Map([['label', { kind: 'off' }]]));
  assert.is(off.patches.length, 3);
  assert.ok(
    off.patches.every((p) => Object.values(p.labels).every((v) => v === null) && p.annotations[OWNED] === null),
  );
  assert.equal(nodeLabelChanges(labelled, new Map()).patches, []);
});

test('removals from more than maxDeletePercent of the labelled Nodes (and at least 10) are held; fewer go through', () => {
  const many = Array.from({ length: 20 }, (_, i) => node(`m${i}`));
  const all = [
    hn(
      'big',
      1,
      'rack',
      'Node',
      many.map((n) => n.metadata.name),
    ),
  ];
  const labelled = apply(many, nodeLabelChanges(many, desired(all, many)).patches);
  const eleven = [
    hn(
      'big',
      1,
      'rack',
      'Node',
      many.slice(11).map((n) => n.metadata.name),
    ),
  ];
  const held = nodeLabelChanges(labelled, desired(eleven, labelled));
  assert.equal(held.patches, []);
  assert.equal(held.held, [{ source: 'label', labelled: 20, leaving: 11, maxDeletePercent: 50 }]);
  assert.equal(held.counts.get('label'), { set: 0, removed: 0, held: 11 });
  assert.is(nodeLabelChanges(labelled, desired(eleven, labelled, 60)).patches.length, 11);
});

test('exports is validated naming the field; the prefix defaults per source', () => {
  assert.equal(parseExports(undefined, 'label'), {});
  assert.equal(parseExports({ nodeLabels: {} }, 'ufm'), { nodeLabels: { prefix: 'ufm.topology.volcano.sh' } });
  assert.equal(parseExports({ nodeLabels: { prefix: P } }, 'label'), { nodeLabels: { prefix: P } });
  assert.throws(
    () => parseExports({ nodeLabel: {} }, 'label'),
    /exports has unknown keys "nodeLabel"; known: nodeLabels/,
  );
  assert.throws(
    () => parseExports({ nodeLabels: { prefix: 'Bad_Prefix' } }, 'label'),
    /exports\.nodeLabels\.prefix "Bad_Prefix" is not a DNS subdomain/,
  );
  assert.throws(() => parseExports({ nodeLabels: 'yes' }, 'label'), /exports\.nodeLabels must be a mapping/);
  // The Topology exports: booleans, and only beside nodeLabels (their levels are the label keys).
  assert.equal(parseExports({ nodeLabels: {}, kueueTopology: true, kaiTopology: false }, 'ufm'), {
    nodeLabels: { prefix: 'ufm.topology.volcano.sh' },
    kueueTopology: true,
  });
  assert.throws(
    () => parseExports({ kaiTopology: true }, 'ufm'),
    /exports\.kaiTopology needs exports\.nodeLabels: its levels are the Node label keys/,
  );
  assert.throws(
    () => parseExports({ nodeLabels: {}, kueueTopology: 'yes' }, 'ufm'),
    /exports\.kueueTopology must be true or false, got "yes"/,
  );
});

test('a label a live Topology of ours names is kept (and stays owned) when its level goes; others go; unknown Topologies keep all', () => {
  const labelled = apply(NODES, nodeLabelChanges(NODES, desired()).patches);
  // The zone level is dropped from the snapshot: only racks are left.
  const racksOnly = desired(SNAPSHOT.slice(0, 2), labelled);
  const unguarded = nodeLabelChanges(labelled, racksOnly);
  assert.equal(
    unguarded.patches.map((p) => [p.node, p.labels]),
    [
      ['n1', { [`${P}/zone`]: null }],
      ['n2', { [`${P}/zone`]: null }],
      ['n3', { [`${P}/zone`]: null }],
    ],
  );
  const held = nodeLabelChanges(labelled, racksOnly, new Map([['label', new Set([`${P}/zone`])]]));
  assert.equal(
    held.patches,
    [],
    'the zone label stays while a Topology of ours names it, and the record still lists it',
  );
  assert.equal(
    nodeLabelChanges(labelled, racksOnly, 'all').patches,
    [],
    'nothing is removed while the Topology objects are unknown',
  );
  const n3Left = desired(SNAPSHOT.slice(0, 1), labelled);
  assert.equal(
    nodeLabelChanges(labelled, n3Left, new Map([['label', new Set([`${P}/zone`])]])).patches.map((p) => [
      p.node,
      p.labels,
    ]),
    [['n3', { [`${P}/rack`]: null, [`${P}/zone`]: null }]],
    'a Node that left the topology loses every label, kept ones too; the others keep the zone label',
  );
  assert.equal(
    nodeLabelChanges(
      labelled,
      new Map([['label', { kind: 'off' }]]),
      new Map([['label', new Set([`${P}/zone`])]]),
    ).patches.map((p) => [p.node, p.labels, p.annotations]),
    [
      ['n1', { [`${P}/rack`]: null }, { [OWNED]: `${P}/zone` }],
      ['n2', { [`${P}/rack`]: null }, { [OWNED]: `${P}/zone` }],
      ['n3', { [`${P}/rack`]: null }, { [OWNED]: `${P}/zone` }],
    ],
    'an export turned off keeps the label a held Topology names until it is gone',
  );
});

test.run();
