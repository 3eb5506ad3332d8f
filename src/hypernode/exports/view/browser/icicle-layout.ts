// The layout of the icicle: where each HyperNode sits. A HyperNode sits under
// the first parent that reaches it (roots first: highest tier, then label);
// one caught in a cycle becomes a root. Siblings stand in the order of their
// labels, numbers by value (rack-2 before rack-10), ties by name. Rows are
// depths; a HyperNode's width is the Nodes beneath it, its own Nodes first in
// its span, then its children. Pure arithmetic over the view's data, done
// once when the page opens.

import type { ViewHyperNode } from './topology-data.ts';

export interface IcicleLayout {
  readonly count: number;
  /** HyperNode name → index. */
  readonly byName: ReadonlyMap<string, number>;
  /** Node name → the HyperNodes holding it directly. */
  readonly nodeIn: ReadonlyMap<string, readonly number[]>;
  /** Every HyperNode listing it as a member (a HyperNode may have several; the layout keeps the first). */
  readonly parents: readonly (readonly number[])[];
  /** Its children in the layout, in label order. */
  readonly kids: readonly (readonly number[])[];
  /** Its row. */
  readonly depth: Int32Array;
  /** The deepest row its subtree fills, its Nodes' row included. */
  readonly below: Int32Array;
  /** The Nodes beneath it: its width. */
  readonly weight: Float64Array;
  /** Where its span starts. */
  readonly x0: Float64Array;
  /** The HyperNodes in the top row, in order. */
  readonly roots: readonly number[];
  /** The deepest row of the picture. */
  readonly maxRow: number;
  /** The width of the whole topology. */
  readonly total: number;
  /** Its parent in the layout; -1 for a root. */
  layoutParent(n: number): number;
  /** The HyperNodes from its root down to it. */
  pathOf(n: number): number[];
}

export function layOut(hns: readonly ViewHyperNode[], labelOf: (n: number) => string): IcicleLayout {
  const count = hns.length;
  const byName = new Map<string, number>();
  const nodeIn = new Map<string, number[]>();
  const parents: number[][] = [];
  for (let i = 0; i < count; i++) parents[i] = [];
  for (let i = 0; i < count; i++) {
    const h = hns[i]!;
    byName.set(h.name, i);
    for (const c of h.children) parents[c]!.push(i);
    for (const node of h.nodes) {
      const list = nodeIn.get(node);
      if (list) list.push(i);
      else nodeIn.set(node, [i]);
    }
  }

  const kids: number[][] = [];
  const depth = new Int32Array(count);
  const below = new Int32Array(count);
  const weight = new Float64Array(count);
  const x0 = new Float64Array(count);
  const placed = new Uint8Array(count);
  const roots: number[] = [];
  const order: number[] = [];
  const collate = new Intl.Collator('en', { numeric: true }).compare;
  const byLabel = (a: number, b: number) => collate(labelOf(a), labelOf(b)) || a - b;
  for (let i = 0; i < count; i++) {
    kids[i] = [];
    if (parents[i]!.length === 0) order.push(i);
  }
  order.sort((a, b) => hns[b]!.tier - hns[a]!.tier || byLabel(a, b));
  const place = (root: number) => {
    const stack = [root];
    placed[root] = 1;
    depth[root] = 0;
    roots.push(root);
    while (stack.length) {
      const p = stack.pop()!;
      const c = hns[p]!.children.slice().sort(byLabel);
      for (const k of c) {
        if (placed[k]) continue;
        placed[k] = 1;
        depth[k] = depth[p]! + 1;
        kids[p]!.push(k);
        stack.push(k);
      }
    }
  };
  order.forEach(place);
  for (let i = 0; i < count; i++) if (!placed[i]) place(i);

  let maxRow = 0;
  let total = 0;
  const measure = (root: number) => {
    const post: number[] = [];
    const stack = [root];
    while (stack.length) {
      const p = stack.pop()!;
      post.push(p);
      for (const k of kids[p]!) stack.push(k);
    }
    for (let q = post.length - 1; q >= 0; q--) {
      const n = post[q]!;
      const h = hns[n]!;
      let w = h.nodes.length;
      if (w === 0 && kids[n]!.length === 0) w = Math.max(1, h.nodeCount);
      for (const k of kids[n]!) w += weight[k]!;
      weight[n] = w;
      below[n] = h.nodes.length ? depth[n]! + 1 : depth[n]!;
      for (const k of kids[n]!) if (below[k]! > below[n]!) below[n] = below[k]!;
      if (below[n]! > maxRow) maxRow = below[n]!;
    }
  };
  const childWeight = (p: number) => {
    let s = 0;
    for (const k of kids[p]!) s += weight[k]!;
    return s;
  };
  // A HyperNode's own Nodes come first in its span, then its children.
  const position = (root: number, start: number) => {
    const stack = [root];
    x0[root] = start;
    while (stack.length) {
      const p = stack.pop()!;
      let x = x0[p]! + (weight[p]! - childWeight(p));
      for (const k of kids[p]!) {
        x0[k] = x;
        x += weight[k]!;
        stack.push(k);
      }
    }
  };
  for (const r of roots) {
    measure(r);
    position(r, total);
    total += weight[r]!;
  }

  const lparent = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) for (const k of kids[i]!) lparent[k] = i;
  const layoutParent = (n: number) => lparent[n]!;
  const pathOf = (n: number) => {
    const path = [n];
    for (;;) {
      const p = layoutParent(path[0]!);
      if (p < 0) break;
      path.unshift(p);
    }
    return path;
  };
  return { count, byName, nodeIn, parents, kids, depth, below, weight, x0, roots, maxRow, total, layoutParent, pathOf };
}
