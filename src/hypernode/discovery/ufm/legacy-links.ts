// Fabric health for UFM legacy mode (docs/health.md, FabricHealthy): each
// Computer port that is up is a cable from its host to its leaf switch
// (peer_node_name, port peer_port_dname), remembered by the link memory
// (fabric/link-memory.ts) as fabric mode's links are. When the port goes down
// UFM still lists it, Active no more and with its peer fields `N/A`; Volcano
// would group the host under a leaf named `N/A`. Within the grace period the
// remembered cable stands in for that port instead, so the grouping, and with
// it every HyperNode byte, stays that of the last good poll; past it the port
// counts as Go counts it and the topology follows through the ordinary reconcile.

import type { Logger } from '../../../log.ts';
import type { Snapshot } from '../../model/contracts.ts';
import type { FabricGraph, FabricLink } from '../fabric/fabric-graph.ts';
import type { LinkMemory } from '../fabric/link-memory.ts';
import type { UfmPort } from './legacy-ports.ts';
import { COMPUTER_PORT, isComputerPort, legacyTree } from './legacy-topology.ts';

/** UFM's word for a peer field of a port without a peer. */
const NO_PEER = 'N/A';

/** The host end's port: its display name, else its number. */
const hostPort = (p: UfmPort) => p.dname || (p.number === undefined ? '' : String(p.number));
const hostEndKey = (host: string, port: string) => `${host}\u0000${port}`;

/** A Computer port with a named peer whose logical state is Active (or not reported, as in Go's answers). */
function isUp(p: UfmPort): boolean {
  const state = p.logical_state?.toLowerCase();
  return (
    p.peer_node_name !== '' &&
    p.peer_node_name !== NO_PEER &&
    (state === undefined || state === '' || state === 'active')
  );
}

/**
 * The cables of the Computer ports that are up: host end to leaf switch end (switches are named, so a name is their
 * id).
 */
function legacyLinkGraph(ports: readonly UfmPort[]): FabricGraph {
  const links: FabricLink[] = [];
  const leaves = new Set<string>();
  const hosts = new Set<string>();
  for (const p of ports) {
    if (!isComputerPort(p) || !isUp(p)) continue;
    links.push({
      a: { kind: 'host', name: p.system_name, port: hostPort(p) },
      b: { kind: 'switch', id: p.peer_node_name, port: p.peer_port_dname ?? '' },
    });
    leaves.add(p.peer_node_name);
    hosts.add(p.system_name);
  }
  return { switches: [...leaves].map((id) => ({ id, name: id })), hosts: [...hosts].map((name) => ({ name })), links };
}

/**
 * The legacy snapshot of `ports` with the cables missing within the grace
 * period (`missing`) put back in place of their ports, and which leaf
 * HyperNode holds each leaf switch.
 */
function recalledTree(ports: readonly UfmPort[], missing: readonly FabricLink[], logger: Logger) {
  if (missing.length === 0) return legacyTree(ports, logger);
  const recalled = new Set<string>();
  const standIns: UfmPort[] = [];
  for (const { a, b } of missing) {
    const [host, leaf] = a.kind === 'host' ? [a, b] : [b, a];
    if (host.kind !== 'host' || leaf.kind !== 'switch') continue;
    recalled.add(hostEndKey(host.name, host.port));
    standIns.push({
      description: COMPUTER_PORT,
      tier: 0,
      system_name: host.name,
      node_description: '',
      peer_node_name: leaf.id,
    });
  }
  const kept = ports.filter(
    (p) => !isComputerPort(p) || isUp(p) || !recalled.has(hostEndKey(p.system_name, hostPort(p))),
  );
  return legacyTree([...kept, ...standIns], logger);
}

/** Legacy mode's snapshot through the link memory: reports missing cables on the leaf HyperNodes of their switches. */
export function rememberedLegacySnapshot(
  memory: LinkMemory,
  fabric: string,
  ports: readonly UfmPort[],
  logger: Logger,
): Snapshot {
  return memory.remembered(fabric, legacyLinkGraph(ports), (_graph, missing) => recalledTree(ports, missing, logger))
    .snapshot;
}
