// From one subnet as ibnetdiscover printed it to the source-neutral fabric
// graph (../fabric/fabric-graph.ts). Switches are named by node GUID (16
// lower-case hex digits, a DNS-1123 fragment) and, for people, by their
// description (ib-node-names.ts). Each CA is, in this order:
//
// - nothing, when it is a SHARP aggregation node (every Quantum switch hosts
//   one; taken for a host it would make every switch a leaf) or a router;
// - a CA of a plane that does not count, when `hcas` is set and the device
//   word its description names does not match: a host of its own that joins
//   nothing, so a storage HCA keeps its leaf a leaf but never merges that leaf
//   with the compute units of its host (a CA that names no device cannot be
//   told apart and goes on below);
// - its Node from `hostGuids` (by node or port GUID), whatever it describes;
// - unnamed, when its description is empty or the firmware's default, or
//   when another CA describes itself the same way (`localhost mlx5_0` on two
//   test boxes: two machines, not one): a host of its own, reported with its
//   GUID and the hostGuids line that would place it;
// - else the host its description names (the first word), mapped to a Node
//   through hostMapping; a host that is no Node (the SM server, a box named
//   `ubuntu`) stays in the graph, so its leaf stays a leaf, and is reported.

import type { RE2JS } from 're2js';
import { compareBytes } from '../../../util/compare-bytes.ts';
import type { FabricGraph, FabricHost, FabricLink, FabricLinkEnd, FabricSwitch } from '../fabric/fabric-graph.ts';
import type { HostMapper } from '../fabric/host-mapping.ts';
import type { HostGuids } from './host-guids.ts';
import { caName, isAggregationNode, switchName, type CaName } from './ib-node-names.ts';
import type { IbNode, IbSubnet } from './ibnetdiscover-output.ts';

/** How CAs become hosts and hosts become Nodes. */
export interface IbHostRules {
  readonly hostGuids: HostGuids;
  /** CAs whose description names a device word this does not find join nothing (undefined: every CA counts). */
  readonly hcas?: RE2JS;
  /** A host name → its Node (config.hostMapping over the Nodes). */
  readonly nodeOf: HostMapper;
  /** Whether a Node of this name exists (hostGuids names Nodes directly). */
  readonly isNode: (name: string) => boolean;
}

export interface IbFabricGraph {
  /** Hosts are named by their Node names when they are Nodes. */
  readonly graph: FabricGraph;
  /** The graph's hosts that are Nodes. */
  readonly nodes: ReadonlySet<string>;
  /** Hosts that are no Node, sorted: the names their HCAs describe, or hostGuids gives. */
  readonly notNodes: readonly string[];
  /** CAs without a usable host name, each `0x<guid> ("<description>")` and why, sorted. */
  readonly unnamed: readonly string[];
  /** What joined no host: SHARP aggregation nodes, routers, CAs outside config.hcas. */
  readonly skipped: { readonly aggregationNodes: number; readonly routers: number; readonly otherHcas: number };
}

/** One CA as the graph sees it: the host it is part of, and its ports' names there (`mlx5_3/1`, the GUID for a CA without a device word). */
interface CaHost {
  readonly host: string;
  readonly label: string;
  /** Port names made so far, by port number (a CA has one or two). */
  readonly ports: string[];
}

/** A switch port's name, made once per number. */
const SWITCH_PORTS: readonly string[] = Array.from({ length: 256 }, (_, p) => String(p));

const guidText = (guid: string) => `0x${guid}`;

function hostGuidNode(ca: IbNode, hostGuids: HostGuids): string | undefined {
  if (hostGuids.size === 0) return undefined;
  const byNode = hostGuids.get(ca.guid);
  if (byNode !== undefined) return byNode;
  for (const portGuid of ca.portGuids) {
    const byPort = hostGuids.get(portGuid);
    if (byPort !== undefined) return byPort;
  }
  return undefined;
}

/** `fn` answering each argument once. */
function memoize<T>(fn: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    if (known.has(key)) return known.get(key)!;
    const value = fn(key);
    known.set(key, value);
    return value;
  };
}

/** The fabric graph of one subnet, with what joined no Node. */
export function ibFabricGraph(subnet: IbSubnet, rules: IbHostRules): IbFabricGraph {
  const switches: FabricSwitch[] = [];
  const cas: IbNode[] = [];
  let routers = 0;
  let aggregationNodes = 0;
  for (const node of subnet.nodes.values()) {
    if (node.kind === 'switch') switches.push({ id: node.guid, name: switchName(node.description) || node.guid });
    else if (node.kind === 'router') routers++;
    else if (isAggregationNode(node.description)) aggregationNodes++;
    else cas.push(node);
  }

  // Descriptions two CAs share cannot say which machine is which.
  const names = new Map(cas.map((ca) => [ca, caName(ca.description)]));
  const describedKey = (name: CaName | undefined) => (name?.device === undefined ? undefined : `${name.host} ${name.device}`);
  const described = new Map<string, number>();
  for (const name of names.values()) {
    const key = describedKey(name);
    if (key !== undefined) described.set(key, (described.get(key) ?? 0) + 1);
  }
  /** The other CAs described as `ca` is (a few test boxes, if any). */
  const twinsOf = (ca: IbNode) => cas.filter((other) => other !== ca && describedKey(names.get(other)) === describedKey(names.get(ca)));

  // Tens of thousands of HCAs share a few device words and a few thousand host names: each is matched once.
  const counts = memoize((device: string) => rules.hcas!.matcher(device).find());
  const nodeOf = memoize(rules.nodeOf);
  const hostOf = new Map<string, CaHost>();
  const nodes = new Set<string>();
  const notNodes = new Set<string>();
  const unnamed: string[] = [];
  let otherHcas = 0;
  for (const ca of cas) {
    const name = names.get(ca);
    const label = name?.device ?? guidText(ca.guid);
    const own: CaHost = { host: guidText(ca.guid), label, ports: [] };
    const byGuid = hostGuidNode(ca, rules.hostGuids);
    if (rules.hcas && name?.device !== undefined && !counts(name.device)) {
      otherHcas++;
      hostOf.set(ca.guid, own);
      continue;
    }
    if (byGuid !== undefined) {
      (rules.isNode(byGuid) ? nodes : notNodes).add(byGuid);
      hostOf.set(ca.guid, { host: byGuid, label, ports: [] });
      continue;
    }
    const shared = (described.get(describedKey(name) ?? '') ?? 0) > 1;
    if (!name || shared) {
      const why = name
        ? `its description is also that of ${twinsOf(ca)
            .map((t) => guidText(t.guid))
            .join(' and ')}`
        : 'its description names no host';
      unnamed.push(`${guidText(ca.guid)} (${JSON.stringify(ca.description)}: ${why})`);
      hostOf.set(ca.guid, own);
      continue;
    }
    const node = nodeOf(name.host);
    if (node === undefined) notNodes.add(name.host);
    else nodes.add(node);
    hostOf.set(ca.guid, { host: node ?? name.host, label, ports: [] });
  }

  const end = (guid: string, port: number): FabricLinkEnd | undefined => {
    if (subnet.nodes.get(guid)!.kind === 'switch') return { kind: 'switch', id: guid, port: SWITCH_PORTS[port]! };
    const host = hostOf.get(guid);
    if (!host) return undefined;
    host.ports[port] ??= `${host.label}/${port}`;
    return { kind: 'host', name: host.host, port: host.ports[port] };
  };
  const links: FabricLink[] = [];
  for (const link of subnet.links) {
    const a = end(link.a, link.aPort);
    const b = end(link.b, link.bPort);
    if (a && b) links.push({ a, b });
  }
  const hosts: FabricHost[] = [...new Set([...hostOf.values()].map((h) => h.host))].map((name) => ({ name }));
  return {
    graph: { switches, hosts, links },
    nodes,
    notNodes: [...notNodes].sort(compareBytes),
    unnamed: unnamed.sort(compareBytes),
    skipped: { aggregationNodes, routers, otherHcas },
  };
}
