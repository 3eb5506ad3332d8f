import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodePorts, PORTS_RESOURCE_PATH } from '../../../../src/hypernode/discovery/ufm/legacy-ports.ts';
import { resourceUrl } from '../../../../src/hypernode/discovery/ufm/ufm-endpoint.ts';
import { buildSnapshot } from '../../../../src/hypernode/discovery/ufm/legacy-topology.ts';
import { nullLogger } from '../../../../src/log.ts';
import type { UfmPort } from '../../../../src/hypernode/discovery/ufm/legacy-ports.ts';

const urls: [string, string][] = [
  ['https://ufm-server:8080', 'https://ufm-server:8080/ufmRest/resources/ports'],
  ['ufm-server:8080/', 'https://ufm-server:8080/ufmRest/resources/ports'],
  ['http://10.0.0.1/base//', 'http://10.0.0.1/base/ufmRest/resources/ports'],
  ['HTTP://ufm', 'https://HTTP://ufm/ufmRest/resources/ports'],
  ['ufm.example.com', 'https://ufm.example.com/ufmRest/resources/ports'],
];
for (const [endpoint, url] of urls)
  test(`URL: ${endpoint} → ${url}`, () => assert.is(resourceUrl(endpoint, 'basic', PORTS_RESOURCE_PATH), url));
test('URL with an access token: the /ufmRestV3 prefix', () =>
  assert.is(resourceUrl('ufm:8443/', 'token', PORTS_RESOURCE_PATH), 'https://ufm:8443/ufmRestV3/resources/ports'));

test('decoding: field names match case-insensitively, unknown fields are ignored, trailing bytes too', () => {
  const ports = decodePorts(
    '[{"Description":"Computer IB Port","TIER":2,"System_Name":"n1","peer_node_name":"L1","x":[1]}] trailing {garbage',
  );
  assert.equal(ports, [
    { description: 'Computer IB Port', tier: 2, system_name: 'n1', node_description: '', peer_node_name: 'L1' },
  ]);
});

test('decoding: null is zero ports; null fields and elements stay zero', () => {
  assert.equal(decodePorts(' null '), []);
  assert.equal(
    decodePorts('[null, {"system_name": null}]').map((p) => p.system_name),
    ['', ''],
  );
});

for (const [body, why] of [
  ['[{"tier":"1"}]', /tier of type int/],
  ['[{"tier":1.5}]', /tier of type int/],
  ['[{"system_name":5}]', /system_name of type string/],
  ['{"ports":[]}', /object/],
  ['42', /number/],
  ['"x"', /string/],
  ['[1]', /number/],
  ['[{"a":', /JSON|Unexpected|end/i],
  ['', /end of JSON input/],
] as [string, RegExp][]) {
  test(`decoding fails: ${JSON.stringify(body)}`, () => assert.throws(() => decodePorts(body), why));
}

const port = (system_name: string, peer_node_name: string, description = 'Computer IB Port'): UfmPort => ({
  description,
  tier: 1,
  system_name,
  node_description: '',
  peer_node_name,
});
const members = (type: string, names: string[]) => names.map((name) => ({ type, selector: { exactMatch: { name } } }));
const LABELS = { 'volcano.sh/network-topology-source': 'ufm' };

test('worked example of the unit tests: two leaf groups and a spine', () => {
  const ports: UfmPort[] = [];
  for (const n of ['node0', 'node1', 'node2', 'node3'])
    for (const l of ['leaf0', 'leaf1', 'leaf2', 'leaf3']) ports.push(port(n, l));
  for (const l of ['leaf4', 'leaf5', 'leaf6']) ports.push(port('node4', l), port('node7', l));
  for (const l of ['leaf4', 'leaf5', 'leaf6', 'leaf7']) ports.push(port('node5', l), port('node6', l));
  assert.equal(buildSnapshot(ports, nullLogger), [
    {
      metadata: { name: 'leaf-hn-0', labels: LABELS },
      spec: { tier: 1, members: members('Node', ['node0', 'node1', 'node2', 'node3']) },
    },
    {
      metadata: { name: 'leaf-hn-1', labels: LABELS },
      spec: { tier: 1, members: members('Node', ['node4', 'node5', 'node6', 'node7']) },
    },
    {
      metadata: { name: 'spine-hn', labels: LABELS },
      spec: { tier: 2, members: members('HyperNode', ['leaf-hn-0', 'leaf-hn-1']) },
    },
  ]);
});

test('smaller illustration: groups follow the smallest leaf; Switch ports are ignored', () => {
  const snap = buildSnapshot(
    [port('a', 'L2'), port('b', 'L1'), port('b', 'L3'), port('c', 'L9'), port('x', 'L1', 'Switch IB Port')],
    nullLogger,
  );
  assert.equal(
    snap.map((h) => [h.metadata.name, h.spec!.members!.map((m) => m.selector!.exactMatch!.name)]),
    [
      ['leaf-hn-0', ['b']],
      ['leaf-hn-1', ['a']],
      ['leaf-hn-2', ['c']],
      ['spine-hn', ['leaf-hn-0', 'leaf-hn-1', 'leaf-hn-2']],
    ],
  );
  assert.ok(snap.every((h) => h.spec.tierName === undefined));
});

test('spine members sort as strings (leaf-hn-10 before leaf-hn-2)', () => {
  const ports = Array.from({ length: 12 }, (_, i) =>
    port(`n${String(i).padStart(2, '0')}`, `L${String(i).padStart(2, '0')}`),
  );
  const spine = buildSnapshot(ports, nullLogger).at(-1)!;
  assert.equal(
    spine.spec!.members!.slice(0, 4).map((m) => m.selector!.exactMatch!.name),
    ['leaf-hn-0', 'leaf-hn-1', 'leaf-hn-10', 'leaf-hn-11'],
  );
});

test('a chain of leaves linked through different nodes is one group', () => {
  const snap = buildSnapshot(
    [port('n1', 'A'), port('n1', 'B'), port('n2', 'B'), port('n2', 'C'), port('n3', 'D')],
    nullLogger,
  );
  assert.equal(
    snap.map((h) => h.spec.members!.length),
    [2, 1, 2],
  );
});

test('no Computer port gives an empty result', () => {
  assert.equal(buildSnapshot([port('x', 'L1', 'Switch IB Port'), port('y', 'L2', 'computer')], nullLogger), []);
});

test.run();
