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
import { caName, isAggregationNode, switchName } from './ib-node-names.ts';
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

/** One CA as the graph sees it: the host it is part of and the name of its ports there. */
interface CaHost {
  readonly host: string;
  /** `mlx5_3`, or the GUID when the description names no device: a port is `<this>/<port>`. */
  readonly label: string;
}

const guidText = (guid: string) => `0x${guid}`;

function hostGuidNode(ca: IbNode, hostGuids: HostGuids): string | undefined {
  const byNode = hostGuids.get(ca.guid);
  if (byNode !== undefined) return byNode;
  for (const portGuid of ca.portGuids.values()) {
    const byPort = hostGuids.get(portGuid);
    if (byPort !== undefined) return byPort;
  }
  return undefined;
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
  const described = new Map<string, IbNode[]>();
  for (const ca of cas) {
    const name = caName(ca.description);
    if (name?.device === undefined) continue;
    const key = `${name.host} ${name.device}`;
    const list = described.get(key);
    if (list) list.push(ca);
    else described.set(key, [ca]);
  }

  const hostOf = new Map<string, CaHost>();
  const nodes = new Set<string>();
  const notNodes = new Set<string>();
  const unnamed: string[] = [];
  let otherHcas = 0;
  for (const ca of cas) {
    const name = caName(ca.description);
    const own = { host: guidText(ca.guid), label: name?.device ?? guidText(ca.guid) };
    const byGuid = hostGuidNode(ca, rules.hostGuids);
    if (rules.hcas && name?.device !== undefined && !rules.hcas.matcher(name.device).find()) {
      otherHcas++;
      hostOf.set(ca.guid, own);
      continue;
    }
    if (byGuid !== undefined) {
      (rules.isNode(byGuid) ? nodes : notNodes).add(byGuid);
      hostOf.set(ca.guid, { host: byGuid, label: own.label });
      continue;
    }
    const twins = name?.device === undefined ? undefined : described.get(`${name.host} ${name.device}`);
    if (!name || (twins && twins.length > 1)) {
      const why = name
        ? `its description is also that of ${twins!
            .filter((t) => t !== ca)
            .map((t) => guidText(t.guid))
            .join(' and ')}`
        : 'its description names no host';
      unnamed.push(`${guidText(ca.guid)} (${JSON.stringify(ca.description)}: ${why})`);
      hostOf.set(ca.guid, own);
      continue;
    }
    const node = rules.nodeOf(name.host);
    if (node === undefined) notNodes.add(name.host);
    else nodes.add(node);
    hostOf.set(ca.guid, { host: node ?? name.host, label: own.label });
  }

  const kindOf = new Map([...subnet.nodes.values()].map((n) => [n.guid, n.kind]));
  const end = (guid: string, port: number): FabricLinkEnd | undefined => {
    if (kindOf.get(guid) === 'switch') return { kind: 'switch', id: guid, port: String(port) };
    const host = hostOf.get(guid);
    return host && { kind: 'host', name: host.host, port: `${host.label}/${port}` };
  };
  const links: FabricLink[] = [];
  for (const link of subnet.links) {
    const a = end(link.a.node, link.a.port);
    const b = end(link.b.node, link.b.port);
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
