// Switch OSes as they answer in the field: the recordings in ./snmprec (one
// file per vendor form, see its README) served by the real `snmpsimd`,
// captured with the real `snmpbulkwalk -On` and walked by the source's own
// SNMP walker. Together they are one fabric: an Arista spine over seven
// leaves of seven OSes. Per device: the neighbours found equal the rows
// recorded, each neighbour is a switch, a Node or reported, and rows the
// agent left incomplete are counted. Then the whole fabric through the
// source: spine over leaves, the ConnectX NIC-firmware hosts on the AOS-CX
// leaf placed by the port MAC their OS shows (config.hostMacs), the
// unrelated neighbours named in the warning, with their chassis and port
// MACs, and in the log line that leaves them out.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedWalk } from '../../../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import { lldpFabricGraph, type PolledSwitch } from '../../../../src/hypernode/discovery/lldp/lldp-fabric-graph.ts';
import { parseLldpTable, type LldpTable } from '../../../../src/hypernode/discovery/lldp/lldp-mib.ts';
import { parseSnmpCapture } from '../../../../src/hypernode/discovery/lldp/snmp-capture.ts';
import { snmpWalker } from '../../../../src/hypernode/discovery/lldp/snmp-walker.ts';
import { nodeByMac, parseHostMacs } from '../../../../src/hypernode/discovery/lldp/host-macs.ts';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { memberNames } from '../../../../testing/hypernode-members.ts';
import { Snmpsim, snmpsimUnavailable } from '../../../../testing/snmpsim.ts';
import { testNeeding } from '../../../support/skip.ts';
import { lldpPolls } from '../../../support/lldp-polls.ts';

const RECORDINGS = join(import.meta.dirname, 'snmprec');
/** A switch serving only IEEE8021-LLDP-V2-MIB: not part of the fabric, it shows how such a switch fails. */
const V2_ONLY = 'lldp-v2-only';
const DEVICES = readdirSync(RECORDINGS)
  .filter((f) => f.endsWith('.snmprec'))
  .map((f) => f.slice(0, -'.snmprec'.length))
  .filter((d) => d !== V2_ONLY)
  .sort();
const NODES = Array.from({ length: 18 }, (_, i) => `node-${i + 1}`);
/**
 * NIC-firmware hosts announce no system name: the Junos leaf's is mapped by
 * its chassis MAC, the AOS-CX leaf's ConnectX hosts by the MAC their OS shows,
 * which ConnectX firmware sends as port id (its chassis id is that MAC + 2).
 */
const HOST_MACS = 'b8:ce:f6:00:07:01 node-7\nb8:ce:f6:00:11:01 node-17\nb8:ce:f6:00:12:01 node-18\n';
const HOST_MAPPING = { stripSuffix: '.example.net' };

/** What the source must make of each device's neighbours. */
const EXPECTED: Record<string, { switches: number; hosts: string[]; reported: RegExp[]; incomplete: number }> = {
  'arista-eos': {
    switches: 7,
    hosts: [],
    reported: [/"lab-3750e" \(chassis mac 00:19:aa:00:00:03, port Gi1\/0\/1, capabilities none\) maps to no Node/],
    incomplete: 0,
  },
  'aruba-aoscx': { switches: 1, hosts: ['node-15', 'node-16', 'node-17', 'node-18'], reported: [], incomplete: 0 },
  'cisco-nxos': { switches: 1, hosts: ['node-1', 'node-2'], reported: [], incomplete: 0 },
  'dell-os10': { switches: 1, hosts: ['node-11', 'node-12'], reported: [], incomplete: 0 },
  'dell-os9': { switches: 1, hosts: ['node-13', 'node-14'], reported: [], incomplete: 0 },
  junos: {
    switches: 1,
    hosts: ['node-10', 'node-7', 'node-9'],
    reported: [/"Mellanox ConnectX-6 Dx" \(chassis mac b8:ce:f6:00:08:01, .*\) maps to no Node/],
    incomplete: 0,
  },
  'sonic-dell': { switches: 1, hosts: ['node-3', 'node-4'], reported: [], incomplete: 0 },
  'sonic-edgecore': { switches: 1, hosts: ['node-5', 'node-6'], reported: [], incomplete: 3 },
};

/** The distinct (timeMark, local port, remote index) rows a recording holds in lldpRemTable. */
function rowsRecorded(device: string): number {
  const rows = new Set<string>();
  for (const line of readFileSync(join(RECORDINGS, `${device}.snmprec`), 'utf8').split('\n')) {
    const m = /^1\.0\.8802\.1\.1\.2\.1\.4\.1\.1\.\d+\.(\d+\.\d+\.\d+)\|/.exec(line);
    if (m) rows.add(m[1]!);
  }
  return rows.size;
}

const sim = new Snmpsim();
const captured = new Map<string, LldpTable>();
const withSnmpsim = testNeeding(snmpsimUnavailable());

test.before(async () => {
  if (snmpsimUnavailable()) return;
  await sim.start(RECORDINGS, DEVICES[0]!);
  for (const d of DEVICES) captured.set(d, parseLldpTable(parseSnmpCapture(sim.capture(d), `${d}.txt`)));
});
test.after(() => sim.close());

const polled = (): PolledSwitch[] => DEVICES.map((d) => ({ address: d, table: captured.get(d)! }));
const macs = parseHostMacs(HOST_MACS, 'hostMacs');
const nodeOf = (n: LldpTable['neighbours'][number]) => {
  const name = nodeByMac(macs, n) ?? n.sysName.replace(/\.example\.net$/, '');
  return NODES.includes(name) ? name : undefined;
};

for (const device of DEVICES) {
  withSnmpsim(
    `${device}: neighbours found = rows recorded; switches, Nodes and reports as expected; the walker reads what snmpbulkwalk captures`,
    async () => {
      const want = EXPECTED[device];
      assert.ok(want, `an expectation for ${device}`);
      const table = captured.get(device)!;
      const rows = rowsRecorded(device);
      assert.ok(rows > 0);
      assert.is(table.neighbours.length, rows, 'every recorded row is a neighbour');
      assert.is(table.incompleteRows, want.incomplete, 'rows without a chassis id, counted');
      const others = polled().filter((p) => p.address !== device);
      const { graph, problems, unidentified } = lldpFabricGraph([{ address: device, table }, ...others], {
        managementPort: () => false,
        nodeOf,
      });
      const mine = graph.links.filter(
        (l) => l.a.kind === 'switch' && l.a.id === graph.switches.find((s) => s.name === table.sysName)!.id,
      );
      const hosts = [...new Set(mine.flatMap((l) => (l.b.kind === 'host' ? [l.b.name] : [])))].sort();
      const own = problems.filter((p) => p.startsWith(`switch ${table.sysName} (${device})`));
      assert.equal(hosts, want.hosts, 'the Nodes found');
      assert.is(own.length, want.reported.length, own.join('\n'));
      for (const re of want.reported)
        assert.ok(
          own.some((p) => re.test(p)),
          `${re}: ${own.join('\n')}`,
        );
      const switchKeys = new Set(others.map((p) => p.table.chassisKey));
      const switchNames = new Set(others.map((p) => p.table.sysName));
      const isSwitch = (n: LldpTable['neighbours'][number]) =>
        n.chassisKey !== undefined ? switchKeys.has(n.chassisKey) : switchNames.has(n.sysName);
      const switchRows = table.neighbours.filter(isSwitch).length;
      const nodeRows = table.neighbours.filter((n) => !isSwitch(n) && nodeOf(n) !== undefined).length;
      assert.is(switchRows, want.switches, 'switch neighbours');
      assert.is(
        switchRows + nodeRows + own.length,
        rows,
        'every row is a switch, a Node or reported: nothing dropped unreported',
      );
      assert.is(unidentified.filter((u) => u.startsWith(`switch ${table.sysName} `)).length, want.reported.length);
      // The source's own walker over SNMP reads the same table as the capture.
      const walk = snmpWalker(
        { version: '2c', community: device },
        { timeoutMs: 2_000, retries: 1, maxRepetitions: 25, maxVarbinds: 10_000 },
      );
      assert.equal(
        parseLldpTable(await walk({ host: '127.0.0.1', port: sim.port }, AbortSignal.timeout(20_000))),
        table,
      );
    },
  );
}

withSnmpsim(
  'SONiC writes timeMark 0 in lldpRemTable and the real one in lldpRemManAddrTable: the spine keeps its management address',
  () => {
    const spine = captured.get('sonic-dell')!.neighbours.find((n) => n.sysName === 'spine-1')!;
    assert.is(spine.timeMark, 0);
    assert.equal(spine.managementAddresses, ['10.0.0.1']);
  },
);

withSnmpsim(
  'AOS-CX with ConnectX NIC-firmware LLDP: unmapped, a host is reported with its chassis MAC and the port MAC its OS shows; mapped by that port MAC, it is a Node',
  () => {
    const table = captured.get('aruba-aoscx')!;
    const unmapped = lldpFabricGraph([{ address: 'aruba-aoscx', table }], {
      managementPort: () => false,
      nodeOf: () => undefined,
    });
    assert.ok(
      unmapped.problems.includes(
        'switch leaf-7 (aruba-aoscx) port 1/1/3: neighbour a neighbour without system name (chassis mac b8:ce:f6:00:11:03, port mac b8:ce:f6:00:11:01 "ConnectX-6 Dx, 100G QSFP56", capabilities none) maps to no Node (by system name, or by chassis or port MAC in config.hostMacs); its link is ignored',
      ),
      unmapped.problems.join('\n'),
    );
    const byChassis = parseHostMacs('b8:ce:f6:00:11:03 node-17\n', 'hostMacs');
    const byPort = parseHostMacs('b8:ce:f6:00:11:01 node-17\n', 'hostMacs');
    const connectx = table.neighbours.find((n) => n.localPortName === '1/1/3')!;
    assert.is(nodeByMac(byChassis, connectx), 'node-17', 'the chassis MAC still maps');
    assert.is(nodeByMac(byPort, connectx), 'node-17', 'the MAC the OS shows maps too');
    assert.is(
      nodeByMac(byPort, captured.get('aruba-aoscx')!.neighbours.find((n) => n.localPortName === '1/1/49')!),
      undefined,
      'a switch port named by interface has no port MAC',
    );
  },
);

withSnmpsim(
  'a switch serving only IEEE8021-LLDP-V2-MIB is not read: its LLDP-MIB walk is empty and its fabric fails saying so, publishing nothing',
  async () => {
    const walk = snmpWalker(
      { version: '2c', community: V2_ONLY },
      { timeoutMs: 2_000, retries: 1, maxRepetitions: 25, maxVarbinds: 10_000 },
    );
    const at = { host: '127.0.0.1', port: sim.port };
    assert.equal(await walk(at, AbortSignal.timeout(20_000)), [], 'nothing under 1.0.8802.1.1.2.1');
    const { snapshots, problems } = await lldpPolls(
      { switches: ['10.0.0.9'], minSharedHosts: 1 },
      { walker: (_t, signal) => walk(at, signal) },
      ['node-19'],
    );
    assert.equal(snapshots, [undefined], 'no snapshot: the HyperNodes stay');
    assert.equal(problems.failures, [
      'Failed to discover LLDP fabric lldp; keeping its 0 HyperNodes: 1 switch walk(s) are not a usable LLDP-MIB: the walk holds no lldpLocChassisId (1.0.8802.1.1.2.1.3.2.0): is LLDP enabled and is the LLDP-MIB served?: 10.0.0.9:161',
    ]);
  },
);

withSnmpsim('a capture made with -Oa is refused naming the flag', () => {
  assert.throws(
    () => parseSnmpCapture(sim.capture('arista-eos', ['-On', '-Oa']), 'eos-oa.txt'),
    /eos-oa\.txt: the MAC chassis id .* -Oa/,
  );
});

withSnmpsim(
  'the whole recorded fabric through the source: the spine over seven leaves of seven OSes; the unrelated neighbours and the incomplete rows reported',
  async () => {
    const walks: CapturedWalk[] = DEVICES.map((d) => ({ address: d, varbinds: parseSnmpCapture(sim.capture(d), d) }));
    const { snapshots, problems, metrics, log } = await lldpPolls(
      { switches: ['10.0.0.1'], minSharedHosts: 1, hostMacs: HOST_MACS, hostMapping: HOST_MAPPING },
      { captured: async () => walks },
      NODES,
    );
    const snapshot = snapshots[0] ?? [];
    const spine = snapshot.filter((hn) => hn.spec.tier === 2);
    assert.is(spine.length, 1);
    assert.is(spine[0]!.metadata.name, 'lldp-spine-001c73aa0001');
    assert.is(memberNames(spine[0] as HyperNode).length, 7, 'seven leaves under the spine');
    assert.equal(
      snapshot
        .filter((hn) => hn.spec.tier === 1)
        .flatMap((hn) => memberNames(hn as HyperNode) as string[])
        .sort(),
      NODES.filter((n) => n !== 'node-8').sort(),
      'every Node but the one announcing only its NIC model',
    );
    const warning = problems.warnings.find((w) => w.startsWith('FabricMiscabled'))!;
    assert.match(warning, /lab-3750e/);
    assert.match(warning, /Mellanox ConnectX-6 Dx/);
    assert.match(
      warning,
      /switch leaf-3 \(sonic-edgecore\): 3 of 3 LLDP rows lack lldpRemChassisIdSubtype\/lldpRemChassisId/,
    );
    assert.is(metrics.incompleteRows.get('sonic-edgecore'), 3);
    assert.is(metrics.incompleteRows.has('arista-eos'), false, 'no series for a switch without incomplete rows');
    assert.is(metrics.unmapped.get('lldp'), 2, 'two neighbours neither switch nor Node');
    assert.equal(
      log.filter((l) => l.startsWith('LLDP neighbours')),
      [
        'LLDP neighbours that are neither a polled switch nor a Node are left out source="lldp" fabric="lldp" count=2 hosts="' +
          'switch leaf-4 (junos) port xe-0/0/1: neighbour \\"Mellanox ConnectX-6 Dx\\" (chassis mac b8:ce:f6:00:08:01, port mac b8:ce:f6:00:08:01, capabilities none),' +
          'switch spine-1 (arista-eos) port Ethernet8: neighbour \\"lab-3750e\\" (chassis mac 00:19:aa:00:00:03, port Gi1/0/1, capabilities none)" ' +
          'change="add a switch to the fabric\'s switches; map a host by config.hostMapping, or by its chassis or port MAC in config.hostMacs"',
      ],
      'the neighbours left out, logged once with what each is and where it is cabled',
    );
  },
);

test.run();
