// The levels of groups of one fabric graph, bottom-up. A tree is read from the
// cables, never from names or positions:
//
// - a leaf is a switch cabled to a host (any host of the fabric, Kubernetes
//   Node or not, so a rack of non-cluster hosts cannot turn a leaf into a
//   spine); a switch's level is 1 + its hop distance to the nearest leaf;
// - level-1 groups are the leaves that share hosts (a rail-optimised scalable
//   unit: every host has one adapter on each rail leaf, so its leaves form one
//   group); with `minSharedHosts` above 1, two leaves join only when that many
//   hosts share them, so one miscabled host cannot merge two units: it is
//   reported and placed in the group holding most of its leaves;
// - level-n+1 groups are the level-n groups that share switches of level n+1,
//   so each level partitions the one below and every group has one parent,
//   although a Clos fabric gives every switch several;
// - grouping stops at a level with a single group, or when no switch is above.
//
// Links the graph cannot place (an end naming no switch or host of the graph,
// a switch cabled to itself, two hosts cabled together) join nothing and are
// returned as problems for the producer to report.
//
// Written as sliced work (sliced-work.ts), a step a link or a host: a GB200
// fabric of 9,216 trays has 106,496 links, and the controller groups it on
// the thread that renews the Lease.

import { compareBytes } from '../../../util/compare-bytes.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';
import type { FabricGraph, FabricLinkEnd } from './fabric-graph.ts';

/** One group of one level: its own switches (ids, sorted) and the groups of the level below. */
export interface FabricGroup {
  readonly level: number;
  readonly switches: readonly string[];
  /** Host names (level 1 only), sorted. */
  readonly hosts: readonly string[];
  readonly children: readonly FabricGroup[];
}

/** Something in the graph that joined no group, or joined one by choice; `message` names the switch, port or host. */
export interface FabricProblem {
  readonly kind: 'unknown-end' | 'self-link' | 'host-to-host' | 'split-host';
  readonly message: string;
}

export interface FabricLevels {
  /** levels[0] are the leaf groups. */
  readonly levels: FabricGroup[][];
  /** Hosts cabled to a leaf, Node or not. */
  readonly hostCount: number;
  readonly problems: readonly FabricProblem[];
}

export interface FabricLevelOptions {
  /** Hosts two leaves must share to join one level-1 group; 1 (the default) joins on any shared host. */
  readonly minSharedHosts?: number;
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

function add<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  const set = m.get(k);
  if (set) set.add(v);
  else m.set(k, new Set([v]));
}

const describeEnd = (e: FabricLinkEnd) =>
  e.kind === 'switch' ? `switch ${e.id} port ${e.port}` : `host ${e.name} port ${e.port}`;

/**
 * Unions the leaves that share hosts. With a threshold above 1 only leaf
 * pairs sharing that many hosts join, and each host whose leaves still span
 * several groups is kept in one of them (most of its leaves, then the lowest
 * switch id) and reported. Returns each level-1 group's leaves and hosts.
 */
function* leafGroups(
  leafHosts: Map<string, Set<string>>,
  hostLeaves: Map<string, Set<string>>,
  minShared: number,
  problems: FabricProblem[],
): SlicedWork<{ switches: string[]; hosts: Set<string> }[]> {
  const leaves = [...leafHosts.keys()];
  const leafIndex = new Map(leaves.map((l, i) => [l, i]));
  const uf = new UnionFind(leaves.length);
  if (minShared <= 1) {
    for (const ls of hostLeaves.values()) {
      const [first, ...rest] = [...ls];
      for (const l of rest) uf.union(leafIndex.get(first!)!, leafIndex.get(l)!);
      yield;
    }
  } else {
    const shared = new Map<string, number>();
    for (const ls of hostLeaves.values()) {
      const idx = [...ls].map((l) => leafIndex.get(l)!).sort((x, y) => x - y);
      for (let i = 0; i < idx.length; i++) {
        for (let j = i + 1; j < idx.length; j++) {
          const key = `${idx[i]},${idx[j]}`;
          const n = (shared.get(key) ?? 0) + 1;
          shared.set(key, n);
          if (n === minShared) uf.union(idx[i]!, idx[j]!);
        }
      }
      yield;
    }
  }
  const groups = components(leaves, uf).map((switches) => ({
    switches: switches.sort(compareBytes),
    hosts: new Set<string>(),
  }));
  const groupOf = new Map<string, (typeof groups)[number]>();
  for (const g of groups) for (const l of g.switches) groupOf.set(l, g);
  for (const [host, ls] of hostLeaves) {
    yield;
    const counts = new Map<(typeof groups)[number], number>();
    for (const l of ls) counts.set(groupOf.get(l)!, (counts.get(groupOf.get(l)!) ?? 0) + 1);
    if (counts.size === 1) {
      counts.keys().next().value!.hosts.add(host);
      continue;
    }
    const ranked = [...counts].sort(([ga, na], [gb, nb]) => nb - na || compareBytes(ga.switches[0]!, gb.switches[0]!));
    const home = ranked[0]![0];
    home.hosts.add(host);
    problems.push({
      kind: 'split-host',
      message: `host ${host} is cabled to the leaves of ${counts.size} groups (${ranked.map(([g]) => g.switches.join('+')).join(', ')}); they stay apart and the host joins the group of ${home.switches.join('+')}`,
    });
  }
  return groups;
}

/** The levels of groups of one fabric, bottom-up. */
export const fabricLevels = (graph: FabricGraph, options: FabricLevelOptions = {}): FabricLevels =>
  runWhole(fabricLevelsSteps(graph, options));

/** fabricLevels as sliced work. */
export function* fabricLevelsSteps(graph: FabricGraph, options: FabricLevelOptions = {}): SlicedWork<FabricLevels> {
  const problems: FabricProblem[] = [];
  const switches = new Set(graph.switches.map((s) => s.id));
  const hosts = new Set(graph.hosts.map((h) => h.name));
  const known = (e: FabricLinkEnd) => (e.kind === 'switch' ? switches.has(e.id) : hosts.has(e.name));
  const hostLeaves = new Map<string, Set<string>>();
  const leafHosts = new Map<string, Set<string>>();
  const switchPeers = new Map<string, Set<string>>();
  for (const { a, b } of graph.links) {
    yield;
    const unknown = [a, b].find((e) => !known(e));
    if (unknown) {
      problems.push({
        kind: 'unknown-end',
        message: `the link ${describeEnd(a)} – ${describeEnd(b)} names ${unknown.kind === 'switch' ? `switch ${unknown.id}` : `host ${unknown.name}`}, which the fabric does not list; the link joins nothing`,
      });
      continue;
    }
    if (a.kind === 'switch' && b.kind === 'switch') {
      if (a.id === b.id) {
        problems.push({
          kind: 'self-link',
          message: `switch ${a.id} is cabled to itself (port ${a.port} – port ${b.port}); the link joins nothing`,
        });
        continue;
      }
      add(switchPeers, a.id, b.id);
      add(switchPeers, b.id, a.id);
      continue;
    }
    if (a.kind === 'host' && b.kind === 'host') {
      problems.push({
        kind: 'host-to-host',
        message: `hosts ${a.name} and ${b.name} are cabled to each other (ports ${a.port}, ${b.port}); the link joins nothing`,
      });
      continue;
    }
    const [host, sw] = a.kind === 'host' ? [a.name, (b as { id: string }).id] : [(b as { name: string }).name, a.id];
    add(hostLeaves, host, sw);
    add(leafHosts, sw, host);
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

  const leaves = yield* leafGroups(leafHosts, hostLeaves, options.minSharedHosts ?? 1, problems);
  let current: FabricGroup[] = leaves.map((g) => ({
    level: 1,
    switches: g.switches,
    hosts: [...g.hosts].sort(compareBytes),
    children: [],
  }));
  const levels = [current];
  // Level n+1: the level-n groups that share a switch of level n+1.
  while (current.length > 1) {
    const level = current[0]!.level + 1;
    const owner = new Map<string, number>();
    const groupUf = new UnionFind(current.length);
    const reaches: Set<string>[] = current.map(() => new Set());
    for (const [i, g] of current.entries()) {
      for (const sw of g.switches) {
        for (const peer of switchPeers.get(sw) ?? []) {
          if (levelOf.get(peer) !== level) continue;
          reaches[i]!.add(peer);
          const first = owner.get(peer);
          if (first === undefined) owner.set(peer, i);
          else groupUf.union(first, i);
        }
        yield;
      }
    }
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
  return { levels, hostCount: hostLeaves.size, problems };
}
