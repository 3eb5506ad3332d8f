// The switches' LLDP tables of a generated fat tree (testing/fat-tree.ts):
// what every switch of that fabric would serve over SNMP if the hosts ran
// lldpd, as rows (for the SNMP stand-in) and as walk varbinds (for the
// property tests). Shared by the tests and the benchmark. A switch's chassis
// id is a MAC made from its GUID (kind byte + low 5 bytes), hosts announce
// their system name and "bridge, router" as Kubernetes nodes do (IPv4
// forwarding, a CNI bridge), switches "bridge"; timeMarks and remote indices
// start at 1 and callers permute them as they please.

import { Buffer } from 'node:buffer';
import type { MibVarbind } from '../src/hypernode/discovery/lldp/lldp-mib.ts';
import type { FatTree } from './fat-tree.ts';

export const CAP_BRIDGE = 0x20;
export const CAP_STATION = 0x01;
export const CAP_ROUTER = 0x08;
/** What a Kubernetes node's lldpd announces: Router (ip_forward=1) and Bridge (cni0). */
export const CAP_KUBERNETES_NODE = CAP_BRIDGE | CAP_ROUTER;
const LOC = '1.0.8802.1.1.2.1.3';
const REM = '1.0.8802.1.1.2.1.4.1.1';
const MAN_ADDR = '1.0.8802.1.1.2.1.4.2.1';

export interface LldpNeighbourRow {
  readonly timeMark: number;
  readonly localPort: number;
  readonly remIndex: number;
  readonly chassis: Buffer;
  readonly portId: string;
  readonly sysName: string;
  readonly capEnabled: number;
}

/** One switch's LLDP-MIB content. */
export interface SwitchLldp {
  readonly name: string;
  /** The id the lldp source gives it (its MAC chassis id as hex). */
  readonly id: string;
  readonly chassis: Buffer;
  /** Local port number → name. */
  readonly ports: Map<number, string>;
  readonly neighbours: LldpNeighbourRow[];
}

/** A 6-byte MAC from a 16-hex-digit GUID: the kind byte and the low five bytes. */
function guidMac(guid: string): Buffer {
  return Buffer.from(guid.slice(2, 4) + guid.slice(6), 'hex');
}

/** Every switch's LLDP tables, in the switches' order in the tree. */
export function lldpSwitches(tree: FatTree): SwitchLldp[] {
  const systems = new Map<string, { name: string; type: string }>();
  for (const s of tree.systems)
    systems.set(String(s.system_guid), { name: String(s.system_name), type: String(s.type) });
  const switches = new Map<string, SwitchLldp>();
  for (const [guid, s] of systems) {
    if (s.type === 'switch')
      switches.set(guid, {
        name: s.name,
        id: guidMac(guid).toString('hex'),
        chassis: guidMac(guid),
        ports: new Map(),
        neighbours: [],
      });
  }
  for (const p of tree.ports) {
    const sw = switches.get(String(p.systemID));
    if (!sw || p.logical_state !== 'Active' || p.peer_node_guid === 'N/A') continue;
    const peerGuid = String(p.peer_node_guid);
    const peer = systems.get(peerGuid);
    if (!peer) continue;
    const port = Number(p.number);
    const peerPort = String(p.peer).slice(String(p.peer).lastIndexOf('_') + 1);
    sw.ports.set(port, `swp${port}`);
    sw.neighbours.push({
      timeMark: 1,
      localPort: port,
      remIndex: sw.neighbours.length + 1,
      chassis: guidMac(peerGuid),
      portId: peer.type === 'switch' ? `swp${peerPort}` : `eth${peerPort}`,
      sysName: peer.name,
      capEnabled: peer.type === 'switch' ? CAP_BRIDGE : CAP_KUBERNETES_NODE,
    });
  }
  return [...switches.values()];
}

/**
 * The varbinds a walk of the switch's LLDP-MIB returns (in OID order per
 * column, as an agent answers); `addressOf` gives a neighbour's IPv4
 * management address by its chassis id (hex), for lldpRemManAddrTable.
 */
export function lldpVarbinds(sw: SwitchLldp, addressOf?: (chassisHex: string) => string | undefined): MibVarbind[] {
  const out: MibVarbind[] = [
    { oid: `${LOC}.1.0`, value: 4 },
    { oid: `${LOC}.2.0`, value: sw.chassis },
    { oid: `${LOC}.3.0`, value: Buffer.from(sw.name) },
  ];
  for (const [port, name] of sw.ports)
    out.push(
      { oid: `${LOC}.7.1.2.${port}`, value: 5 },
      { oid: `${LOC}.7.1.3.${port}`, value: Buffer.from(name) },
      { oid: `${LOC}.7.1.4.${port}`, value: Buffer.from(name) },
    );
  for (const n of sw.neighbours) {
    const index = `${n.timeMark}.${n.localPort}.${n.remIndex}`;
    out.push(
      { oid: `${REM}.4.${index}`, value: 4 },
      { oid: `${REM}.5.${index}`, value: n.chassis },
      { oid: `${REM}.6.${index}`, value: 5 },
      { oid: `${REM}.7.${index}`, value: Buffer.from(n.portId) },
      { oid: `${REM}.9.${index}`, value: Buffer.from(n.sysName) },
      { oid: `${REM}.11.${index}`, value: Buffer.from([CAP_BRIDGE | CAP_STATION]) },
      { oid: `${REM}.12.${index}`, value: Buffer.from([n.capEnabled]) },
    );
    const address = addressOf?.(n.chassis.toString('hex'));
    // lldpRemManAddrIfSubtype, indexed by the row, address subtype 1 (IPv4), length 4 and the address.
    if (address) out.push({ oid: `${MAN_ADDR}.3.${index}.1.4.${address}`, value: 2 });
  }
  return out;
}
