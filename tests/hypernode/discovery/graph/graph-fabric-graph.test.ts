// The static fabric graph document: JSON and YAML read alike, hosts named only
// by links count, and every bad entry is rejected with an error naming it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseGraphDocument } from '../../../../src/hypernode/discovery/graph/graph-fabric-graph.ts';
import { parseGraphConfig } from '../../../../src/hypernode/discovery/graph/graph-config.ts';
import type { DiscoveryEntry } from '../../../../src/hypernode/model/contracts.ts';

const YAML_DOC = `
switches:
  - {id: leaf-1, name: LEAF-1}
  - spine-1
hosts: [gpu-a]
links:
  - {a: {host: gpu-a, port: eth0}, b: {switch: leaf-1, port: 1}}
  - {a: {host: gpu-b}, b: {switch: leaf-1, port: swp2}}
  - {a: {switch: leaf-1, port: swp60}, b: {switch: spine-1, port: swp1}}
`;

test('YAML and JSON give the same graph; a bare switch id names itself; hosts named by links count; numeric ports become text', () => {
  const graph = parseGraphDocument(YAML_DOC);
  assert.equal(graph.switches, [
    { id: 'leaf-1', name: 'LEAF-1' },
    { id: 'spine-1', name: 'spine-1' },
  ]);
  assert.equal(graph.hosts, [{ name: 'gpu-a' }, { name: 'gpu-b' }]);
  assert.equal(graph.links[0], {
    a: { kind: 'host', name: 'gpu-a', port: 'eth0' },
    b: { kind: 'switch', id: 'leaf-1', port: '1' },
  });
  assert.equal(graph.links[1]!.a, { kind: 'host', name: 'gpu-b', port: '' });
  const json = JSON.stringify({
    switches: [{ id: 'leaf-1', name: 'LEAF-1' }, 'spine-1'],
    hosts: ['gpu-a'],
    links: [
      { a: { host: 'gpu-a', port: 'eth0' }, b: { switch: 'leaf-1', port: 1 } },
      { a: { host: 'gpu-b' }, b: { switch: 'leaf-1', port: 'swp2' } },
      { a: { switch: 'leaf-1', port: 'swp60' }, b: { switch: 'spine-1', port: 'swp1' } },
    ],
  });
  assert.equal(parseGraphDocument(json), graph);
  // Starts like JSON but is a YAML flow mapping: read as YAML.
  assert.equal(parseGraphDocument('{switches: [s1], links: [{a: {host: h}, b: {switch: s1}}]}').hosts, [{ name: 'h' }]);
});

for (const [what, doc, error] of [
  ['not YAML', 'switches: [a\n', /^not JSON or YAML \(a string of 13 bytes\): line 2, column 1: /],
  ['empty', '', 'want a mapping with switches, hosts and links, got an empty document'],
  ['a list', '[1]', 'want a mapping with switches, hosts and links, got a list of 1 item'],
  ['a bare text', 'a-token-or-key', 'want a mapping with switches, hosts and links, got a string of 14 bytes'],
  [
    'a misspelt key',
    'switches: [a]\nlinks: []\nlnks: []',
    'the graph has unknown keys "lnks"; known: switches, hosts, links',
  ],
  ['no switches', 'links: []', 'switches is missing: want a list'],
  ['empty switches', 'switches: []\nlinks: []', 'switches is empty: a fabric needs at least one switch'],
  ['no links', 'switches: [a]', 'links is missing: want a list'],
  [
    'an upper-case switch id',
    'switches: [a, {id: Leaf_1}]\nlinks: []',
    'switches[1].id "Leaf_1" is not usable in HyperNode names',
  ],
  ['a switch id twice', 'switches: [a, b, a]\nlinks: []', 'switches[2].id "a" is listed twice'],
  ['a switch without id', 'switches: [{name: x}]\nlinks: []', 'switches[0].id must be a non-empty string, got nothing'],
  ['a host twice', 'switches: [a]\nhosts: [h, {name: h}]\nlinks: []', 'hosts[1] "h" is listed twice'],
  [
    'a link to an unknown switch',
    'switches: [a]\nlinks: [{a: {host: h}, b: {switch: a}}, {a: {host: h}, b: {switch: b}}]',
    'links[1].b.switch "b" is not in switches',
  ],
  [
    'an end with both switch and host',
    'switches: [a]\nlinks: [{a: {host: h, switch: a}, b: {switch: a}}]',
    'links[0].a must name exactly one of switch or host',
  ],
  [
    'an end that is a string',
    'switches: [a]\nlinks: [{a: h, b: {switch: a}}]',
    'links[0].a must be a mapping {switch: <id>, port: <port>} or {host: <name>, port: <port>}, got "h"',
  ],
  [
    'a link key misspelt',
    'switches: [a]\nlinks: [{a: {host: h}, c: {switch: a}}]',
    'links[0] has unknown keys "c"; known: a, b',
  ],
  [
    'an empty host name',
    'switches: [a]\nlinks: [{a: {host: ""}, b: {switch: a}}]',
    'links[0].a.host must be a non-empty string, got ""',
  ],
] as const) {
  test(`a bad document is rejected naming the entry: ${what}`, () => {
    assert.throws(
      () => parseGraphDocument(doc),
      (err: Error) =>
        (typeof error === 'string' ? err.message.startsWith(error) : error.test(err.message)) ||
        assert.unreachable(err.message),
    );
  });
}

const entry = (config: Record<string, unknown>, secret = false): DiscoveryEntry => ({
  source: 'graph',
  enabled: true,
  intervalMs: 60_000,
  maxDeletePercent: 50,
  config,
  ...(secret ? { credentials: { secretRef: { name: 's', namespace: 'volcano-system' } } } : {}),
});

test('the entry config: defaults, and each mistake named', () => {
  const c = parseGraphConfig(entry({ file: '/var/run/ibnetdiscover/graph.yaml' }));
  assert.equal(
    [c.fabric, c.location, c.minSharedHosts, c.secretRef],
    ['graph', { kind: 'file', path: '/var/run/ibnetdiscover/graph.yaml' }, 1, undefined],
  );
  assert.equal(
    parseGraphConfig(entry({ url: 'https://inv.example.com/g.yaml', fabric: 'lab', minSharedHosts: 2 }, true)).location,
    {
      kind: 'url',
      url: 'https://inv.example.com/g.yaml',
    },
  );
  for (const [config, message, secret] of [
    [
      {},
      'graph source: set exactly one of config.configMap ({namespace, name, key}), config.file (a path) or config.url',
      false,
    ],
    [{ file: 'a', url: 'https://x' }, 'graph source: set exactly one of config.configMap', false],
    [
      { configMap: { name: 'g', key: 'k' } },
      'graph source: config.configMap.namespace must be a non-empty string (the ConfigMap and its data key holding the graph)',
      false,
    ],
    [
      { configMap: { namespace: 'n', name: 'g', key: 'k', kye: 'x' } },
      'graph source: config.configMap has unknown keys "kye"',
      false,
    ],
    [
      { configMap: { namespace: 'n', name: 'g', key: 'k' } },
      'graph source: credentials.secretRef is for config.url (a token and a CA); config.configMap needs none',
      true,
    ],
    [{ url: 'ftp://x/y' }, 'graph source: config.url "ftp://x/y" must be an https://', false],
    [{ url: 'not a url' }, 'graph source: config.url "not a url" is not a URL', false],
    [{ file: 'a', fabric: 'Lab' }, 'graph source: config.fabric must be a DNS label', false],
    [
      { file: 'a', minSharedHosts: 0 },
      'graph source: config.minSharedHosts must be a whole number of at least 1, got 0',
      false,
    ],
    [{ file: 'a', fle: 'b' }, 'graph source: config has unknown keys "fle"', false],
    [
      { file: '/var/run/ibnetdiscover/g.yaml' },
      'graph source: credentials.secretRef is for config.url (a token and a CA); config.file needs none',
      true,
    ],
    [{ file: 'a' }, 'graph source: config.file must be an absolute path, got "a"', false],
    [
      { file: '/var/run/ibnetdiscover/g.yaml', hostMapping: { lowercase: 'yes' } },
      'graph source: config.hostMapping.lowercase must be true or false',
      false,
    ],
  ] as const) {
    assert.throws(
      () => parseGraphConfig(entry(config, secret)),
      (err: Error) => err.message.startsWith(message) || assert.unreachable(err.message),
    );
  }
});

test.run();
