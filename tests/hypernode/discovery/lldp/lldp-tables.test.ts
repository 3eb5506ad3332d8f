// Reading LLDP-MIB walks: the capture format of `snmpbulkwalk -On` (every
// value form, byte-losing options refused), one switch's tables (every
// (timeMark, port, index) row kept, canonical ids), and the graph of a fabric
// where identity, not capability bits, decides who is a host.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSnmpCapture } from '../../../../src/hypernode/discovery/lldp/snmp-capture.ts';
import { parseLldpTable } from '../../../../src/hypernode/discovery/lldp/lldp-mib.ts';
import {
  lldpFabricGraph,
  switchId,
  type PolledSwitch,
} from '../../../../src/hypernode/discovery/lldp/lldp-fabric-graph.ts';

const CAPTURES = join(import.meta.dirname, '../../../cmd/lldp-capture');
const lab = (): PolledSwitch[] =>
  readdirSync(CAPTURES)
    .sort()
    .map((f) => ({ address: f, table: parseLldpTable(parseSnmpCapture(readFileSync(join(CAPTURES, f), 'utf8'), f)) }));

test('a capture from the real lab: the leaf, its chassis, its two spines and three hosts', () => {
  const leaf = lab().find((p) => p.address === 'leaf-su1-r1.txt')!.table;
  assert.is(leaf.sysName, 'leaf-su1-r1');
  assert.is(leaf.chassisKey, '02aa00030001');
  assert.is(switchId(leaf), '02aa00030001');
  assert.equal(leaf.neighbours.map((n) => n.sysName).sort(), [
    'spine-1',
    'spine-2',
    'su1-h1.fabric.example.com',
    'su1-h2.fabric.example.com',
    'su1-h3.fabric.example.com',
  ]);
  assert.equal(
    leaf.neighbours.map((n) => n.networkDevice),
    leaf.neighbours.map((n) => n.sysName.startsWith('spine')),
    'switches announce bridge, hosts station',
  );
  assert.ok(
    leaf.neighbours.every((n) => n.managementAddresses.length === 1 && n.localPortName !== '' && n.portName !== ''),
  );
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
    [
      '1.0.8802.1.1.2.1.3.1.0',
      '1.0.8802.1.1.2.1.3.2.0',
      '1.0.8802.1.1.2.1.3.3.0',
      '1.0.8802.1.1.2.1.3.4.0',
      '1.0.8802.1.1.2.1.3.5.0',
    ],
  );
  assert.is(vbs[0]!.value, 4);
  assert.is((vbs[1]!.value as Buffer).toString('hex'), '001122334455');
  assert.is(String(vbs[2]!.value), 'sw "one"');
  assert.is(String(vbs[3]!.value), 'line one\nline two');
  assert.throws(
    () => parseSnmpCapture('.1.3.6 = INTEGER: 1\nsnmpbulkwalk: Timeout\n', 'sw2'),
    /sw2:2: not a line of `snmpbulkwalk -On` output/,
  );
  assert.throws(
    () => parseLldpTable(parseSnmpCapture('.1.3.6.1.2.1.1.5.0 = STRING: "x"\n', 'sw3')),
    /no lldpLocChassisId/,
  );
});

test('value forms with and without MIBs loaded: BITS with bit names, Hex-STRING with -OT text, named INTEGER; the capabilities read the same', () => {
  const row = '1.0.8802.1.1.2.1.4.1.1';
  const head = [
    '.1.0.8802.1.1.2.1.3.1.0 = INTEGER: macAddress(4)',
    '.1.0.8802.1.1.2.1.3.2.0 = Hex-STRING: 00 11 22 33 44 55  [.."3DU]',
  ];
  const neighbour = (caps: string) => [
    `.${row}.4.0.1.1 = INTEGER: macAddress(4)`,
    `.${row}.5.0.1.1 = STRING: "74:86:e2:0a:0c:04"`,
    `.${row}.9.0.1.1 = STRING: "spine-a"`,
    `.${row}.12.0.1.1 = ${caps}`,
  ];
  const read = (caps: string) =>
    parseLldpTable(parseSnmpCapture([...head, ...neighbour(caps), ''].join('\n'), 'sw')).neighbours[0]!;
  for (const caps of ['BITS: 28 00 bridge(2) router(4) ', 'Hex-STRING: 28 00 ']) {
    const n = read(caps);
    assert.equal(n.capabilities, ['bridge', 'router'], caps);
    assert.is(n.chassisKey, '7486e20a0c04');
  }
});

test('captures whose options lose bytes or types are refused, the flag named', () => {
  const oa = ['.1.0.8802.1.1.2.1.3.1.0 = INTEGER: 4', '.1.0.8802.1.1.2.1.3.2.0 = STRING: "t..\n.."', ''].join('\n');
  assert.throws(() => parseSnmpCapture(oa, 'oa'), /capture was made with -Oa, which replaces bytes with '\.'/);
  assert.throws(() => parseSnmpCapture('.1.0.8802.1.1.2.1.3.3.0 = "leaf-1"\n', 'oq'), /oq:1: .* captured with -OQ/);
  assert.throws(
    () => parseSnmpCapture('.1.0.8802.1.1.2.1.3.3.0 "leaf-1"\n', 'q'),
    /q:1: a line without "= TYPE:" \(captured with -Oq, -OQ or -Ov/,
  );
  assert.throws(
    () => parseSnmpCapture('LLDP-MIB::lldpLocSysName.0 = STRING: leaf\n', 's'),
    /s:1: a symbolic OID: capture with -On/,
  );
  // Six printable bytes are printed as a STRING without -Oa too: that MAC is kept.
  const printable = parseSnmpCapture(
    ['.1.0.8802.1.1.2.1.3.1.0 = INTEGER: 4', '.1.0.8802.1.1.2.1.3.2.0 = STRING: "ABCDEF"', ''].join('\n'),
    'p',
  );
  assert.is(parseLldpTable(printable).chassisKey, '414243444546');
});

const oid = (col: number, tm: number, port: number, idx: number) =>
  `1.0.8802.1.1.2.1.4.1.1.${col}.${tm}.${port}.${idx}`;
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

test('every (timeMark, port, index) row is a neighbour: two neighbours on one port and index under two timeMarks are both kept, in any order', () => {
  const vbs = mib([
    { tm: 100, port: 3, idx: 1, mac: '0200000000b1', name: 'host-1' },
    { tm: 250, port: 3, idx: 1, mac: '0200000000b2', name: 'host-2' },
  ]);
  for (const order of [vbs, [...vbs].reverse()]) {
    const t = parseLldpTable(order);
    assert.equal(
      t.neighbours.map((n) => [n.localPort, n.timeMark, n.sysName]),
      [
        [3, 100, 'host-1'],
        [3, 250, 'host-2'],
      ],
    );
  }
});

test('management addresses join on the full index, and on port and index when the switch writes another timeMark there (SONiC: 0 in lldpRemTable)', () => {
  const manAddr = (tm: number, port: number, idx: number, ip: number[]) => ({
    oid: `1.0.8802.1.1.2.1.4.2.1.3.${tm}.${port}.${idx}.1.4.${ip.join('.')}`,
    value: 2,
  });
  const t = parseLldpTable([
    ...mib([
      { tm: 0, port: 7, idx: 1, mac: '0200000000cc', name: 'spine', caps: 0x28 },
      { tm: 5, port: 8, idx: 1, mac: '0200000000dd', name: 'spine-2', caps: 0x28 },
    ]),
    manAddr(8123, 7, 1, [10, 0, 0, 7]),
    manAddr(5, 8, 1, [10, 0, 0, 8]),
    { oid: '1.0.8802.1.1.2.1.4.2.1.3.5.8.1.2.16.32.1.13.184.0.0.0.0.0.0.0.0.0.0.0.1', value: 2 },
  ]);
  assert.equal(
    t.neighbours.map((n) => [n.sysName, n.managementAddresses]),
    [
      ['spine', ['10.0.0.7']],
      ['spine-2', ['10.0.0.8', '2001:db8::1']],
    ],
  );
});

test('a row without a chassis id is kept and counted; it is identified by its system name', () => {
  const vbs = mib([{ tm: 1, port: 2, idx: 1, mac: '0200000000b1', name: 'host-1', caps: 0x28 }]).filter(
    (v) => !/^1\.0\.8802\.1\.1\.2\.1\.4\.1\.1\.[45]\./.test(v.oid),
  );
  const t = parseLldpTable(vbs);
  assert.is(t.incompleteRows, 1);
  assert.is(t.neighbours.length, 1);
  assert.is(t.neighbours[0]!.chassisKey, undefined);
  const { graph } = lldpFabricGraph([{ address: 'a', table: t }], {
    managementPort: () => false,
    nodeOf: (n) => (n.sysName === 'host-1' ? 'node-1' : undefined),
  });
  assert.equal(graph.hosts, [{ name: 'node-1' }]);
});

test('the graph: hosts by identity whatever their capabilities (Router and Bridge, as Kubernetes nodes announce); a neighbour neither polled nor a Node and a management-port neighbour are reported with chassis, port and capabilities', () => {
  const leaf = parseLldpTable([
    ...mib([
      { tm: 1, port: 1, idx: 1, mac: '0200000000cc', name: 'spine', caps: 0x20 },
      { tm: 1, port: 2, idx: 1, mac: '0200000000b1', name: 'host-1', caps: 0x28 },
      { tm: 1, port: 3, idx: 1, mac: '0200000000dd', name: 'other-switch', caps: 0x28 },
      { tm: 1, port: 4, idx: 1, mac: '0200000000b2', name: '' },
      { tm: 1, port: 5, idx: 1, mac: '0200000000ee', name: 'mgmt-switch' },
      { tm: 1, port: 6, idx: 1, mac: '0200000000b3', name: 'Intel(R) Ethernet Controller E810-C', caps: 0x00 },
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
  const macs = new Map([['0200000000b3', 'node-3']]);
  const { graph, problems, unidentified } = lldpFabricGraph(
    [
      { address: '10.0.0.1:161', table: leaf },
      { address: '10.0.0.2:161', table: spine },
    ],
    {
      managementPort: (labels) => labels.some((l) => l.startsWith('mgmt')),
      nodeOf: (n) => (n.sysName === 'host-1' ? 'node-1' : n.chassisKey && macs.get(n.chassisKey)),
    },
  );
  assert.equal(graph.switches, [
    { id: '0200000000aa', name: 'leaf' },
    { id: '0200000000cc', name: 'spine' },
  ]);
  assert.equal(
    graph.hosts,
    [{ name: 'node-1' }, { name: 'node-3' }],
    'a Router+Bridge host by name, a NIC-firmware host by MAC',
  );
  assert.is(
    graph.links.filter((l) => l.a.kind === 'switch' && l.b.kind === 'switch').length,
    1,
    'the leaf-spine cable once',
  );
  assert.is(problems.length, 3, problems.join('\n'));
  assert.is(unidentified.length, 2);
  assert.match(
    problems.join('\n'),
    /switch leaf \(10\.0\.0\.1:161\) port 3: neighbour "other-switch" \(chassis mac 02:00:00:00:00:dd, port eth0, capabilities bridge,router\) is no polled switch and maps to no Node/,
  );
  assert.match(
    problems.join('\n'),
    /port 4: neighbour a neighbour without system name \(chassis mac 02:00:00:00:00:b2, port eth0, capabilities stationOnly\) maps to no Node/,
  );
  assert.match(problems.join('\n'), /port mgmt0 is a management port; its neighbour "mgmt-switch"/);
});

test('two addresses of one switch: the second is reported and ignored, whatever the order', () => {
  const [a] = lab();
  for (const order of [
    [a!, { ...a!, address: 'zz' }],
    [{ ...a!, address: 'zz' }, a!],
  ]) {
    const { graph, problems } = lldpFabricGraph(order, { managementPort: () => false, nodeOf: () => undefined });
    assert.is(graph.switches.length, 1);
    assert.match(problems[0]!, /report the same chassis id .* zz is ignored/);
  }
});

test.run();
