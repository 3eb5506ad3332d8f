// Who is above whom in the HyperNode tree, from the exact-name members of the
// cached HyperNodes: the HyperNodes above a Node (to mark exactly those when
// it fails) and the Nodes below a HyperNode (to judge it). Discovered
// HyperNodes name their members exactly; regex and label members (hand-made
// objects, which carry no health conditions) are not followed.

import type { HyperNode, MemberType } from '../../model/hypernode-types.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';

export class TopologyIndex {
  /** `Node:<name>` / `HyperNode:<name>` → the HyperNodes naming it as a member. */
  private readonly parents = new Map<string, string[]>();
  private readonly children = new Map<string, { nodes: string[]; hyperNodes: string[] }>();
  private readonly below = new Map<string, readonly string[]>();

  constructor(hyperNodes: readonly HyperNode[]) {
    for (const hn of hyperNodes) {
      const own = { nodes: [] as string[], hyperNodes: [] as string[] };
      for (const m of hn.spec?.members ?? []) {
        const name = m.selector?.exactMatch?.name;
        if (name === undefined) continue;
        (m.type === 'Node' ? own.nodes : own.hyperNodes).push(name);
        const key = memberKey(m.type, name);
        const list = this.parents.get(key);
        if (list) list.push(hn.metadata.name);
        else this.parents.set(key, [hn.metadata.name]);
      }
      this.children.set(hn.metadata.name, own);
    }
  }

  /** Every HyperNode above the Node, at any height (each once, cycle-safe). */
  ancestorsOfNode(node: string): Set<string> {
    const out = new Set<string>();
    const walk = (key: string) => {
      for (const p of this.parents.get(key) ?? []) {
        if (out.has(p)) continue;
        out.add(p);
        walk(memberKey('HyperNode', p));
      }
    };
    walk(memberKey('Node', node));
    return out;
  }

  /** The distinct Nodes below a HyperNode, sorted (remembered: the index is rebuilt when HyperNodes change). */
  nodesBelow(hyperNode: string): readonly string[] {
    const known = this.below.get(hyperNode);
    if (known) return known;
    const nodes = new Set<string>();
    const visited = new Set<string>();
    const walk = (name: string) => {
      if (visited.has(name)) return;
      visited.add(name);
      const own = this.children.get(name);
      if (!own) return;
      for (const n of own.nodes) nodes.add(n);
      for (const h of own.hyperNodes) walk(h);
    };
    walk(hyperNode);
    const sorted = [...nodes].sort(compareBytes);
    this.below.set(hyperNode, sorted);
    return sorted;
  }
}

const memberKey = (type: MemberType, name: string) => `${type}:${name}`;
