// The profile form of networkTopologyTypes: decoding, each validation rule
// and its message (the first failure in raw-name order rejects the whole
// configuration), and the derived names.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topologyTypes } from '../../../../../src/hypernode/discovery/label/label-config.ts';
import { profileLabelValue } from '../../../../../src/hypernode/discovery/label/profile/profile-config.ts';
import { profileHyperNodeName } from '../../../../../src/hypernode/discovery/label/name-book.ts';
import { nullLogger } from '../../../../../src/log.ts';

const HOST = { nodeLabel: 'kubernetes.io/hostname' };
const shallow = {
  nodeSelector: { matchLabels: { 'example.com/depth': 'shallow' } },
  levels: [{ nodeLabel: 'example.com/hypernode-domain', tierName: 'volcano.sh/hypernode' }, HOST],
};

function errorOf(types: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  try {
    topologyTypes({ networkTopologyTypes: types, ...extra }, nullLogger);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

test('a valid profile: tiers bottom-up, tierNames defaulted to the label key, explicit when it has a selector', () => {
  const types = topologyTypes(
    {
      networkTopologyTypes: {
        deep: {
          nodeSelector: {},
          levels: [
            { nodeLabel: 'example.com/cluster', tierName: 'volcano.sh/hypercluster' },
            { nodeLabel: 'example.com/rack' },
            HOST,
          ],
        },
        open: { levels: [{ nodeLabel: 'example.com/rack' }, HOST] },
      },
    },
    nullLogger,
  );
  assert.equal(
    types.map((t) => [t.name, [...t.tiers], t.profile?.explicit, t.profile?.labelValue]),
    [
      ['deep', ['example.com/rack', 'example.com/cluster'], true, 'deep'],
      ['open', ['example.com/rack'], false, 'open'],
    ],
  );
  assert.equal(
    types[0]!.profile!.levels.map((l) => l.tierName),
    ['example.com/rack', 'volcano.sh/hypercluster'],
  );
});

test('decode errors carry the decoder frame and sorted lines (Volcano texts)', () => {
  assert.is(
    errorOf({ topologyshallow: shallow }, { networkTopologyType: 1 }),
    "decode networkTopologyTypes: 1 error(s) decoding:\n\n* '' has invalid keys: networkTopologyType",
  );
  assert.is(
    errorOf({ topologyshallow: { ...shallow, levels: [{ nodeLabel: 'a', tierNmae: 'x' }, HOST] } }),
    'decode topology profile "topologyshallow": 1 error(s) decoding:\n\n* \'levels[0]\' has invalid keys: tierNmae',
  );
  assert.is(
    errorOf({
      p: { levels: [{ nodeLabel: 'a', zeta: 1, alpha: 2 }, 'x', HOST], nodeSelector: { matchLabel: {} }, extra: 1 },
    }),
    [
      'decode topology profile "p": 4 error(s) decoding:',
      '',
      "* '' has invalid keys: extra",
      "* 'levels[0]' has invalid keys: alpha, zeta",
      "* 'levels[1]' expected a map, got 'string'",
      "* 'nodeSelector' has invalid keys: matchLabel",
    ].join('\n'),
  );
  assert.match(
    errorOf({ p: { levels: [{ nodeLabel: ['a'] }, HOST] } }),
    "'levels[0].nodeLabel' expected type 'string', got unconvertible type '[]interface {}'",
  );
  assert.match(
    errorOf({
      p: {
        nodeSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', value: [] }] },
        levels: [{ nodeLabel: 'a' }, HOST],
      },
    }),
    "'nodeSelector.MatchExpressions[0]' has invalid keys: value",
  );
});

test('weak decoding: case-insensitive keys, scalars to strings, a single level mapping is a list', () => {
  const [t] = topologyTypes(
    {
      networkTopologyTypes: {
        p: { NodeSelector: { MatchLabels: { gpu: true } }, LEVELS: [{ NODELABEL: 'rack', tiername: 7 }, HOST] },
      },
    },
    nullLogger,
  );
  assert.equal(
    t!.profile!.levels.map((l) => [l.nodeLabel, l.tierName]),
    [['rack', '7']],
  );
  assert.ok(t!.profile!.matches({ gpu: '1' }), 'true is the label value "1"');
  assert.not.ok(t!.profile!.matches({ gpu: 'true' }));
  assert.is(
    errorOf({ p: { levels: { nodeLabel: 'rack' } } }),
    'invalid topology profile "p": at least one topology level and one node level are required',
  );
});

test('each validation rule, with its message', () => {
  const levels = (...ls: unknown[]) => ({ nodeSelector: {}, levels: [...ls, HOST] });
  const table: [string, Record<string, unknown>, string][] = [
    [
      'P1 name over 20 bytes',
      { ['x'.repeat(21)]: levels({ nodeLabel: 'a' }) },
      `topology profile name "${'x'.repeat(21)}" exceeds 20 characters`,
    ],
    ['P4 empty nodeLabel', { p: levels({ tierName: 'x' }) }, 'invalid topology profile "p": nodeLabel cannot be empty'],
    [
      'P5 invalid key',
      { p: levels({ nodeLabel: 'bad key' }) },
      'invalid topology profile "p": nodeLabel "bad key" is not a valid qualified name: name part must consist of',
    ],
    [
      'P6 duplicate labels',
      { p: levels({ nodeLabel: 'a' }, { nodeLabel: 'a' }) },
      'invalid topology profile "p": there are duplicate labels',
    ],
    [
      'P7 only the leaf',
      { p: { levels: [HOST] } },
      'invalid topology profile "p": at least one topology level and one node level are required',
    ],
    [
      'P7 null profile',
      { p: { levels: null } },
      'invalid topology profile "p": at least one topology level and one node level are required',
    ],
    [
      'P8 last level not hostname',
      { p: { levels: [{ nodeLabel: 'a' }, { nodeLabel: 'b' }] } },
      'invalid topology profile "p": last level must use nodeLabel "kubernetes.io/hostname"',
    ],
    [
      'P9 tierName on the leaf',
      { p: { levels: [{ nodeLabel: 'a' }, { ...HOST, tierName: 'node' }] } },
      'invalid topology profile "p": node leaf level must not set tierName',
    ],
    [
      'P10 bad operator',
      {
        p: {
          nodeSelector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
          levels: [{ nodeLabel: 'a' }, HOST],
        },
      },
      'invalid nodeSelector for topology profile "p": "Gt" is not a valid label selector operator',
    ],
    [
      'P10 In without values',
      { p: { nodeSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] }, levels: [{ nodeLabel: 'a' }, HOST] } },
      "invalid nodeSelector for topology profile \"p\": values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'P10 Exists with values',
      {
        p: {
          nodeSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: 'x' }] },
          levels: [{ nodeLabel: 'a' }, HOST],
        },
      },
      'invalid nodeSelector for topology profile "p": values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    ],
    [
      'P10 bad matchLabels value',
      { p: { nodeSelector: { matchLabels: { a: 'not ok' } }, levels: [{ nodeLabel: 'a' }, HOST] } },
      'invalid nodeSelector for topology profile "p": values[0]: Invalid value: "not ok": a valid label must be an empty string',
    ],
    [
      'P11 duplicate tierName',
      { p: levels({ nodeLabel: 'a', tierName: 'rack' }, { nodeLabel: 'b', tierName: 'rack' }) },
      'invalid topology profile "p": duplicate tierName "rack"',
    ],
    [
      'P11 explicit equals a default',
      { p: levels({ nodeLabel: 'a', tierName: 'b' }, { nodeLabel: 'b' }) },
      'invalid topology profile "p": duplicate tierName "b"',
    ],
    [
      'P12 nothing left of the name',
      { __: levels({ nodeLabel: 'a' }) },
      'topology profile name "__" cannot be normalized to a label value',
    ],
    [
      'P14 two names, one label value',
      { topologyA: levels({ nodeLabel: 'a' }), topologya: levels({ nodeLabel: 'b' }) },
      'topology profile names "topologyA" and "topologya" normalize to the same label value "topologya"',
    ],
  ];
  for (const [rule, types, want] of table) {
    const got = errorOf(types);
    assert.ok(got.startsWith(want), `${rule}:\n got  ${got}\n want ${want}`);
  }
});

test('P5 for a key with two slashes reads exactly as apimachinery writes it', () => {
  assert.is(
    errorOf({ topologyshallow: { ...shallow, levels: [{ nodeLabel: 'bad/key/extra' }, HOST] } }),
    "invalid topology profile \"topologyshallow\": nodeLabel \"bad/key/extra\" is not a valid qualified name: a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  );
});

test('checks run per profile in raw-name order: the first failing profile is reported', () => {
  const bad7 = { levels: [HOST] };
  const badDecode = { levels: [{ nodeLabel: 'a', x: 1 }, HOST] };
  assert.match(errorOf({ b: badDecode, a: bad7 }), /^invalid topology profile "a": at least one/);
  assert.match(errorOf({ B: bad7, a: badDecode }), /^invalid topology profile "B"/, 'byte order: upper case first');
});

test('a legacy list beside profiles keeps its log-and-skip rules; the profiles are strict', () => {
  const types = topologyTypes({ networkTopologyTypes: { legacy: [{ nodeLabel: 'only' }], p: shallow } }, nullLogger);
  assert.equal(
    types.map((t) => t.name),
    ['p'],
  );
  assert.match(errorOf({ legacy: [{ nodeLabel: 'a' }, HOST], p: { levels: [HOST] } }), /^invalid topology profile "p"/);
});

test('derived names: cleaned name, label value and hash names (worked examples)', () => {
  assert.is(
    profileHyperNodeName('topologyA2', 'volcano.sh_torA2-1', 's0', 1),
    'hypernode-topologya2-tier1-02d75b807a6a',
  );
  assert.is(
    profileHyperNodeName('topologyA2', 'volcano.sh/torA2-2', 's4', 2),
    'hypernode-topologya2-tier2-a6b6db14a8d9',
  );
  assert.is(
    profileHyperNodeName('topologyshallow', 'example.com/hypernode-domain', 'hn-0', 1),
    'hypernode-topologyshallow-tier1-70fc021d49ff',
  );
  assert.is(
    profileHyperNodeName('topologydeep', 'example.com/hypernode-domain', 'hn-0', 2),
    'hypernode-topologydeep-tier2-eb5899446642',
  );
  assert.is(
    profileHyperNodeName('Rack_Level.v2', 'example.com/rack', 'r-01', 1),
    'hypernode-rack-level.v2-tier1-b2d46be8d25a',
  );
  assert.is(profileHyperNodeName('-edge_', 'example.com/rack', 'r-01', 1), 'hypernode--edge--tier1-275d72034a65');
  assert.equal(['topologyA2', 'Rack_Level.v2', '-edge_'].map(profileLabelValue), [
    'topologya2',
    'rack-level.v2',
    'edge',
  ]);
});

test('valuePattern: RE2 with a capturing group; bad syntax, no group, or on the leaf is rejected', () => {
  const clique = (valuePattern: string) => ({
    nodeSelector: {},
    levels: [{ nodeLabel: 'nvidia.com/gpu.clique', valuePattern }, HOST],
  });
  const [t] = topologyTypes({ networkTopologyTypes: { p: clique('^(.+)\\.[0-9]+$') } }, nullLogger);
  const domainOf = t!.profile!.levels[0]!.domainOf;
  assert.is(domainOf('7b968a6d-c8aa-45e1-9e07-e1e51be99c31.1'), '7b968a6d-c8aa-45e1-9e07-e1e51be99c31');
  assert.is(domainOf('no-clique-id'), undefined);
  assert.match(
    errorOf({ p: clique('(') }),
    /^invalid topology profile "p": valuePattern "\(" of nodeLabel "nvidia.com\/gpu.clique" is not usable: /,
  );
  assert.match(errorOf({ p: clique('[0-9]+') }), /no capturing group/);
  assert.match(errorOf({ p: clique('(?<=a)b') }), /not usable/, 'lookbehind is not RE2');
  assert.match(
    errorOf({ p: { levels: [{ nodeLabel: 'a' }, { ...HOST, valuePattern: '(.*)' }] } }),
    /node leaf level must not set valuePattern/,
  );
  // The same label through two patterns is two levels (domain above partition), not a duplicate.
  const two = topologyTypes(
    {
      networkTopologyTypes: {
        p: {
          levels: [
            { nodeLabel: 'nvidia.com/gpu.clique', valuePattern: '^(.+)\\.[0-9]+$', tierName: 'nvl-domain' },
            { nodeLabel: 'nvidia.com/gpu.clique', tierName: 'nvl-partition' },
            HOST,
          ],
        },
      },
    },
    nullLogger,
  );
  assert.equal(
    two[0]!.profile!.levels.map((l) => l.tierName),
    ['nvl-partition', 'nvl-domain'],
  );
});

test.run();
