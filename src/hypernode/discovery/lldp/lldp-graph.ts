// From the LLDP tables of one fabric's switches to the source-neutral fabric
// graph (../fabric/fabric-graph.ts). A neighbour whose chassis is one of the
// polled switches is a switch-to-switch cable (seen from both ends, kept
// once); any other neighbour is a host named by its LLDP system name, which
// is its hostname. Neighbours that must not become hosts join nothing and are
// reported naming the switch and port: a bridge or router that is not
// polled, a neighbour without a system name, and one on a management port.

import { compareBytes } from '../../../util/compare-bytes.ts';
import type { FabricGraph, FabricLink, FabricSwitch } from '../fabric/fabric-graph.ts';
import { CHASSIS_SUBTYPE_MAC, type LldpTable } from './lldp-mib.ts';

/** One polled switch: where it answered and what it said. */
export interface PolledSwitch {
  /** `host:port`, for reports. */
  readonly address: string;
  readonly table: LldpTable;
}

export interface LldpGraph {
  readonly graph: FabricGraph;
  /** Neighbours and switches that joined nothing, each message naming the switch, port and neighbour. */
  readonly problems: readonly string[];
}

const MAC_BYTES = 6;

/** A group-name fragment: a MAC chassis id as 12 hex digits, else the system name as a DNS-1123 fragment. */
export function switchId(table: LldpTable): string {
  if (table.chassisSubtype === CHASSIS_SUBTYPE_MAC && table.chassisHex.length === MAC_BYTES * 2) return table.chassisHex;
  const fromName = table.sysName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return fromName || table.chassisHex.slice(0, 40);
}

/** Builds the graph; `managementPort` says which local ports are management ports. */
export function lldpGraph(polled: readonly PolledSwitch[], managementPort: (portName: string) => boolean): LldpGraph {
  const problems: string[] = [];
  // Sorted by address so a duplicate is resolved the same way whatever the answer order.
  const ordered = [...polled].sort((a, b) => compareBytes(a.address, b.address));
  const byChassis = new Map<string, FabricSwitch & { address: string }>();
  const ids = new Set<string>();
  for (const p of ordered) {
    const id = switchId(p.table);
    const have = byChassis.get(p.table.chassisKey);
    if (have) {
      problems.push(`switches ${have.address} and ${p.address} report the same chassis id ${p.table.chassisHex}; ${p.address} is ignored (listed twice under two addresses?)`);
      continue;
    }
    if (ids.has(id)) {
      problems.push(`switch ${p.address} (${p.table.sysName || p.table.chassisHex}) has the id ${id} of another switch; it is ignored`);
      continue;
    }
    ids.add(id);
    byChassis.set(p.table.chassisKey, { id, name: p.table.sysName || id, address: p.address });
  }
  const links: FabricLink[] = [];
  const switchLinks = new Set<string>();
  const hosts = new Set<string>();
  for (const p of ordered) {
    const self = byChassis.get(p.table.chassisKey);
    if (!self || self.address !== p.address) continue;
    const where = `switch ${self.name} (${p.address})`;
    for (const n of p.table.neighbours) {
      const peer = byChassis.get(n.chassisKey);
      if (peer) {
        if (peer === self) continue;
        const ends = [`${self.id}/${n.localPortName}`, `${peer.id}/${n.portName}`].sort(compareBytes);
        // The cable is in both switches' tables; its far end in one names the near port of the other.
        const key = ends.join(' ');
        if (switchLinks.has(key)) continue;
        switchLinks.add(key);
        links.push({ a: { kind: 'switch', id: self.id, port: n.localPortName }, b: { kind: 'switch', id: peer.id, port: n.portName } });
        continue;
      }
      const who = `${n.sysName ? `"${n.sysName}"` : 'a neighbour'} (chassis ${n.chassisKey.slice(n.chassisKey.indexOf(':') + 1)}, port ${n.portName || '?'})`;
      if (managementPort(n.localPortName)) {
        problems.push(`${where} port ${n.localPortName} is a management port; its neighbour ${who} is ignored`);
      } else if (n.networkDevice) {
        problems.push(`${where} port ${n.localPortName}: neighbour ${who} is a bridge or router that is not polled; add it to the fabric's switches, or its link is ignored`);
      } else if (n.sysName === '') {
        problems.push(`${where} port ${n.localPortName}: neighbour ${who} announces no system name, so it cannot be mapped to a Node; its link is ignored`);
      } else {
        hosts.add(n.sysName);
        links.push({ a: { kind: 'switch', id: self.id, port: n.localPortName }, b: { kind: 'host', name: n.sysName, port: n.portName } });
      }
    }
  }
  const switches = [...byChassis.values()].map(({ id, name }) => ({ id, name })).sort((a, b) => compareBytes(a.id, b.id));
  return { graph: { switches, hosts: [...hosts].sort(compareBytes).map((name) => ({ name })), links }, problems };
}
