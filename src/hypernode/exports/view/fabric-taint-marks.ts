// Which Nodes the HTML topology view marks with the controller's fabric taint
// (health.taint): of the Nodes it draws, those that carry it, each with the
// source and fabric the taint's value names. Outside a plan a Node carries it
// when its record and exactly that taint are both on it (carriedFabricTaint),
// as the controller's Node cache or `render`'s Node file shows them; a plan
// reads the Nodes' records only (as its taint decision does) and adds what it
// would change. Nothing of other writers' taints is marked. Go has no
// equivalent.

import { compareBytes } from '../../../util/compare-bytes.ts';
import { FABRIC_TAINT_ANNOTATION } from '../../model/hypernode-labels.ts';
import type { NodeMeta } from '../../model/hypernode-types.ts';
import {
  fabricOfTaintValue,
  formatFabricTaint,
  parseFabricTaint,
  sourceOfTaintValue,
  type FabricTaint,
  type TaintChange,
} from '../../reconcile/health/fabric-taints.ts';
import type { ViewFabricTaint, ViewHyperNode, ViewTaintChange } from './browser/topology-data.ts';

/** Node name → the fabric taint of ours it carries, with what a plan does to it. */
export type FabricTaintsByNode = ReadonlyMap<
  string,
  { readonly taint: FabricTaint; readonly change?: ViewTaintChange }
>;

/** The marks of the drawn Nodes among `carried`, byte-sorted by Node; nothing when no drawn Node carries the taint. */
export function fabricTaintMarks(
  carried: FabricTaintsByNode,
  drawn: readonly ViewHyperNode[],
): { fabricTaints?: ViewFabricTaint[] } {
  if (carried.size === 0) return {};
  const names = new Set(drawn.flatMap((h) => h.nodes));
  const marks = [...carried]
    .filter(([node]) => names.has(node))
    .sort(([a], [b]) => compareBytes(a, b))
    .map(([node, { taint, change }]) => {
      const fabric = fabricOfTaintValue(taint.value);
      return {
        node,
        taint: formatFabricTaint(taint),
        source: sourceOfTaintValue(taint.value),
        ...(fabric !== '' ? { fabric } : {}),
        ...(change ? { change } : {}),
      };
    });
  return marks.length > 0 ? { fabricTaints: marks } : {};
}

/** Outside a plan: each Node's taint as carried, no change. */
export function carriedTaints(carried: ReadonlyMap<string, FabricTaint>): FabricTaintsByNode {
  return new Map([...carried].map(([node, taint]) => [node, { taint }]));
}

/**
 * In a plan: each Node's taint by its record, then the plan's changes: a
 * taint it adds or rewrites as it will be, one it removes as it is now.
 */
export function taintsAfterPlan(nodes: readonly NodeMeta[], changes: readonly TaintChange[]): FabricTaintsByNode {
  const out = new Map<string, { taint: FabricTaint; change?: ViewTaintChange }>();
  for (const n of nodes) {
    const taint = parseFabricTaint(n.metadata.annotations?.[FABRIC_TAINT_ANNOTATION]);
    if (taint) out.set(n.metadata.name, { taint });
  }
  for (const c of changes) {
    if (c.to) out.set(c.node, { taint: c.to, change: c.from ? 'change' : 'add' });
    else if (c.from) out.set(c.node, { taint: c.from, change: 'remove' });
  }
  return out;
}
