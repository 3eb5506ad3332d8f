// Who is above whom in the HyperNode tree, kept as the HyperNode cache
// changes (one HyperNode at a time, never rebuilt whole): the HyperNodes
// above a Node (to judge exactly those again when it fails) or above a
// HyperNode (when its members change), the Nodes below a HyperNode (to judge
// it), and the HyperNodes that select Nodes by regex or label, whose
// nodeCount follows Node labels. Discovered HyperNodes name their members
// exactly; regex and label members (hand-made objects) are not followed
// down the tree. The status writer's one index (status-writer.ts).

import { compareBytes } from '../../util/compare-bytes.ts';
import type { HyperNode, MemberType } from '../model/hypernode-types.ts';
import { dependsOnNodes, membersOf } from '../model/member-selector.ts';

interface Members {
  readonly nodes: readonly string[];
  readonly hyperNodes: readonly string[];
  readonly selectsNodes: boolean;
}

export class TopologyIndex {
  /** `Node:<name>` / `HyperNode:<name>` → the HyperNodes naming it as a member. */
  private readonly parents = new Map<string, string[]>();
  private readonly members = new Map<string, Members>();
  private readonly selecting = new Set<string>();
  /** nodesBelow, remembered until the members of the HyperNode or of one below it change. */
  private readonly below = new Map<string, readonly string[]>();

  /** Takes in a HyperNode as the cache now holds it; true when it is new or its members changed. */
  set(hn: HyperNode): boolean {
    const name = hn.metadata.name;
    const next = indexedMembers(hn);
    const before = this.members.get(name);
    if (before && sameMembers(before, next)) return false;
    if (before) this.unlink(name, before);
    this.members.set(name, next);
    for (const n of next.nodes) this.link(memberKey('Node', n), name);
    for (const h of next.hyperNodes) this.link(memberKey('HyperNode', h), name);
    if (next.selectsNodes) this.selecting.add(name);
    this.forgetBelow(name);
    return true;
  }

  delete(name: string): void {
    const before = this.members.get(name);
    if (!before) return;
    this.forgetBelow(name);
    this.unlink(name, before);
    this.members.delete(name);
  }

  /** Every HyperNode above the Node, at any height (each once, cycle-safe). */
  ancestorsOfNode(node: string): Set<string> {
    return this.above(memberKey('Node', node));
  }

  /** Every HyperNode above the HyperNode, at any height. */
  ancestorsOf(hyperNode: string): Set<string> {
    return this.above(memberKey('HyperNode', hyperNode));
  }

  /** The HyperNodes with a regex or label member: their nodeCount follows Node labels. */
  nodeSelecting(): ReadonlySet<string> {
    return this.selecting;
  }

  /** The distinct Nodes below a HyperNode, sorted. */
  nodesBelow(hyperNode: string): readonly string[] {
    const known = this.below.get(hyperNode);
    if (known) return known;
    const nodes = new Set<string>();
    const visited = new Set<string>();
    const walk = (name: string) => {
      if (visited.has(name)) return;
      visited.add(name);
      const own = this.members.get(name);
      if (!own) return;
      for (const n of own.nodes) nodes.add(n);
      for (const h of own.hyperNodes) walk(h);
    };
    walk(hyperNode);
    const sorted = [...nodes].sort(compareBytes);
    this.below.set(hyperNode, sorted);
    return sorted;
  }

  private above(key: string): Set<string> {
    const out = new Set<string>();
    const walk = (k: string) => {
      for (const p of this.parents.get(k) ?? []) {
        if (out.has(p)) continue;
        out.add(p);
        walk(memberKey('HyperNode', p));
      }
    };
    walk(key);
    return out;
  }

  /** The Nodes below `name` and below every HyperNode above it are to be walked again. */
  private forgetBelow(name: string): void {
    this.below.delete(name);
    for (const a of this.ancestorsOf(name)) this.below.delete(a);
  }

  private link(key: string, parent: string): void {
    const list = this.parents.get(key);
    if (!list) this.parents.set(key, [parent]);
    else if (!list.includes(parent)) list.push(parent);
  }

  private unlink(name: string, m: Members): void {
    const drop = (key: string) => {
      const left = (this.parents.get(key) ?? []).filter((p) => p !== name);
      if (left.length > 0) this.parents.set(key, left);
      else this.parents.delete(key);
    };
    for (const n of m.nodes) drop(memberKey('Node', n));
    for (const h of m.hyperNodes) drop(memberKey('HyperNode', h));
    this.selecting.delete(name);
  }
}

function indexedMembers(hn: HyperNode): Members {
  const nodes: string[] = [];
  const hyperNodes: string[] = [];
  for (const m of membersOf(hn)) {
    const name = m.selector?.exactMatch?.name;
    if (name === undefined) continue;
    (m.type === 'Node' ? nodes : hyperNodes).push(name);
  }
  return { nodes, hyperNodes, selectsNodes: dependsOnNodes(hn) };
}

function sameMembers(a: Members, b: Members): boolean {
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return a.selectsNodes === b.selectsNodes && same(a.nodes, b.nodes) && same(a.hyperNodes, b.hyperNodes);
}

const memberKey = (type: MemberType, name: string) => `${type}:${name}`;
