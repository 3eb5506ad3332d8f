// Fabric mode: the InfiniBand tree of one UFM fabric from its systems, links
// and port states. Unlike the legacy grouping (topology.ts), which puts every
// leaf group under one synthetic spine, this follows the cables upward:
//
// - a leaf is a switch cabled to a host (any host of the fabric, Kubernetes
//   Node or not, so a rack of non-cluster hosts cannot turn a leaf into a
//   spine); a switch's level is 1 + its hop distance to the nearest leaf;
// - level-1 groups are the leaves that share hosts (a rail-optimised scalable
//   unit: every host has one HCA on each rail leaf, so its leaves form one group);
// - level-n+1 groups are the level-n groups that share switches of level n+1,
//   so each level partitions the one below and every group has one parent,
//   although a Clos fabric gives every switch several;
// - grouping stops at a level with a single group, or when no switch is above.
//
// Links whose ports are not Active, links to unknown devices and SHARP
// aggregation nodes (which UFM lists as hosts on spines) join nothing.
//
// Names come from content, never from positions: every group, the top one
// included, is named after its tier and the lowest GUID among its own
// switches, which stays when the group grows. Adding a scalable unit therefore
// adds groups and renames none, even when it adds a tier (a lone spine group
// that gains a sibling keeps its name; the new core group gets a new one).

import type { Logger } from '../../../log.ts';
import { buildMembers, buildWithTierName } from '../../model/hypernode-builders.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import type { Snapshot } from '../../model/contracts.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../model/hypernode-types.ts';
import type { PortStates, UfmLink, UfmSystem } from './fabric-resources.ts';
import { UFM_SOURCE } from './topology.ts';

/** Which fabric (UFM endpoint) a HyperNode describes. */
export const UFM_FABRIC_LABEL = 'volcano.sh/ufm-fabric';
const AGGREGATION_NODE = 'aggregation node';
const TIER_NAMES = ['leaf', 'spine', 'core'];

export interface FabricData {
  readonly systems: readonly UfmSystem[];
  readonly links: readonly UfmLink[];
  readonly ports: PortStates;
}

/** One group of one level: its own switches (GUIDs, sorted) and the groups of the level below. */
export interface FabricGroup {
  readonly level: number;
  readonly switches: readonly string[];
  /** Host system names (level 1 only). */
  readonly hosts: readonly string[];
  readonly children: readonly FabricGroup[];
}

export interface FabricLevels {
  /** levels[0] are the leaf groups. */
  readonly levels: FabricGroup[][];
  readonly hostCount: number;
}

export function tierName(level: number): string {
  return TIER_NAMES[level - 1] ?? `tier${level}`;
}

/** Path compression over indices. */
class UnionFind {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r]!;
    while (this.parent[i] !== r) [this.parent[i], i] = [r, this.parent[i]!];
    return r;
  }
  union(a: number, b: number): void {
    this.parent[this.find(a)] = this.find(b);
  }
}

/** Groups items by their union-find root, in first-seen order. */
function components<T>(items: readonly T[], uf: UnionFind): T[][] {
  const byRoot = new Map<number, T[]>();
  items.forEach((item, i) => {
    const root = uf.find(i);
    const list = byRoot.get(root);
    if (list) list.push(item);
    else byRoot.set(root, [item]);
  });
  return [...byRoot.values()];
}

function isAggregationNode(s: UfmSystem): boolean {
  return s.description.toLowerCase().includes(AGGREGATION_NODE) || s.name.toLowerCase().includes(AGGREGATION_NODE);
}

const portGuid = (portName: string) => portName.slice(0, portName.lastIndexOf('_'));

/** The levels of groups of one fabric, bottom-up. */
export function fabricLevels(data: FabricData): FabricLevels {
  // Devices by every GUID that can appear on a link end: the system GUID and each port's GUID (a host's HCAs have their own).
  const byGuid = new Map<string, UfmSystem>();
  for (const s of data.systems) {
    if (s.guid) byGuid.set(s.guid, s);
    for (const p of s.ports) byGuid.set(portGuid(p), s);
  }
  const isSwitch = (s: UfmSystem) => s.type === 'switch';
  const isHost = (s: UfmSystem) => !isSwitch(s) && (s.type === 'host' || s.role === 'endpoint') && !isAggregationNode(s);
  const hostLeaves = new Map<UfmSystem, Set<string>>();
  const leafHosts = new Map<string, Set<string>>();
  const switchPeers = new Map<string, Set<string>>();
  const add = <K, V>(m: Map<K, Set<V>>, k: K, v: V) => {
    const set = m.get(k);
    if (set) set.add(v);
    else m.set(k, new Set([v]));
  };
  for (const { a, b } of data.links) {
    if (data.ports.get(`${a.guid}_${a.port}`) === false || data.ports.get(`${b.guid}_${b.port}`) === false) continue;
    const sa = byGuid.get(a.guid);
    const sb = byGuid.get(b.guid);
    if (!sa || !sb || sa === sb) continue;
    if (isSwitch(sa) && isSwitch(sb)) {
      add(switchPeers, sa.guid, sb.guid);
      add(switchPeers, sb.guid, sa.guid);
      continue;
    }
    const [host, sw] = isSwitch(sa) ? [sb, sa] : [sa, sb];
    if (!isSwitch(sw) || !isHost(host)) continue;
    add(hostLeaves, host, sw.guid);
    add(leafHosts, sw.guid, host.name);
  }

  // Switch levels: breadth-first from the leaves over switch-to-switch cables.
  const levelOf = new Map<string, number>();
  let frontier = [...leafHosts.keys()];
  for (const leaf of frontier) levelOf.set(leaf, 1);
  for (let level = 2; frontier.length > 0; level++) {
    const next: string[] = [];
    for (const sw of frontier) {
      for (const peer of switchPeers.get(sw) ?? []) {
        if (levelOf.has(peer)) continue;
        levelOf.set(peer, level);
        next.push(peer);
      }
    }
    frontier = next;
  }

  // Level 1: leaves that share a host.
  const leaves = [...leafHosts.keys()];
  const leafIndex = new Map(leaves.map((l, i) => [l, i]));
  const uf = new UnionFind(leaves.length);
  for (const ls of hostLeaves.values()) {
    const [first, ...rest] = [...ls];
    for (const l of rest) uf.union(leafIndex.get(first!)!, leafIndex.get(l)!);
  }
  let current: FabricGroup[] = components(leaves, uf).map((switches) => ({
    level: 1,
    switches: switches.sort(compareBytes),
    hosts: [...new Set(switches.flatMap((l) => [...leafHosts.get(l)!]))].filter((h) => h !== '').sort(compareBytes),
    children: [],
  }));
  const levels = [current];
  // Level n+1: the level-n groups that share a switch of level n+1.
  while (current.length > 1) {
    const level = current[0]!.level + 1;
    const owner = new Map<string, number>();
    const groupUf = new UnionFind(current.length);
    const reaches: Set<string>[] = current.map(() => new Set());
    current.forEach((g, i) => {
      for (const sw of g.switches) {
        for (const peer of switchPeers.get(sw) ?? []) {
          if (levelOf.get(peer) !== level) continue;
          reaches[i]!.add(peer);
          const first = owner.get(peer);
          if (first === undefined) owner.set(peer, i);
          else groupUf.union(first, i);
        }
      }
    });
    const upper = components(
      current.map((g, i) => ({ g, i })),
      groupUf,
    )
      .filter((members) => members.some(({ i }) => reaches[i]!.size > 0))
      .map((members) => ({
        level,
        switches: [...new Set(members.flatMap(({ i }) => [...reaches[i]!]))].sort(compareBytes),
        hosts: [],
        children: members.map(({ g }) => g),
      }));
    if (upper.length === 0) break;
    levels.push(upper);
    current = upper;
  }
  return { levels, hostCount: hostLeaves.size };
}

/** Maps a UFM host name to its Kubernetes Node name, or undefined when no Node matches. */
export type HostMapper = (host: string) => string | undefined;

/**
 * The fabric's HyperNodes: groups without a mapped host below them are left
 * out.
 */
export function buildFabricSnapshot(fabric: string, levels: FabricLevels, mapHost: HostMapper, logger: Logger): Snapshot {
  const labels = { [NETWORK_TOPOLOGY_SOURCE_LABEL]: UFM_SOURCE, [UFM_FABRIC_LABEL]: fabric };
  const named = new Map<FabricGroup, string>();
  const snapshot: Snapshot = [];
  for (const groups of levels.levels) {
    for (const g of groups) {
      const name = `${fabric}-${tierName(g.level)}-${g.switches[0]}`;
      const members =
        g.level === 1
          ? buildMembers([...new Set(g.hosts.map(mapHost).filter((n): n is string => n !== undefined))], 'Node')
          : buildMembers(g.children.flatMap((c) => named.get(c) ?? []), 'HyperNode');
      if (members.length === 0) continue;
      named.set(g, name);
      logger.v(4).info('Created fabric HyperNode', { name, tier: g.level, members: members.length });
      snapshot.push(buildWithTierName(name, g.level, tierName(g.level), members, labels));
    }
  }
  return snapshot;
}
