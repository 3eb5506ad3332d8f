// Reading LLDP-MIB walks: the capture format of `snmpbulkwalk -On`, one
// switch's tables (rows keyed without the timeMark), and the graph of a
// fabric with the neighbours that must not become hosts reported by name.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSnmpCapture } from '../../../src/hypernode/discovery/lldp/snmp-capture.ts';
import { parseLldpTable } from '../../../src/hypernode/discovery/lldp/lldp-mib.ts';
import { lldpGraph, switchId, type PolledSwitch } from '../../../src/hypernode/discovery/lldp/lldp-graph.ts';

const CAPTURES = join(import.meta.dirname, '../../cmd/lldp-capture');
const lab = (): PolledSwitch[] =>
  readdirSync(CAPTURES)
    .sort()
    .map((f) => ({ address: f, table: parseLldpTable(parseSnmpCapture(readFileSync(join(CAPTURES, f), 'utf8'), f)) }));

test('a capture from the real lab: the leaf, its chassis, its two spines and three hosts', () => {
  const leaf = lab().find((p) => p.address === 'leaf-su1-r1.txt')!.table;
  assert.is(leaf.sysName, 'leaf-su1-r1');
  assert.is(leaf.chassisSubtype, 4);
  assert.is(switchId(leaf), '02aa00030001');
  assert.equal(leaf.neighbours.map((n) => n.sysName).sort(), ['spine-1', 'spine-2', 'su1-h1.fabric.example.com', 'su1-h2.fabric.example.com', 'su1-h3.fabric.example.com']);
  assert.equal(
    leaf.neighbours.map((n) => n.networkDevice),
    leaf.neighbours.map((n) => n.sysName.startsWith('spine')),
    'switches announce bridge, hosts station',
  );
  assert.ok(leaf.neighbours.every((n) => n.managementAddresses.length === 1 && n.localPortName !== '' && n.portName !== ''));
});

test('capture syntax: wrapped Hex-STRING, multi-line and escaped STRING, empty string, named INTEGER; a bad line is named', () => {
  const text = [
    '.1.0.8802.1.1.2.1.3.1.0 = INTEGER: macAddress(4)',
    '.1.0.8802.1.1.2.1.3.2.0 = Hex-STRING: 00 11 22 33 ',
    '44 55 ',
    '.1.0.8802.1.1.2.1.3.3.0 = STRING: "sw \\"one\\""',
    '.1.0.8802.1.1.2.1.3.4.0 = STRING: "line one',
    'line two"',
    '.1.0.8802.1.1.2.1.3.5.0 = ""',
    '.1.0.8802.1.1.2.1.9.9.0 = No more variables left in this MIB View (It is past the end of the MIB tree)',
    '',
  ].join('\n');
  const vbs = parseSnmpCapture(text, 'sw1');
  assert.equal(
    vbs.map((v) => v.oid),
    ['1.0.8802.1.1.2.1.3.1.0', '1.0.8802.1.1.2.1.3.2.0', '1.0.8802.1.1.2.1.3.3.0', '1.0.8802.1.1.2.1.3.4.0', '1.0.8802.1.1.2.1.3.5.0'],
  );
  assert.is(vbs[0]!.value, 4);
  assert.is((vbs[1]!.value as Buffer).toString('hex'), '001122334455');
  assert.is(String(vbs[2]!.value), 'sw "one"');
  assert.is(String(vbs[3]!.value), 'line one\nline two');
  assert.throws(() => parseSnmpCapture('.1.3.6 = INTEGER: 1\nsnmpbulkwalk: Timeout\n', 'sw2'), /sw2:2: not a line of `snmpbulkwalk -On` output/);
  assert.throws(() => parseLldpTable(parseSnmpCapture('.1.3.6.1.2.1.1.5.0 = STRING: "x"\n', 'sw3')), /no lldpLocChassisId/);
});

const oid = (col: number, tm: number, port: number, idx: number) => `1.0.8802.1.1.2.1.4.1.1.${col}.${tm}.${port}.${idx}`;
const mib = (rows: { tm: number; port: number; idx: number; mac: string; name: string; caps?: number }[]) => [
  { oid: '1.0.8802.1.1.2.1.3.1.0', value: 4 },
  { oid: '1.0.8802.1.1.2.1.3.2.0', value: Buffer.from('0200000000aa', 'hex') },
  { oid: '1.0.8802.1.1.2.1.3.3.0', value: Buffer.from('leaf') },
  ...rows.flatMap((r) => [
    { oid: oid(4, r.tm, r.port, r.idx), value: 4 },
    { oid: oid(5, r.tm, r.port, r.idx), value: Buffer.from(r.mac, 'hex') },
    { oid: oid(7, r.tm, r.port, r.idx), value: Buffer.from('eth0') },
    { oid: oid(9, r.tm, r.port, r.idx), value: Buffer.from(r.name) },
    { oid: oid(12, r.tm, r.port, r.idx), value: Buffer.from([r.caps ?? 0x01]) },
  ]),
];

test('a row refreshed during the walk (two timeMarks for one port and index) counts once, with the newer values, in any order', () => {
  const vbs = mib([
    { tm: 100, port: 3, idx: 1, mac: '0200000000b1', name: 'old-name' },
    { tm: 250, port: 3, idx: 1, mac: '0200000000b1', name: 'host-1' },
  ]);
  for (const order of [vbs, [...vbs].reverse()]) {
    const t = parseLldpTable(order);
    assert.equal(
      t.neighbours.map((n) => [n.localPort, n.sysName]),
      [[3, 'host-1']],
    );
  }
});

test('the graph: switch cables kept once, hosts by system name; an unpolled bridge, a nameless neighbour and a management-port neighbour are reported and join nothing', () => {
  const leaf = parseLldpTable([
    ...mib([
      { tm: 1, port: 1, idx: 1, mac: '0200000000cc', name: 'spine', caps: 0x20 },
      { tm: 1, port: 2, idx: 1, mac: '0200000000b1', name: 'host-1' },
      { tm: 1, port: 3, idx: 1, mac: '0200000000dd', name: 'other-switch', caps: 0x28 },
      { tm: 1, port: 4, idx: 1, mac: '0200000000b2', name: '' },
      { tm: 1, port: 5, idx: 1, mac: '0200000000ee', name: 'mgmt-switch' },
    ]),
    { oid: '1.0.8802.1.1.2.1.3.7.1.4.5', value: Buffer.from('mgmt0') },
  ]);
  const spine = parseLldpTable([
    { oid: '1.0.8802.1.1.2.1.3.1.0', value: 4 },
    { oid: '1.0.8802.1.1.2.1.3.2.0', value: Buffer.from('0200000000cc', 'hex') },
    { oid: '1.0.8802.1.1.2.1.3.3.0', value: Buffer.from('spine') },
    { oid: oid(4, 1, 9, 1), value: 4 },
    { oid: oid(5, 1, 9, 1), value: Buffer.from('0200000000aa', 'hex') },
    { oid: oid(7, 1, 9, 1), value: Buffer.from('1') },
    { oid: '1.0.8802.1.1.2.1.3.7.1.4.9', value: Buffer.from('eth0') },
  ]);
  const { graph, problems } = lldpGraph(
    [
      { address: '10.0.0.1:161', table: leaf },
      { address: '10.0.0.2:161', table: spine },
    ],
    (p) => p.startsWith('mgmt'),
  );
  assert.equal(graph.switches, [
    { id: '0200000000aa', name: 'leaf' },
    { id: '0200000000cc', name: 'spine' },
  ]);
  assert.equal(graph.hosts, [{ name: 'host-1' }]);
  assert.is(graph.links.filter((l) => l.a.kind === 'switch' && l.b.kind === 'switch').length, 1, 'the leaf-spine cable once');
  assert.is(problems.length, 3, problems.join('\n'));
  assert.match(problems.join('\n'), /switch leaf \(10\.0\.0\.1:161\) port 3: neighbour "other-switch" .* is a bridge or router that is not polled/);
  assert.match(problems.join('\n'), /port 4: neighbour a neighbour .* announces no system name/);
  assert.match(problems.join('\n'), /port mgmt0 is a management port; its neighbour "mgmt-switch"/);
});

test('two addresses of one switch: the second is reported and ignored, whatever the order', () => {
  const [a] = lab();
  for (const order of [
    [a!, { ...a!, address: 'zz' }],
    [{ ...a!, address: 'zz' }, a!],
  ]) {
    const { graph, problems } = lldpGraph(order, () => false);
    assert.is(graph.switches.length, 1);
    assert.match(problems[0]!, /report the same chassis id .* zz is ignored/);
  }
});

test.run();
