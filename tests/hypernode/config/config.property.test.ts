// Property tests of the discovery configuration: documents built from a valid
// configuration, then broken at one random place (a misspelled key at any
// level, a null, a wrong type, deep nesting, a huge string, a deleted key),
// plus empty and arbitrary documents. Loading never throws anything but a
// clear document error, a label source that cannot be used refuses to start
// (so it publishes no snapshot and deletes nothing), and a valid
// configuration yields exactly the tiers it describes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { stringify as stringifyYaml } from 'yaml';
import { enabledSources, entryOf, parseConfig, sourceEntry } from '../../../src/hypernode/config/loader.ts';
import { labelDiscovererFactory } from '../../../src/hypernode/discovery/label/label-discoverer.ts';
import { discoverSnapshot } from '../../../src/hypernode/discovery/label/label-grouping.ts';
import { topologyTypes } from '../../../src/hypernode/discovery/label/label-config.ts';
import { createUfmDiscovererFactory } from '../../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import type { DiscovererOptions } from '../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../src/log.ts';
import { FakeInformer } from '../../support/fake-informer.ts';
import { propertyParameters } from '../../support/property.ts';
import { RecordingProblems } from '../../support/recording-problems.ts';
import { FakeClock } from '../../kube/fake-clock.ts';
import { unexpectedWorkerError } from '../../support/worker-errors.ts';

/** As the controller reads it: YAML 1.1, where a bare `n` or `on` is a boolean, so such strings must be quoted. */
const toYaml = (doc: unknown) => stringifyYaml(doc, { version: '1.1' });

const LABEL_KEYS = [
  'volcano.sh/hypernode',
  'volcano.sh/hypercluster',
  'example.com/rack',
  'topology.kubernetes.io/zone',
  'kubernetes.io/hostname',
];

const typeName = fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/);
/** A valid networkTopologyTypes: 1–3 types of 2–4 distinct labels (tiers, then the hostname label). */
const validTypes = fc.dictionary(
  typeName,
  fc.uniqueArray(fc.constantFrom(...LABEL_KEYS), { minLength: 2, maxLength: 4 }),
  { minKeys: 1, maxKeys: 3 },
);

const labelEntry = (types: Record<string, string[]>) => ({
  source: 'label',
  enabled: true,
  config: {
    networkTopologyTypes: Object.fromEntries(
      Object.entries(types).map(([name, labels]) => [name, labels.map((nodeLabel) => ({ nodeLabel }))]),
    ),
  },
});
const UFM_ENTRY = {
  source: 'ufm',
  enabled: true,
  interval: '10m',
  credentials: { secretRef: { name: 'ufm-credentials', namespace: 'volcano-system' } },
  config: { endpoint: 'https://ufm.example.com', insecureSkipVerify: false },
};
const validDocument = validTypes.map((types) => ({
  networkTopologyDiscovery: [labelEntry(types), structuredClone(UFM_ENTRY)],
}));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

/** Every path to a value in `doc`, the root excluded. */
function paths(doc: Json, at: Path = []): Path[] {
  if (doc === null || typeof doc !== 'object') return [];
  const keys: (string | number)[] = Array.isArray(doc) ? doc.map((_, i) => i) : Object.keys(doc);
  return keys.flatMap((k) => [[...at, k], ...paths((doc as Record<string | number, Json>)[k]!, [...at, k])]);
}

const misspell = fc.oneof(
  fc.constant((k: string) => k.slice(0, -1)), // a dropped letter
  fc.constant((k: string) => `${k}s`), // an extra letter
  fc.constant((k: string) => k.replace(/[aeiou]/, '')), // a dropped vowel
  fc.constant((k: string) => k.replace(/(.)(.)/, '$2$1')), // swapped letters
  fc.constant((k: string) => ` ${k}`), // a stray space
);
const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 20 }),
  fc.constant<Json>([]),
  fc.constant<Json>({}),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
);
const deep = (depth: number, leaf: Json): Json =>
  Array.from({ length: depth }).reduce<Json>((inner, _, i) => (i % 2 ? [inner] : { nested: inner }), leaf);

type Mutation =
  | { kind: 'misspell'; f: (k: string) => string }
  | { kind: 'null' | 'delete' }
  | { kind: 'replace'; value: Json }
  | { kind: 'deep'; depth: number }
  | { kind: 'huge'; size: number };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  misspell.map((f) => ({ kind: 'misspell' as const, f })),
  fc.constant({ kind: 'null' as const }),
  fc.constant({ kind: 'delete' as const }),
  wrongValue.map((value) => ({ kind: 'replace' as const, value })),
  fc.integer({ min: 20, max: 200 }).map((depth) => ({ kind: 'deep' as const, depth })),
  fc.integer({ min: 10_000, max: 300_000 }).map((size) => ({ kind: 'huge' as const, size })),
);

/** `doc` with `m` applied at path `p` (a copy). */
function mutate(doc: Json, p: Path, m: Mutation): Json {
  const copy = structuredClone(doc);
  const parent = p.slice(0, -1).reduce<Json>((node, k) => (node as Record<string | number, Json>)[k]!, copy) as Record<
    string | number,
    Json
  >;
  const key = p.at(-1)!;
  const value = parent[key]!;
  switch (m.kind) {
    case 'misspell':
      if (typeof key === 'string' && m.f(key) !== key) {
        const renamed = Object.fromEntries(Object.entries(parent).map(([k, v]) => [k === key ? m.f(key) : k, v]));
        for (const k of Object.keys(parent)) delete parent[k];
        Object.assign(parent, renamed);
      }
      break;
    case 'null':
      parent[key] = null;
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case 'replace':
      parent[key] = m.value;
      break;
    case 'deep':
      parent[key] = deep(m.depth, value);
      break;
    case 'huge':
      parent[key] = 'x'.repeat(m.size);
      break;
  }
  return copy;
}

const brokenDocument = validDocument.chain((doc) =>
  fc.tuple(fc.nat(), mutation).map(([i, m]) => {
    const all = paths(doc as Json);
    return { text: toYaml(mutate(doc as Json, all[i % all.length]!, m)), mutation: m.kind };
  }),
);
/** Documents that are not a configuration at all. */
const oddDocument = fc.oneof(
  fc.constantFrom(
    '',
    '---',
    '~',
    'null',
    '[]',
    '{}',
    'networkTopologyDiscovery:',
    'networkTopologyDiscovery: []',
    '- a\n- b',
    'a: [unclosed',
    '\t\tnot: yaml: at: all',
  ),
  fc.string({ maxLength: 200 }),
  wrongValue.map((v) => toYaml({ networkTopologyDiscovery: v })),
);

function labelledNodes(keys: readonly string[]): NodeMeta[] {
  return Array.from({ length: 4 }, (_, i) => ({
    metadata: { name: `n${i}`, labels: Object.fromEntries(keys.map((k) => [k, `v${i >> 1}`])) },
  }));
}

function options(): DiscovererOptions {
  const existing: HyperNode = {
    metadata: { name: 'hypernode-old-tier1-bbbbb', labels: { 'volcano.sh/network-topology-source': 'label' } },
    spec: { tier: 1 },
  };
  return {
    nodes: new FakeInformer<NodeMeta>({ initial: labelledNodes(LABEL_KEYS) }),
    hyperNodes: new FakeInformer<HyperNode>({ initial: [existing] }),
    secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no Secrets here')) },
    clock: new FakeClock(),
    logger: nullLogger,
    workerErrors: unexpectedWorkerError,
    problems: new RecordingProblems(nullLogger),
  };
}

/**
 * Loading `text` never throws except with a document-level "failed to parse
 * config" error; a broken entry is a per-source error naming its position.
 */
function loadsCleanly(text: string): ReturnType<typeof parseConfig> | undefined {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(text);
  } catch (err) {
    assert.instance(err, Error);
    assert.match((err as Error).message, /^failed to parse config: /);
    return undefined;
  }
  for (const r of config.entries)
    if ('error' in r) assert.match(r.error, new RegExp(`^networkTopologyDiscovery\\[${r.index}\\]`));
  return config;
}

/**
 * The label source of `config` either refuses to start with an error naming
 * networkTopologyTypes (so it publishes nothing and deletes nothing) or has
 * usable types: on Nodes labelled for them, its snapshot is never empty.
 */
async function labelSourceIsSafe(config: ReturnType<typeof parseConfig>): Promise<'refused' | 'runs' | 'absent'> {
  if (!enabledSources(config).includes('label')) return 'absent';
  const entry = entryOf(sourceEntry(config, 'label'));
  if (!entry) return 'refused'; // a broken entry: the manager does not start the source
  const opts = options();
  let types: ReturnType<typeof topologyTypes>;
  try {
    await labelDiscovererFactory(entry, opts);
    types = topologyTypes(entry.config, nullLogger);
  } catch (err) {
    assert.instance(err, Error);
    assert.match((err as Error).message, /networkTopologyTypes/);
    return 'refused';
  }
  assert.ok(types.length > 0);
  for (const t of types)
    assert.ok(t.tiers.length > 0 && t.tiers.every((k) => k !== ''), `type ${t.name} has usable tiers`);
  const tierKeys = [...new Set(types.flatMap((t) => t.tiers))];
  assert.ok(
    discoverSnapshot(labelledNodes(tierKeys), types, opts.hyperNodes).length > 0,
    'Nodes labelled for the configured tiers give HyperNodes',
  );
  return 'runs';
}

test('loading any broken or odd document never throws an unclear error; an unusable label source refuses to start', async () => {
  const outcomes = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        brokenDocument,
        oddDocument.map((text) => ({ text, mutation: 'odd' })),
      ),
      async ({ text, mutation: kind }) => {
        const config = loadsCleanly(text);
        const outcome = config ? await labelSourceIsSafe(config) : 'document refused';
        outcomes.set(`${kind} → ${outcome}`, (outcomes.get(`${kind} → ${outcome}`) ?? 0) + 1);
      },
    ),
    propertyParameters(),
  );
  // The generator reaches both sides of the property, or it proves nothing.
  assert.ok(
    [...outcomes.keys()].some((k) => k.endsWith('→ refused')),
    JSON.stringify([...outcomes]),
  );
  assert.ok(
    [...outcomes.keys()].some((k) => k.endsWith('→ runs')),
    JSON.stringify([...outcomes]),
  );
});

test('a misspelled or deleted networkTopologyTypes, or every nodeLabel misspelled, always refuses the label source', async () => {
  type Kill = (types: Record<string, string[]>) => Record<string, unknown>;
  const killers: fc.Arbitrary<Kill> = fc.oneof(
    misspell.map(
      (f): Kill =>
        (types) => ({ [f('networkTopologyTypes')]: labelEntry(types).config.networkTopologyTypes }),
    ),
    fc.constant<Kill>(() => ({})),
    fc.constant<Kill>(() => ({ networkTopologyTypes: {} })),
    misspell.map(
      (f): Kill =>
        (types) => ({
          networkTopologyTypes: Object.fromEntries(
            Object.entries(types).map(([n, labels]) => [n, labels.map((l) => ({ [f('nodeLabel')]: l }))]),
          ),
        }),
    ),
  );
  await fc.assert(
    fc.asyncProperty(validTypes, killers, async (types, kill) => {
      const config = kill(types);
      const entry = { source: 'label', enabled: true, intervalMs: 3_600_000, maxDeletePercent: 50, config };
      await labelDiscovererFactory(entry, options()).then(
        () => assert.unreachable(`accepted ${JSON.stringify(config)}`),
        (err: Error) => assert.match(err.message, /^Cannot get networkTopologyTypes: /),
      );
    }),
    propertyParameters(),
  );
});

test('a valid configuration yields exactly its tiers: names sorted, labels reversed without the hostname', () => {
  fc.assert(
    fc.property(validTypes, (types) => {
      const config = parseConfig(toYaml({ networkTopologyDiscovery: [labelEntry(types)] }));
      const entry = entryOf(sourceEntry(config, 'label'))!;
      const got = topologyTypes(entry.config, nullLogger).map((t) => [t.name, [...t.tiers]]);
      const want = Object.keys(types)
        .sort()
        .map((name) => [name, types[name]!.slice(0, -1).reverse()]);
      assert.equal(got, want);
    }),
    propertyParameters(),
  );
});

test('the ufm source never throws an unclear error from a broken entry', async () => {
  const factory = createUfmDiscovererFactory();
  const ufmDocument = fc.tuple(fc.nat(), mutation).map(([i, m]) => {
    const doc = { networkTopologyDiscovery: [structuredClone(UFM_ENTRY)] } as Json;
    const all = paths(doc);
    return toYaml(mutate(doc, all[i % all.length]!, m));
  });
  await fc.assert(
    fc.asyncProperty(ufmDocument, async (text) => {
      const config = loadsCleanly(text);
      const entry = config && entryOf(sourceEntry(config, 'ufm'));
      if (!entry) return;
      try {
        const d = await factory(entry, options());
        await d.start().then(
          () => d.stop(),
          (err: Error) => assert.match(err.message, /UFM endpoint is not configured|credentials are not configured/),
        );
      } catch (err) {
        assert.instance(err, Error);
        // An endpoint such as "0" is the address 0.0.0.0, this host, refused naming the flag that allows it.
        assert.match(
          (err as Error).message,
          /^ufm source: config\.endpoint (must be a string|is refused: .*--allow-url-cidr)/,
        );
      }
    }),
    propertyParameters(),
  );
});

test.run();
