// From the LLDP tables of one fabric's switches to the source-neutral fabric
// graph (../fabric/fabric-graph.ts). Who a neighbour is comes from its
// identity, never from the capabilities it announces (a Kubernetes node with
// IPv4 forwarding announces Router, one with a CNI bridge Bridge):
//
// - a neighbour whose chassis is one of the polled switches is a
//   switch-to-switch cable (seen from both ends, kept once); a row without a
//   chassis id matches a polled switch by its system name;
// - otherwise it is a host when it maps to a Kubernetes Node, by its chassis
//   MAC or MAC-type port id (config.hostMacs) or by its system name
//   (config.hostMapping);
// - anything else joins nothing and is named in the report (switch, port,
//   chassis, system name, capabilities), as is a neighbour on a management
//   port. So a switch's tier comes from its switch links and its Nodes: an
//   unrelated neighbour on a spine cannot turn it into a leaf.

import { compareBytes } from '../../../util/compare-bytes.ts';
import type { FabricGraph, FabricLink, FabricSwitch } from '../fabric/fabric-graph.ts';
import { hostsOnSpines } from '../fabric/hosts-on-spines.ts';
import { Buffer } from 'node:buffer';
import { describeChassis, macHex, macText } from './lldp-ids.ts';
import type { LldpNeighbour, LldpTable } from './lldp-mib.ts';

/** One polled switch: where it answered and what it said. */
export interface PolledSwitch {
  /** `host:port`, for reports. */
  readonly address: string;
  readonly table: LldpTable;
}

/** How a neighbour that is no polled switch is recognised as a Node. */
export interface LldpIdentity {
  /** Whether a local port is a management port, given its id and description. */
  readonly managementPort: (names: readonly string[]) => boolean;
  /** The Node a neighbour is, by chassis MAC or system name; undefined when it is no Node. */
  readonly nodeOf: (n: LldpNeighbour) => string | undefined;
}

export interface LldpFabricGraph {
  /** Hosts are named by their Node names. */
  readonly graph: FabricGraph;
  /** Neighbours and switches that joined nothing, each message naming the switch, port and neighbour. */
  readonly problems: readonly string[];
  /** Neighbours that are neither a polled switch nor a Node (management ports aside), described for the report. */
  readonly unidentified: readonly string[];
}

/** A group-name fragment: a MAC chassis id as 12 hex digits, else the system name as a DNS-1123 fragment. */
export function switchId(table: LldpTable): string {
  const mac = macHex(table.chassisKey);
  if (mac) return mac;
  const fragment = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '');
  return fragment(table.sysName) || fragment(table.chassisKey);
}

/**
 * `"name" (chassis mac 02:.., port eth0, capabilities bridge,router)`:
 * everything an operator needs to find it, and both MACs config.hostMacs
 * matches (`port mac 02:.. "ConnectX-6 Dx"` when the port id is a MAC,
 * with the port's description).
 */
function describeNeighbour(n: LldpNeighbour): string {
  const chassis = n.chassisKey === undefined ? 'no chassis id' : `chassis ${describeChassis(n.chassisKey)}`;
  const caps = n.capabilities.length > 0 ? n.capabilities.join(',') : 'none';
  const portMac = n.portMac === undefined ? undefined : macText(Buffer.from(n.portMac, 'hex'));
  const port =
    portMac === undefined
      ? `port ${n.portName || '?'}`
      : `port mac ${portMac}${n.portName && n.portName !== portMac ? ` "${n.portName}"` : ''}`;
  return `${n.sysName ? `"${n.sysName}"` : 'a neighbour without system name'} (${chassis}, ${port}, capabilities ${caps})`;
}

/** Builds the graph from the polled switches' tables. */
export function lldpFabricGraph(polled: readonly PolledSwitch[], identity: LldpIdentity): LldpFabricGraph {
  const problems: string[] = [];
  const unidentified: string[] = [];
  // Sorted by address so a duplicate is resolved the same way whatever the answer order.
  const ordered = [...polled].sort((a, b) => compareBytes(a.address, b.address));
  const byChassis = new Map<string, FabricSwitch & { address: string }>();
  const bySysName = new Map<string, (FabricSwitch & { address: string }) | null>();
  const ids = new Set<string>();
  for (const p of ordered) {
    const id = switchId(p.table);
    const have = byChassis.get(p.table.chassisKey);
    if (have) {
      problems.push(
        `switches ${have.address} and ${p.address} report the same chassis id ${describeChassis(p.table.chassisKey)}; ${p.address} is ignored (listed twice under two addresses?)`,
      );
      continue;
    }
    if (ids.has(id)) {
      problems.push(
        `switch ${p.address} (${p.table.sysName || describeChassis(p.table.chassisKey)}) has the id ${id} of another switch; it is ignored`,
      );
      continue;
    }
    ids.add(id);
    const sw = { id, name: p.table.sysName || id, address: p.address };
    byChassis.set(p.table.chassisKey, sw);
    // Two switches sharing a system name make the name useless as an identity: null marks it ambiguous.
    if (p.table.sysName) bySysName.set(p.table.sysName, bySysName.has(p.table.sysName) ? null : sw);
  }
  const links: FabricLink[] = [];
  const switchLinks = new Set<string>();
  const hosts = new Set<string>();
  for (const p of ordered) {
    const self = byChassis.get(p.table.chassisKey);
    if (!self || self.address !== p.address) continue;
    const where = `switch ${self.name} (${p.address})`;
    for (const n of p.table.neighbours) {
      const peer =
        n.chassisKey !== undefined
          ? byChassis.get(n.chassisKey)
          : n.sysName
            ? (bySysName.get(n.sysName) ?? undefined)
            : undefined;
      if (peer) {
        if (peer === self) continue;
        const ends = [`${self.id}/${n.localPortName}`, `${peer.id}/${n.portName}`].sort(compareBytes);
        // The cable is in both switches' tables; its far end in one names the near port of the other.
        const key = ends.join(' ');
        if (switchLinks.has(key)) continue;
        switchLinks.add(key);
        links.push({
          a: { kind: 'switch', id: self.id, port: n.localPortName },
          b: { kind: 'switch', id: peer.id, port: n.portName },
        });
        continue;
      }
      if (identity.managementPort([n.localPortId, n.localPortDescription])) {
        problems.push(
          `${where} port ${n.localPortName} is a management port; its neighbour ${describeNeighbour(n)} is ignored`,
        );
        continue;
      }
      const node = identity.nodeOf(n);
      if (node !== undefined) {
        hosts.add(node);
        links.push({
          a: { kind: 'switch', id: self.id, port: n.localPortName },
          b: { kind: 'host', name: node, port: n.portName },
        });
        continue;
      }
      const who = `${where} port ${n.localPortName}: neighbour ${describeNeighbour(n)}`;
      unidentified.push(who);
      problems.push(
        n.networkDevice
          ? `${who} is no polled switch and maps to no Node; if it is a switch of this fabric add it to the fabric's switches, if it is a Node add its system name mapping or its chassis or port MAC to config.hostMacs; its link is ignored`
          : `${who} maps to no Node (by system name, or by chassis or port MAC in config.hostMacs); its link is ignored`,
      );
    }
  }
  const switches = [...byChassis.values()]
    .map(({ id, name }) => ({ id, name }))
    .sort((a, b) => compareBytes(a.id, b.id));
  problems.push(...hostsOnSpines(links, new Map(switches.map((sw) => [sw.id, sw.name]))));
  return {
    graph: { switches, hosts: [...hosts].sort(compareBytes).map((name) => ({ name })), links },
    problems,
    unidentified,
  };
}
