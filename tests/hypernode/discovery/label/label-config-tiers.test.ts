import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topologyTypes } from '../../../../src/hypernode/discovery/label/label-config.ts';
import { nullLogger } from '../../../../src/log.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';

const plain = (config: Record<string, unknown> | undefined) =>
  topologyTypes(config, nullLogger).map((t) => ({ ...t, tiers: [...t.tiers] }));

test('tier list: reverse order without the last entry (user-guide example)', () => {
  const types = plain({
    networkTopologyTypes: {
      topologyA3: [
        { nodeLabel: 'volcano.sh/hypercluster' },
        { nodeLabel: 'volcano.sh/hypernode' },
        { nodeLabel: 'kubernetes.io/hostname' },
      ],
    },
  });
  assert.equal(types, [{ name: 'topologyA3', tiers: ['volcano.sh/hypernode', 'volcano.sh/hypercluster'] }]);
});

test('field names are case-insensitive, scalars are weakly converted, a mapping is a one-element list', () => {
  const { lines, logger } = capturingLogger({ verbosity: 0 });
  const types = topologyTypes(
    {
      NetworkTopologyTypes: {
        t: [{ NODELABEL: 42 }, { nodelabel: true }, { nodeLabel: 'host' }],
        single: { nodeLabel: 'x' },
      },
    },
    logger,
  );
  assert.equal(
    types.map((t) => ({ ...t, tiers: [...t.tiers] })),
    [{ name: 't', tiers: ['1', '42'] }],
  );
  assert.ok(
    lines.some((l) =>
      l.includes('networkTopologyTypes.single: needs the tier labels followed by the hostname label, got 1 label(s)'),
    ),
  );
  assert.not.ok(
    lines.some((l) => l.includes('unknown keys')),
    'other spellings of the known keys are not unknown',
  );
});

test('types come out sorted by name whatever the document order', () => {
  const types = plain({
    networkTopologyTypes: {
      zeta: [{ nodeLabel: 'a' }, { nodeLabel: 'h' }],
      alpha: [{ nodeLabel: 'b' }, { nodeLabel: 'h' }],
    },
  });
  assert.equal(
    types.map((t) => t.name),
    ['alpha', 'zeta'],
  );
});

test('undecodable shapes are an error naming the field (the source does not start, nothing is deleted)', () => {
  const table: [Record<string, unknown>, RegExp][] = [
    [{ networkTopologyTypes: 'rack' }, /^Cannot get networkTopologyTypes: networkTopologyTypes: expected a mapping/],
    [
      { networkTopologyTypes: { t: ['volcano.sh/tor', 'kubernetes.io/hostname'] } },
      /^Cannot get networkTopologyTypes: networkTopologyTypes\.t\[0\]: expected a mapping \{nodeLabel: <key>\}/,
    ],
    [{ networkTopologyTypes: { t: 'volcano.sh/tor' } }, /networkTopologyTypes\.t: expected a list/],
    [
      { networkTopologyTypes: { t: [{ nodeLabel: ['a'] }] } },
      /networkTopologyTypes\.t\[0\]\.nodeLabel: expected a string/,
    ],
  ];
  for (const [config, message] of table) assert.throws(() => topologyTypes(config, nullLogger), message);
});

test('a missing or misspelled networkTopologyTypes is a start error naming the field and the typo', () => {
  const table: [Record<string, unknown> | undefined, RegExp][] = [
    [undefined, /^Cannot get networkTopologyTypes: networkTopologyTypes is missing from the label source's config$/],
    [{ networkTopologyTypes: null }, /networkTopologyTypes is missing/],
    [
      { networkTopolgyTypes: { t: [{ nodeLabel: 'a' }, { nodeLabel: 'h' }] } },
      /networkTopologyTypes is missing .*\(the config has "networkTopolgyTypes"; misspelled\?\)/,
    ],
    [{ networkTopologyTypes: {} }, /no usable topology type, it lists no type/],
  ];
  for (const [config, message] of table) assert.throws(() => topologyTypes(config, nullLogger), message);
});

test('every type rejected is a start error listing each reason', () => {
  const labels = [{ nodeLabel: 'a' }, { nodeLabel: 'h' }];
  const err = (() => {
    try {
      topologyTypes(
        {
          networkTopologyTypes: {
            averyveryverylongtypename: labels,
            twice: [{ nodeLabel: 'a' }, { nodeLabel: 'a' }, { nodeLabel: 'h' }],
          },
        },
        nullLogger,
      );
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  })();
  assert.match(err, /^Cannot get networkTopologyTypes: no usable topology type, every type is rejected: /);
  assert.match(err, /exceeds 20\. topologyTypeName is averyveryverylongtypename/);
  assert.match(err, /duplicate labels in topologyTypeName twice/);
});

test('unknown keys are warned about by name; the type still works when otherwise valid', () => {
  const { lines, logger } = capturingLogger({ verbosity: 0 });
  const types = topologyTypes(
    { networkTopologyTypes: { t: [{ nodeLabel: 'a', zone: 'x' }, { nodeLabel: 'h' }] }, extra: 1 },
    logger,
  );
  assert.equal(
    types.map((t) => [...t.tiers]),
    [['a']],
  );
  assert.ok(
    lines.some((l) => /unknown keys.*where="label config" unknown=\["extra"\]/.test(l)),
    lines.join(''),
  );
  assert.ok(
    lines.some((l) => /unknown keys.*where="networkTopologyTypes\.t\[0\]" unknown=\["zone"\]/.test(l)),
    lines.join(''),
  );
});

test('a misspelled or null nodeLabel rejects its type: an empty label key would match no Node', () => {
  const { lines, logger } = capturingLogger({ verbosity: 0 });
  const ok = [{ nodeLabel: 'a' }, { nodeLabel: 'h' }];
  const types = topologyTypes(
    { networkTopologyTypes: { typo: [{ nodeLable: 'a' }, { nodeLabel: 'h' }], nul: [null, { nodeLabel: 'h' }], ok } },
    logger,
  );
  assert.equal(
    types.map((t) => t.name),
    ['ok'],
  );
  assert.ok(lines.some((l) => l.includes('networkTopologyTypes.typo[0]: nodeLabel is missing or empty')));
  assert.ok(lines.some((l) => l.includes('networkTopologyTypes.nul[0]: nodeLabel is missing or empty')));
  assert.throws(
    () => topologyTypes({ networkTopologyTypes: { typo: [{ nodeLable: 'a' }, { nodeLabel: 'h' }] } }, nullLogger),
    /every type is rejected: networkTopologyTypes\.typo\[0\]: nodeLabel is missing/,
  );
});

test('a type name over 20 bytes is skipped and logged; exactly 20 is fine', () => {
  const { lines, logger } = capturingLogger({ verbosity: 0 });
  const labels = [{ nodeLabel: 'a' }, { nodeLabel: 'h' }];
  const types = topologyTypes(
    { networkTopologyTypes: { ['x'.repeat(21)]: labels, ['y'.repeat(20)]: labels, ['é'.repeat(11)]: labels } },
    logger,
  );
  assert.equal(
    types.map((t) => t.name),
    ['y'.repeat(20)],
  );
  assert.is(lines.filter((l) => /The length of topologyTypeName exceeds 20/.test(l)).length, 2, '11 × é is 22 bytes');
});

test('duplicate labels skip the type', () => {
  const { lines, logger } = capturingLogger({ verbosity: 0 });
  const types = topologyTypes(
    {
      networkTopologyTypes: {
        dup: [{ nodeLabel: 'a' }, { nodeLabel: 'a' }, { nodeLabel: 'h' }],
        ok: [{ nodeLabel: 'a' }, { nodeLabel: 'h' }],
      },
    },
    logger,
  );
  assert.equal(
    types.map((t) => t.name),
    ['ok'],
  );
  assert.match(lines.join(''), /duplicate labels/);
});

test('a type name that would make invalid object names is reported, not used', () => {
  const { lines, logger } = capturingLogger({ verbosity: 0 });
  const labels = [{ nodeLabel: 'a' }, { nodeLabel: 'h' }];
  const types = topologyTypes(
    { networkTopologyTypes: { 'topo.': labels, 'a.-b': labels, 'My Topo.v1': labels } },
    logger,
  );
  assert.equal(
    types.map((t) => t.name),
    ['My Topo.v1'],
  );
  assert.is(lines.filter((l) => /not valid DNS-1123/.test(l)).length, 2);
});

test('a type of zero or one label makes no tier and is rejected', () => {
  const { lines, logger } = capturingLogger({ verbosity: 0 });
  const types = topologyTypes(
    { networkTopologyTypes: { a: [], b: [{ nodeLabel: 'h' }], c: [{ nodeLabel: 'x' }, { nodeLabel: 'h' }] } },
    logger,
  );
  assert.equal(
    types.map((t) => t.name),
    ['c'],
  );
  assert.is(lines.filter((l) => /needs the tier labels followed by the hostname label/.test(l)).length, 2);
});

test.run();
