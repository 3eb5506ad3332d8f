// Fabric mode's producer: one UFM fabric's systems, links and port states as
// the source-neutral fabric graph (discovery/fabric/fabric-graph.ts), which
// the fabric layer turns into tiers of HyperNodes. Unlike the legacy grouping
// (legacy-topology.ts), which puts every leaf group under one synthetic spine, the
// layer follows the cables upward.
//
// What UFM-specific reading happens here: a link end names a system GUID or
// one of its port GUIDs (a host's HCAs have their own); links whose ports are
// not Active, links to unknown devices and SHARP aggregation nodes (which UFM
// lists as hosts on spines) are left out; a host without a name cannot match
// a Node and is left out too. Switches are named by system GUID, hosts by
// system name. Sliced work (sliced-work.ts), a step a system or a link: a
// 9,216-tray fabric lists 10,496 systems and 106,496 links.

import { isAggregationNode } from '../fabric/aggregation-nodes.ts';
import type { FabricGraph, FabricHost, FabricLink, FabricSwitch } from '../fabric/fabric-graph.ts';
import type { PortStates, UfmLink, UfmSystem } from './fabric-resources.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';

export interface FabricData {
  readonly systems: readonly UfmSystem[];
  readonly links: readonly UfmLink[];
  readonly ports: PortStates;
}

const portGuid = (portName: string) => portName.slice(0, portName.lastIndexOf('_'));
const isSwitch = (s: UfmSystem) => s.type === 'switch';
const isHost = (s: UfmSystem) =>
  !isSwitch(s) &&
  (s.type === 'host' || s.role === 'endpoint') &&
  !isAggregationNode(s.description) &&
  !isAggregationNode(s.name) &&
  s.name !== '';

/**
 * The fabric graph of one UFM fabric: switches, hosts and the host–switch and switch–switch links whose ports are
 * Active.
 */
export const ufmFabricGraph = (data: FabricData): FabricGraph => runWhole(ufmFabricGraphSteps(data));

/** ufmFabricGraph as sliced work. */
export function* ufmFabricGraphSteps(data: FabricData): SlicedWork<FabricGraph> {
  // Devices by every GUID that can appear on a link end: the system GUID and each port's GUID.
  const byGuid = new Map<string, UfmSystem>();
  for (const s of data.systems) {
    if (s.guid) byGuid.set(s.guid, s);
    for (const p of s.ports) byGuid.set(portGuid(p), s);
    yield;
  }
  const switches: FabricSwitch[] = data.systems
    .filter((s) => isSwitch(s) && s.guid !== '')
    .map((s) => ({ id: s.guid, name: s.name }));
  const hosts: FabricHost[] = [...new Set(data.systems.filter(isHost).map((s) => s.name))].map((name) => ({ name }));
  const links: FabricLink[] = [];
  for (const { a, b } of data.links) {
    yield;
    if (data.ports.get(`${a.guid}_${a.port}`) === false || data.ports.get(`${b.guid}_${b.port}`) === false) continue;
    const sa = byGuid.get(a.guid);
    const sb = byGuid.get(b.guid);
    if (!sa || !sb || sa === sb) continue;
    if (isSwitch(sa) && isSwitch(sb)) {
      links.push({
        a: { kind: 'switch', id: sa.guid, port: a.port },
        b: { kind: 'switch', id: sb.guid, port: b.port },
      });
      continue;
    }
    const [host, sw, hostPort, swPort] = isSwitch(sa) ? [sb, sa, b.port, a.port] : [sa, sb, a.port, b.port];
    if (!isSwitch(sw) || !isHost(host)) continue;
    links.push({
      a: { kind: 'host', name: host.name, port: hostPort },
      b: { kind: 'switch', id: sw.guid, port: swPort },
    });
  }
  return { switches, hosts, links };
}
