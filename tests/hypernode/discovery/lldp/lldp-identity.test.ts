// Who is a host is decided by identity, not by capability bits, through the
// whole lldp source (captured walks in, snapshot and warnings out): an Arista
// spine (MAC chassis ids as 6 bytes) over an Arista leaf and a SONiC leaf
// (its own and its neighbours' MACs as text), Kubernetes hosts announcing
// Router and Bridge, and a Cisco neighbour announcing no capabilities on the
// spine. The tree is spine over both leaves and the Cisco is named.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Buffer } from 'node:buffer';
import type { CapturedWalk } from '../../../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import type { Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import {
  CAP_BRIDGE,
  CAP_KUBERNETES_NODE,
  CAP_ROUTER,
  lldpVarbinds,
  type LldpNeighbourRow,
  type SwitchLldp,
} from '../../../../testing/lldp-fabric.ts';
import { memberNames } from '../../../../testing/hypernode-members.ts';
import { lldpPolls } from '../../../support/lldp-polls.ts';

const SPINE_MAC = '001c73aa0001';
const ARISTA_LEAF_MAC = '001c73bb0002';
/** The SONiC leaf's base MAC, which it and its peers' tables print as text. */
const SONIC_LEAF_MAC = '7486e20a0c04';
const bin = (hex: string) => Buffer.from(hex, 'hex');
const text = (hex: string) => Buffer.from(hex.match(/../g)!.join(':'));

const row = (
  localPort: number,
  chassis: Buffer,
  portId: string,
  sysName: string,
  capEnabled: number,
): LldpNeighbourRow => ({
  timeMark: 0,
  localPort,
  remIndex: localPort,
  chassis,
  portId,
  sysName,
  capEnabled,
});
const ports = (n: number, prefix: string) => new Map(Array.from({ length: n }, (_, i) => [i + 1, `${prefix}${i + 1}`]));

function fabric(sonicChassis: (hex: string) => Buffer): SwitchLldp[] {
  const spine: SwitchLldp = {
    name: 'spine-1',
    id: SPINE_MAC,
    chassis: bin(SPINE_MAC),
    ports: ports(3, 'Ethernet'),
    neighbours: [
      row(1, bin(ARISTA_LEAF_MAC), 'Ethernet49', 'leaf-a', CAP_BRIDGE),
      // SONiC sends its chassis as text; an Arista stores what it received.
      row(2, sonicChassis(SONIC_LEAF_MAC), 'Ethernet0', 'leaf-b', CAP_BRIDGE | CAP_ROUTER),
      // A real Cisco 3750E row on an Arista: enabled capabilities 00.
      row(3, bin('0019aa000003'), 'Gi1/0/1', 'lab-3750e', 0),
    ],
  };
  /** A leaf whose port 1 (named as the spine's table names it) goes up to the spine and ports 2.. to its hosts. */
  const leaf = (
    name: string,
    chassis: Buffer,
    uplink: string,
    spinePort: string,
    hosts: string[],
    firstHostMac: number,
  ): SwitchLldp => ({
    name,
    id: '',
    chassis,
    ports: new Map([...ports(3, 'Ethernet'), [1, uplink]]),
    neighbours: [
      row(1, bin(SPINE_MAC), spinePort, 'spine-1', CAP_BRIDGE),
      ...hosts.map((h, i) =>
        row(
          i + 2,
          bin(`0202000000${(firstHostMac + i).toString(16).padStart(2, '0')}`),
          'eth0',
          h,
          CAP_KUBERNETES_NODE,
        ),
      ),
    ],
  });
  const a = leaf('leaf-a', bin(ARISTA_LEAF_MAC), 'Ethernet49', 'Ethernet1', ['node-1', 'node-2'], 1);
  const b = leaf('leaf-b', text(SONIC_LEAF_MAC), 'Ethernet0', 'Ethernet2', ['node-3', 'node-4'], 5);
  return [spine, a, b];
}

const firstRun = async (walks: readonly CapturedWalk[]) => {
  const { snapshots, problems } = await lldpPolls(
    { switches: ['10.0.0.1'], minSharedHosts: 1 },
    { captured: async () => walks },
    ['node-1', 'node-2', 'node-3', 'node-4'],
  );
  return { snapshot: snapshots[0], problems };
};

const shape = (snapshot: Snapshot | undefined) =>
  (snapshot ?? [])
    .map(
      (hn) =>
        `${hn.metadata.name} tier ${hn.spec.tier}: ${(memberNames(hn as HyperNode) as string[]).sort().join(',')}`,
    )
    .sort();

test('a spine over an Arista leaf and a SONiC leaf (binary vs text MACs), Router+Bridge hosts, a capability-less neighbour on the spine: spine over leaves, the neighbour named', async () => {
  for (const sonic of [text, bin]) {
    const walks = fabric(sonic).map((sw) => ({ address: sw.name, varbinds: lldpVarbinds(sw) }));
    const { snapshot, problems } = await firstRun(walks);
    assert.equal(
      shape(snapshot),
      [
        `lldp-leaf-${ARISTA_LEAF_MAC} tier 1: node-1,node-2`,
        `lldp-leaf-${SONIC_LEAF_MAC} tier 1: node-3,node-4`,
        `lldp-spine-${SPINE_MAC} tier 2: lldp-leaf-${ARISTA_LEAF_MAC},lldp-leaf-${SONIC_LEAF_MAC}`,
      ],
      `the SONiC chassis as ${sonic === text ? 'text' : 'bytes'}`,
    );
    const warnings = problems.warnings.join('\n');
    assert.match(
      warnings,
      /FabricMiscabled: fabric lldp: 1 .*switch spine-1 \(spine-1\) port Ethernet3: neighbour "lab-3750e" \(chassis mac 00:19:aa:00:00:03, port Gi1\/0\/1, capabilities none\) maps to no Node/,
    );
    assert.not.match(warnings, /leaf-b|node-\d/, 'the SONiC leaf and the hosts are not reported');
    assert.equal(problems.failures, []);
  }
});

test('a Node cabled to the spine makes it a leaf: the lost tier is reported, naming the spine, its Node and the leaves', async () => {
  const [spine, ...leaves] = fabric(text);
  spine!.neighbours.push(row(4, bin('020200000009'), 'eth0', 'node-9', CAP_KUBERNETES_NODE));
  const walks = [spine!, ...leaves].map((sw) => ({ address: sw.name, varbinds: lldpVarbinds(sw) }));
  const { snapshots, problems } = await lldpPolls(
    { switches: ['10.0.0.1'], minSharedHosts: 1 },
    { captured: async () => walks },
    ['node-1', 'node-2', 'node-3', 'node-4', 'node-9'],
  );
  assert.ok(
    shape(snapshots[0]).every((hn) => / tier 1: /.test(hn)),
    shape(snapshots[0]).join('\n'),
  );
  assert.match(
    problems.warnings.join('\n'),
    /switch spine-1 is cabled to hosts \(node-9\) and to 2 switches cabled to hosts \(leaf-a, leaf-b\): it counts as a leaf, so no tier sits over them; if it is a spine, cable its hosts to leaves/,
  );
});

test('rows without a chassis id are counted per switch and named once; the count goes back to 0 once the agent serves the column', async () => {
  const full = fabric(text).map((sw) => ({ address: sw.name, varbinds: lldpVarbinds(sw) }));
  const chassisColumns = /^1\.0\.8802\.1\.1\.2\.1\.4\.1\.1\.[45]\./;
  const stripped = full.map((w) =>
    w.address === 'leaf-b' ? { ...w, varbinds: w.varbinds.filter((v) => !chassisColumns.test(v.oid)) } : w,
  );
  let poll = 0;
  const { snapshots, problems, metrics } = await lldpPolls(
    { switches: ['10.0.0.1'], minSharedHosts: 1 },
    { captured: async () => (poll++ === 0 ? stripped : full) },
    ['node-1', 'node-2', 'node-3', 'node-4'],
    2,
  );
  assert.equal(
    shape(snapshots[0]),
    shape(snapshots[1]),
    "the same tree: leaf-b's neighbours are identified by system name",
  );
  assert.is(
    problems.warnings.filter((w) => /switch leaf-b \(leaf-b\): 3 of 3 LLDP rows lack lldpRemChassisId/.test(w)).length,
    1,
    problems.warnings.join('\n'),
  );
  assert.is(metrics.incompleteRows.get('leaf-b'), 0, 'set at the first poll, back to 0 at the second');
});

test.run();
