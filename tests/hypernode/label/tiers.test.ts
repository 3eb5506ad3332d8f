import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topologyTypes } from '../../../src/hypernode/discovery/label/tiers.ts';
import { createLogger, nullLogger } from '../../../src/log.ts';

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ verbosity: 0, skipHeaders: true, sink: { write: (l) => void lines.push(l) } }) };
}
const plain = (config: Record<string, unknown> | undefined) => topologyTypes(config, nullLogger).map((t) => ({ ...t, tiers: [...t.tiers] }));

test('tier list: reverse order without the last entry (user-guide example)', () => {
  const types = plain({
    networkTopologyTypes: {
      topologyA3: [{ nodeLabel: 'volcano.sh/hypercluster' }, { nodeLabel: 'volcano.sh/hypernode' }, { nodeLabel: 'kubernetes.io/hostname' }],
    },
  });
  assert.equal(types, [{ name: 'topologyA3', tiers: ['volcano.sh/hypernode', 'volcano.sh/hypercluster'] }]);
});

test('field names are case-insensitive, scalars are weakly converted, a mapping is a one-element list', () => {
  const types = plain({ NetworkTopologyTypes: { t: [{ NODELABEL: 42 }, { nodelabel: true }, { nodeLabel: 'host' }], single: { nodeLabel: 'x' } } });
  assert.equal(types, [
    { name: 'single', tiers: [] },
    { name: 't', tiers: ['1', '42'] },
  ]);
});

test('types come out sorted by name whatever the document order', () => {
  const types = plain({ networkTopologyTypes: { zeta: [{ nodeLabel: 'a' }, { nodeLabel: 'h' }], alpha: [{ nodeLabel: 'b' }, { nodeLabel: 'h' }] } });
  assert.equal(types.map((t) => t.name), ['alpha', 'zeta']);
});

test('undecodable shapes are an error naming the field (the source does not start, nothing is deleted)', () => {
  const table: [Record<string, unknown>, RegExp][] = [
    [{ networkTopologyTypes: 'rack' }, /^Cannot get networkTopologyTypes: networkTopologyTypes: expected a mapping/],
    [{ networkTopologyTypes: { t: ['volcano.sh/tor', 'kubernetes.io/hostname'] } }, /^Cannot get networkTopologyTypes: networkTopologyTypes\.t\[0\]: expected a mapping \{nodeLabel: <key>\}/],
    [{ networkTopologyTypes: { t: 'volcano.sh/tor' } }, /networkTopologyTypes\.t: expected a list/],
    [{ networkTopologyTypes: { t: [{ nodeLabel: ['a'] }] } }, /networkTopologyTypes\.t\[0\]\.nodeLabel: expected a string/],
  ];
  for (const [config, message] of table) assert.throws(() => topologyTypes(config, nullLogger), message);
});

test('absent config or absent types is an empty, silent type set', () => {
  const { lines, logger } = capture();
  assert.equal(topologyTypes(undefined, logger), []);
  assert.equal(topologyTypes({ networkTopologyTypes: null }, logger), []);
  assert.equal(lines, []);
});

test('a type name over 20 bytes is skipped and logged; exactly 20 is fine', () => {
  const { lines, logger } = capture();
  const labels = [{ nodeLabel: 'a' }, { nodeLabel: 'h' }];
  const types = topologyTypes({ networkTopologyTypes: { ['x'.repeat(21)]: labels, ['y'.repeat(20)]: labels, ['é'.repeat(11)]: labels } }, logger);
  assert.equal(types.map((t) => t.name), ['y'.repeat(20)]);
  assert.is(lines.filter((l) => /The length of topologyTypeName exceeds 20/.test(l)).length, 2, '11 × é is 22 bytes');
});

test('duplicate labels skip the type', () => {
  const { lines, logger } = capture();
  const types = topologyTypes({ networkTopologyTypes: { dup: [{ nodeLabel: 'a' }, { nodeLabel: 'a' }, { nodeLabel: 'h' }], ok: [{ nodeLabel: 'a' }, { nodeLabel: 'h' }] } }, logger);
  assert.equal(types.map((t) => t.name), ['ok']);
  assert.match(lines.join(''), /duplicate labels/);
});

test('a type name that would make invalid object names is reported, not used', () => {
  const { lines, logger } = capture();
  const labels = [{ nodeLabel: 'a' }, { nodeLabel: 'h' }];
  const types = topologyTypes({ networkTopologyTypes: { 'topo.': labels, 'a.-b': labels, 'My Topo.v1': labels } }, logger);
  assert.equal(types.map((t) => t.name), ['My Topo.v1']);
  assert.is(lines.filter((l) => /not valid DNS-1123/.test(l)).length, 2);
});

test('zero or one label gives no tiers', () => {
  assert.equal(plain({ networkTopologyTypes: { a: [], b: [{ nodeLabel: 'h' }] } }), [
    { name: 'a', tiers: [] },
    { name: 'b', tiers: [] },
  ]);
});

test.run();
