// What one pass decides for a kind (topology-object-decisions.ts) against
// what the API server serves and publishes: the newest version at which
// `topologies` are served in the shape written (discovery asked per resource:
// Kueue 0.9 to 0.13 serve Topology only at v1alpha1; Kueue 0.11.0 to 0.11.2's
// v1beta1 Topology has another shape and is passed over), its level limit
// from the published schema's maxItems (16 at Kueue 0.13's v1alpha1, 0.14's
// v1beta1, v1beta2 and KAI; 8 at 0.12's v1alpha1) or, with no schema to
// read, from the version (8 at v1alpha1, 16 at v1beta1); aliases only where
// the schema has them; and which changes wait: a create or replace until the
// Nodes carry the labels, everything of a source whose latest snapshot was
// rejected, the delete of a running source's objects before its first
// snapshot; never the delete of a source turned off entirely.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../../src/hypernode/config/loader.ts';
import { buildWithTierName } from '../../../../src/hypernode/model/hypernode-builders.ts';
import type { TopologyObject, TopologyObjectClient } from '../../../../src/hypernode/model/contracts.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { decideTopologyObjects } from '../../../../src/hypernode/exports/topology-objects/topology-object-decisions.ts';
import {
  TOPOLOGY_KINDS,
  topologyObject,
} from '../../../../src/hypernode/exports/topology-objects/topology-object-specs.ts';
import { waitMessage } from '../../../../src/hypernode/exports/topology-objects/topology-object-messages.ts';

const P = 'topo.example.com';
const HOST = 'kubernetes.io/hostname';
const [KUEUE, KAI] = TOPOLOGY_KINDS as [(typeof TOPOLOGY_KINDS)[number], (typeof TOPOLOGY_KINDS)[number]];
const entry = (exports: string, enabled = true) =>
  `networkTopologyDiscovery:\n  - source: label\n    enabled: ${enabled}\n    exports:\n      nodeLabels: {prefix: ${P}}\n${exports}    config:\n      networkTopologyTypes:\n        t:\n          - nodeLabel: a\n`;
const CONFIG = parseConfig(entry('      kueueTopology: true\n      kaiTopology: true\n'));

/** A chain of `depth` tiers (tierNames l0, l1, …) over Nodes n0 and n1. */
function chain(depth: number): DiscoveredHyperNode[] {
  return Array.from({ length: depth }, (_, i) =>
    buildWithTierName(
      `t${i}`,
      i + 1,
      `l${i}`,
      i === 0
        ? ['n0', 'n1'].map((name) => ({ type: 'Node' as const, selector: { exactMatch: { name } } }))
        : [{ type: 'HyperNode' as const, selector: { exactMatch: { name: `t${i - 1}` } } }],
      {},
    ),
  );
}

/** A Topology schema as /openapi/v3 publishes it: spec.levels with maxItems, and an alias per level where asked. */
function schema(maxItems: number, alias = false) {
  const label = { type: 'string', maxLength: 316 };
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          levels: {
            type: 'array',
            maxItems,
            items: { type: 'object', properties: { nodeLabel: label, ...(alias ? { alias: label } : {}) } },
          },
        },
      },
    },
  };
}
/** Kueue 0.11.0 to 0.11.2's `v1beta1` Topology: levels as strings at the top, no spec. */
const MISSHAPEN = {
  type: 'object',
  properties: { levels: { type: 'array', maxItems: 8, items: { type: 'string' } }, name: { type: 'string' } },
};

/**
 * A server serving `topologies` of each group at the given versions, publishing `schemas` by group/version; records
 * what it is asked.
 */
function server(
  served: Record<string, string[]>,
  schemas: Record<string, unknown> = {},
  objects: TopologyObject[] = [],
) {
  const asked: string[] = [];
  const client: Pick<TopologyObjectClient, 'servedVersions' | 'servedSchema' | 'list'> = {
    async servedVersions(group, resource) {
      asked.push(`${group} ${resource}`);
      return served[group] ?? [];
    },
    servedSchema: async (group, version) => schemas[`${group}/${version}`],
    list: async (group) => objects.filter((o) => o.apiVersion.startsWith(`${group}/`)),
  };
  return { client, asked };
}

const nodes = (labels: Record<string, string> = {}): NodeMeta[] =>
  ['n0', 'n1'].map((name) => ({ metadata: { name, labels } }));
const labelled = nodes(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`${P}/l${i}`, `t${i}`])));
const TWELVE = new Map([['label', chain(11)]]);

test('the newest version serving topologies in the shape written, with the limit its published schema says', async () => {
  const K = 'kueue.x-k8s.io';
  const cases: Array<[string, string[], Record<string, unknown>, string, number, number]> = [
    [
      'current (v1beta1 + v1beta2)',
      ['v1beta2', 'v1beta1'],
      { [`${K}/v1beta2`]: schema(16), [`${K}/v1beta1`]: schema(16) },
      'v1beta2',
      16,
      0,
    ],
    ['0.14 (v1beta1 only)', ['v1beta1'], { [`${K}/v1beta1`]: schema(16) }, 'v1beta1', 16, 0],
    ['0.13 (v1alpha1 taking 16)', ['v1alpha1'], { [`${K}/v1alpha1`]: schema(16) }, 'v1alpha1', 16, 0],
    ['0.12 (v1alpha1 taking 8)', ['v1alpha1'], { [`${K}/v1alpha1`]: schema(8) }, 'v1alpha1', 8, 1],
    [
      '0.11.2 (a misshapen v1beta1 beside v1alpha1)',
      ['v1beta1', 'v1alpha1'],
      { [`${K}/v1beta1`]: MISSHAPEN, [`${K}/v1alpha1`]: schema(8) },
      'v1alpha1',
      8,
      1,
    ],
    ['no schema to read, v1beta1', ['v1beta1'], {}, 'v1beta1', 16, 0],
    ['no schema to read, v1alpha1', ['v1alpha1'], {}, 'v1alpha1', 8, 1],
  ];
  for (const [what, versions, schemas, want, max, refused] of cases) {
    const { client, asked } = server({ [K]: versions }, schemas);
    const d = await decideTopologyObjects(KUEUE, CONFIG, TWELVE, client, labelled);
    assert.ok(d.served, what);
    if (!d.served) continue;
    assert.is(d.version, want, what);
    assert.is(d.maxLevels, max, what);
    assert.is(d.schemaRead, Object.keys(schemas).length > 0, what);
    assert.is(d.sources[0]!.errors.length, refused, `${what}: 12 levels ${refused ? 'refused' : 'written'}`);
    assert.is(d.sources[0]!.changes.length, 1 - refused, what);
    assert.equal(asked, [`${K} topologies`], 'discovery is asked about the resource, not the group');
  }
  const none = await decideTopologyObjects(KUEUE, CONFIG, TWELVE, server({}).client, labelled);
  assert.equal(none, {
    served: false,
    wanted: true,
    message:
      'The Kueue Topology CRD (kueue.x-k8s.io, versions v1beta2, v1beta1, v1alpha1) is not served; no Kueue Topology is written until it is',
  });
});

test('KAI levels carry their tierName as alias where the served schema has the field (the hostname none), and none where it does not', async () => {
  const snapshots = new Map([['label', chain(2)]]);
  const with17 = await decideTopologyObjects(
    KAI,
    CONFIG,
    snapshots,
    server({ 'kai.scheduler': ['v1alpha1'] }, { 'kai.scheduler/v1alpha1': schema(16, true) }).client,
    labelled,
  );
  assert.ok(with17.served);
  if (!with17.served) return;
  assert.equal(with17.sources[0]!.changes[0]!.levels, [
    { nodeLabel: `${P}/l1`, alias: 'l1' },
    { nodeLabel: `${P}/l0`, alias: 'l0' },
    { nodeLabel: HOST },
  ]);
  const with16 = await decideTopologyObjects(
    KAI,
    CONFIG,
    snapshots,
    server({ 'kai.scheduler': ['v1alpha1'] }, { 'kai.scheduler/v1alpha1': schema(16) }).client,
    labelled,
  );
  assert.ok(with16.served && with16.sources[0]!.changes[0]!.levels!.every((l) => l.alias === undefined));

  // An object written before the alias existed gets its aliases in place, not a replace.
  const old = {
    ...topologyObject(KAI, 'v1alpha1', 'label', 'hypernode-label', [
      { nodeLabel: `${P}/l1` },
      { nodeLabel: `${P}/l0` },
      { nodeLabel: HOST },
    ]),
  };
  const upgraded = await decideTopologyObjects(
    KAI,
    CONFIG,
    snapshots,
    server({ 'kai.scheduler': ['v1alpha1'] }, { 'kai.scheduler/v1alpha1': schema(16, true) }, [
      { ...old, metadata: { ...old.metadata, resourceVersion: '7' } },
    ]).client,
    labelled,
  );
  assert.ok(upgraded.served);
  if (!upgraded.served) return;
  assert.equal(
    upgraded.sources[0]!.changes.map((c) => [c.action, c.resourceVersion, c.levels?.map((l) => l.alias ?? '-').join()]),
    [['update', '7', 'l1,l0,-']],
  );
});

test('a create or a replace waits while Nodes lack the labels its levels name; the replaced object stays', async () => {
  const schemas = { 'kueue.x-k8s.io/v1beta2': schema(16) };
  const snapshots = new Map([['label', chain(2)]]);
  const create = await decideTopologyObjects(
    KUEUE,
    CONFIG,
    snapshots,
    server({ 'kueue.x-k8s.io': ['v1beta2'] }, schemas).client,
    nodes({ [`${P}/l0`]: 't0' }),
  );
  assert.ok(create.served);
  if (!create.served) return;
  assert.is(create.sources[0]!.labelsPending, 2);
  assert.equal(create.sources[0]!.changes[0]!.waits, { cause: 'labels', nodes: 2 });

  const one = topologyObject(KUEUE, 'v1beta2', 'label', 'hypernode-label', [
    { nodeLabel: `${P}/l0` },
    { nodeLabel: HOST },
  ]);
  const ours = [{ ...one, metadata: { ...one.metadata, uid: 'u1' } }];
  const replace = await decideTopologyObjects(
    KUEUE,
    CONFIG,
    snapshots,
    server({ 'kueue.x-k8s.io': ['v1beta2'] }, schemas, ours).client,
    nodes({ [`${P}/l0`]: 't0' }),
  );
  assert.ok(replace.served);
  if (!replace.served) return;
  assert.equal(
    replace.sources[0]!.changes.map((c) => [c.action, c.waits]),
    [['replace', { cause: 'labels', nodes: 2 }]],
    'the new level l1 is on no Node yet: the old object is not deleted',
  );
  const ready = await decideTopologyObjects(
    KUEUE,
    CONFIG,
    snapshots,
    server({ 'kueue.x-k8s.io': ['v1beta2'] }, schemas, ours).client,
    labelled,
  );
  assert.ok(
    ready.served &&
      ready.sources[0]!.changes[0]!.action === 'replace' &&
      ready.sources[0]!.changes[0]!.waits === undefined,
    'labelled: replaced at once',
  );
});

test("nothing of a source changes while its latest snapshot is rejected, nor a running source's delete before its first snapshot; a source turned off entirely is deleted", async () => {
  const schemas = { 'kueue.x-k8s.io/v1beta2': schema(16) };
  const one = topologyObject(KUEUE, 'v1beta2', 'label', 'hypernode-label', [
    { nodeLabel: `${P}/l0` },
    { nodeLabel: HOST },
  ]);
  const ours = [{ ...one, metadata: { ...one.metadata, uid: 'u1' } }];
  const client = server({ 'kueue.x-k8s.io': ['v1beta2'] }, schemas, ours).client;
  const snapshots = new Map([['label', chain(2)]]);
  const rejected = { rejected: new Map([['label', 'cycle: HyperNodes form a cycle: a → b → a\ntier-order: …']]) };
  const waits = async (config: ReturnType<typeof parseConfig>, snaps: typeof snapshots, outcomes = rejected) => {
    const d = await decideTopologyObjects(KUEUE, config, snaps, client, labelled, outcomes);
    assert.ok(d.served);
    return d.served ? d.sources[0]!.changes.map((c) => [c.action, c.waits?.cause]) : [];
  };
  assert.equal(
    await waits(CONFIG, snapshots),
    [['replace', 'rejected']],
    'a replace waits while the snapshot is rejected',
  );
  const exportOff = parseConfig(entry(''));
  assert.equal(
    await waits(exportOff, snapshots),
    [['delete', 'rejected']],
    'the export turned off while rejected: the delete waits',
  );
  assert.equal(
    await waits(exportOff, new Map(), { rejected: new Map() }),
    [['delete', 'no-snapshot']],
    'before the running source says anything: the delete waits',
  );
  const before = await decideTopologyObjects(KUEUE, exportOff, new Map(), client, labelled, { rejected: new Map() });
  assert.ok(before.served);
  if (!before.served) return;
  const change = before.sources[0]!.changes[0]!;
  assert.is(
    waitMessage(KUEUE, 'label', change, change.waits!),
    `Kueue Topology hypernode-label of discovery source "label" is not deleted before discovery source "label", which still runs, produces a snapshot that is accepted; until then it stays with its levels ${P}/l0,${HOST}`,
  );
  assert.equal(
    await waits(exportOff, snapshots, { rejected: new Map() }),
    [['delete', undefined]],
    'an accepted snapshot: deleted',
  );
  assert.equal(
    await waits(parseConfig(entry('      kueueTopology: true\n', false)), new Map()),
    [['delete', undefined]],
    'the entry disabled: its objects go',
  );
});

test.run();
