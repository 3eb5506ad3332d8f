// The switches' LLDP-MIB walks of a generated fat tree (testing/fat-tree.ts):
// what every switch of that fabric would serve over SNMP if the hosts ran
// lldpd, as varbinds. Shared by the property tests, the in-process SNMP
// stand-in and the benchmark. A switch's chassis id is a MAC made from its
// GUID (kind byte + low 5 bytes), hosts announce their system name and
// "station", switches "bridge"; timeMarks and remote indices start at 1 and
// callers permute them as they please.

import { Buffer } from 'node:buffer';
import type { MibVarbind } from '../src/hypernode/discovery/lldp/lldp-mib.ts';
import type { FatTree } from './fat-tree.ts';

const LOC = '1.0.8802.1.1.2.1.3';
const REM = '1.0.8802.1.1.2.1.4.1.1';
const CAP_BRIDGE = 0x20;
const CAP_STATION = 0x01;

/** One switch: its system name and walk. */
export interface SwitchWalk {
  readonly name: string;
  /** The id the lldp source gives it (its MAC chassis id as hex). */
  readonly id: string;
  readonly varbinds: MibVarbind[];
}

/** A 6-byte MAC from a 16-hex-digit GUID: the kind byte and the low five bytes. */
export function guidMac(guid: string): Buffer {
  return Buffer.from(guid.slice(2, 4) + guid.slice(6), 'hex');
}

/** Every switch's LLDP-MIB walk, in the switches' order in the tree. */
export function lldpWalks(tree: FatTree): SwitchWalk[] {
  const systems = new Map<string, { name: string; type: string }>();
  for (const s of tree.systems) systems.set(String(s.system_guid), { name: String(s.system_name), type: String(s.type) });
  const walks = new Map<string, SwitchWalk & { remIndex: number }>();
  for (const [guid, s] of systems) {
    if (s.type !== 'switch') continue;
    walks.set(guid, {
      name: s.name,
      id: guidMac(guid).toString('hex'),
      remIndex: 0,
      varbinds: [
        { oid: `${LOC}.1.0`, value: 4 },
        { oid: `${LOC}.2.0`, value: guidMac(guid) },
        { oid: `${LOC}.3.0`, value: Buffer.from(s.name) },
      ],
    });
  }
  for (const p of tree.ports) {
    const walk = walks.get(String(p.systemID));
    if (!walk || p.logical_state !== 'Active' || p.peer_node_guid === 'N/A') continue;
    const peerGuid = String(p.peer_node_guid);
    const peer = systems.get(peerGuid);
    if (!peer) continue;
    const port = Number(p.number);
    const index = `1.${port}.${++walk.remIndex}`;
    const peerPort = String(p.peer).slice(String(p.peer).lastIndexOf('_') + 1);
    walk.varbinds.push(
      { oid: `${LOC}.7.1.2.${port}`, value: 5 },
      { oid: `${LOC}.7.1.3.${port}`, value: Buffer.from(`swp${port}`) },
      { oid: `${LOC}.7.1.4.${port}`, value: Buffer.from(`swp${port}`) },
      { oid: `${REM}.4.${index}`, value: 4 },
      { oid: `${REM}.5.${index}`, value: guidMac(peerGuid) },
      { oid: `${REM}.6.${index}`, value: 5 },
      { oid: `${REM}.7.${index}`, value: Buffer.from(peer.type === 'switch' ? `swp${peerPort}` : `eth${peerPort}`) },
      { oid: `${REM}.9.${index}`, value: Buffer.from(peer.name) },
      { oid: `${REM}.11.${index}`, value: Buffer.from([CAP_BRIDGE | CAP_STATION]) },
      { oid: `${REM}.12.${index}`, value: Buffer.from([peer.type === 'switch' ? CAP_BRIDGE : CAP_STATION]) },
    );
  }
  return [...walks.values()].map(({ name, id, varbinds }) => ({ name, id, varbinds }));
}
