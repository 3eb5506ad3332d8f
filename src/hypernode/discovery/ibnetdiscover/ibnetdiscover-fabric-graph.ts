// From one subnet as ibnetdiscover printed it to the source-neutral fabric
// graph (../fabric/fabric-graph.ts). Switches are named by node GUID (16
// lower-case hex digits, a DNS-1123 fragment) and, for people, by their
// description (ib-node-names.ts). A node the node-name-map names
// (ib-node-name-map.ts) is read with that name for its description, as
// infiniband-diags print it. Each CA is, in this order:
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
import { isAggregationNode } from '../fabric/aggregation-nodes.ts';
import type { HostMapper } from '../fabric/host-mapping.ts';
import type { HostGuids } from './host-guids.ts';
import type { NodeNames } from './ib-node-name-map.ts';
import { caName, switchName, type CaName } from './ib-node-names.ts';
import type { IbSubnet } from './ib-subnet.ts';

/** How CAs become hosts and hosts become Nodes. */
export interface IbHostRules {
  readonly hostGuids: HostGuids;
  /** Names that stand for node descriptions, by node GUID (the node-name-map's). */
  readonly nodeNames: NodeNames;
  /** CAs whose description names a device word this does not find join nothing (undefined: every CA counts). */
  readonly hcas?: RE2JS;
  /** A host name → its Node (config.hostMapping over the Nodes). */
  readonly nodeOf: HostMapper;
  /** Whether a Node of this name exists (hostGuids names Nodes directly). */
  readonly isNode: (name: string) => boolean;
}

export interface IbnetdiscoverFabricGraph {
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

/** A switch port's name, made once per number. */
const SWITCH_PORTS: readonly string[] = Array.from({ length: 256 }, (_, p) => String(p));

const guidText = (guid: string) => `0x${guid}`;

function hostGuidNode(subnet: IbSubnet, ca: number, hostGuids: HostGuids): string | undefined {
  if (hostGuids.size === 0) return undefined;
  const byNode = hostGuids.get(subnet.guid(ca));
  if (byNode !== undefined) return byNode;
  for (const portGuid of subnet.portGuids(ca)) {
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

/**
 * Host port names (`mlx5_3/1`): tens of thousands of HCAs share a few device
 * words, so each name is made once and shared by every HCA that has it.
 */
class PortNames {
  private readonly byLabel = new Map<string, string[]>();

  of(label: string, port: number): string {
    let byPort = this.byLabel.get(label);
    if (!byPort) this.byLabel.set(label, (byPort = []));
    byPort[port] ??= `${label}/${port}`;
    return byPort[port];
  }
}

/**
 * The CAs of a subnet that describe themselves `<host> <device>`, by host and device: two of one description are two
 * machines.
 */
class Descriptions {
  private readonly byHost = new Map<string, Map<string, number[]>>();

  add(ca: number, name: CaName | undefined): void {
    if (name?.device === undefined) return;
    let byDevice = this.byHost.get(name.host);
    if (!byDevice) this.byHost.set(name.host, (byDevice = new Map()));
    const cas = byDevice.get(name.device);
    if (cas) cas.push(ca);
    else byDevice.set(name.device, [ca]);
  }

  /** The other CAs described as `name` says (a few test boxes, if any). */
  twins(ca: number, name: CaName | undefined): number[] {
    if (name?.device === undefined) return [];
    return (this.byHost.get(name.host)?.get(name.device) ?? []).filter((other) => other !== ca);
  }
}

/** The fabric graph of one subnet, with what joined no Node. */
export function ibnetdiscoverFabricGraph(subnet: IbSubnet, rules: IbHostRules): IbnetdiscoverFabricGraph {
  const switches: FabricSwitch[] = [];
  /** Each node's id when it is a switch. */
  const switchIds: (string | undefined)[] = new Array(subnet.nodeCount);
  const cas: number[] = [];
  /** What each CA's description names (by CA, as `cas`). */
  const names: (CaName | undefined)[] = [];
  // A GUID is made into text for a map only when there is one: a large fabric has 10^5 CAs.
  const mapped = (n: number) => (rules.nodeNames.size > 0 ? rules.nodeNames.get(subnet.guid(n)) : undefined);
  const described = new Descriptions();
  let routers = 0;
  let aggregationNodes = 0;
  for (let n = 0; n < subnet.nodeCount; n++) {
    const kind = subnet.kind(n);
    if (kind === 'router') {
      routers++;
      continue;
    }
    const printed = subnet.description(n);
    const description = mapped(n) ?? printed;
    if (kind === 'switch') {
      const id = subnet.guid(n);
      switchIds[n] = id;
      switches.push({ id, name: switchName(description) || id });
    } else if (isAggregationNode(printed)) aggregationNodes++;
    else {
      const name = caName(description);
      cas.push(n);
      names.push(name);
      described.add(n, name);
    }
  }

  // Tens of thousands of HCAs share a few device words and a few thousand host names: each is matched once.
  const counts = memoize((device: string) => rules.hcas!.matcher(device).find());
  const nodeOf = memoize(rules.nodeOf);
  /**
   * Each CA's host and the label of its ports (its device word, else its GUID), by node number; CAs of no host are
   * absent.
   */
  const hostOf: (string | undefined)[] = new Array(subnet.nodeCount);
  const labelOf: (string | undefined)[] = new Array(subnet.nodeCount);
  const nodes = new Set<string>();
  const notNodes = new Set<string>();
  const unnamed: string[] = [];
  let otherHcas = 0;
  /** A CA's own host, for a CA that joins no host of others: its GUID. */
  const own = (ca: number) => guidText(subnet.guid(ca));
  cas.forEach((ca, i) => {
    const name = names[i];
    labelOf[ca] = name?.device ?? own(ca);
    if (rules.hcas && name?.device !== undefined && !counts(name.device)) {
      otherHcas++;
      hostOf[ca] = own(ca);
      return;
    }
    const byGuid = hostGuidNode(subnet, ca, rules.hostGuids);
    if (byGuid !== undefined) {
      (rules.isNode(byGuid) ? nodes : notNodes).add(byGuid);
      hostOf[ca] = byGuid;
      return;
    }
    const twins = described.twins(ca, name);
    if (!name || twins.length > 0) {
      const why = name
        ? `its description is also that of ${twins.map((t) => guidText(subnet.guid(t))).join(' and ')}`
        : 'its description names no host';
      unnamed.push(`${own(ca)} (${JSON.stringify(mapped(ca) ?? subnet.description(ca))}: ${why})`);
      hostOf[ca] = own(ca);
      return;
    }
    const node = nodeOf(name.host);
    if (node === undefined) notNodes.add(name.host);
    else nodes.add(node);
    hostOf[ca] = node ?? name.host;
  });

  const ports = new PortNames();
  const end = (n: number, port: number): FabricLinkEnd | undefined => {
    const id = switchIds[n];
    if (id !== undefined) return { kind: 'switch', id, port: SWITCH_PORTS[port]! };
    const host = hostOf[n];
    return host === undefined ? undefined : { kind: 'host', name: host, port: ports.of(labelOf[n]!, port) };
  };
  const { links: cables } = subnet;
  const links: FabricLink[] = [];
  for (let c = 0; c < cables.count; c++) {
    const a = end(cables.a[c]!, cables.aPort[c]!);
    const b = end(cables.b[c]!, cables.bPort[c]!);
    if (a && b) links.push({ a, b });
  }
  const hosts: FabricHost[] = [...new Set(cas.map((ca) => hostOf[ca]!))].map((name) => ({ name }));
  return {
    graph: { switches, hosts, links },
    nodes,
    notNodes: [...notNodes].sort(compareBytes),
    unnamed: unnamed.sort(compareBytes),
    skipped: { aggregationNodes, routers, otherHcas },
  };
}
