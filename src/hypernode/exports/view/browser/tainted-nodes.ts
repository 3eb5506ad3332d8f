// The Nodes that carry the controller's fabric taint (health.taint), as the
// view's data lists them: the picture fills their cells in the taint's
// colour, the tooltip and the tree list say which source and fabric they are
// cut off from, and the legend counts them. Nothing of other taints is in the
// data, so nothing of them is drawn.

import { plural } from './hypernode-words.ts';
import type { TopologyView, ViewFabricTaint, ViewTaintChange } from './topology-data.ts';

/** The class of a tainted Node's cell, tree entry and legend swatch. */
export const TAINTED = 'tainted';

export interface TaintedNodes {
  /** Its taint, if it carries ours. */
  of(node: string): ViewFabricTaint | undefined;
  /** The Nodes of HyperNode n (its own, not its children's) that carry it. */
  in(n: number): readonly string[];
  /** How many drawn Nodes carry it. */
  readonly total: number;
}

const PLANNED: Record<ViewTaintChange, string> = {
  add: 'plan: adds this taint',
  change: 'plan: rewrites its taint to this',
  remove: 'plan: removes this taint',
};

/** What a tainted Node's tooltip and tree entry say of its taint, one line each. */
export function describeTaint(t: ViewFabricTaint): string[] {
  const where = t.fabric !== undefined ? `fabric ${t.fabric} of source ${t.source}` : `source ${t.source}`;
  return [
    `fabric taint ${t.taint}`,
    `every link of its host on ${where} missing`,
    ...(t.change ? [PLANNED[t.change]] : []),
  ];
}

/** The legend's words for the tainted Nodes. */
export function taintLegend(total: number): { name: string; title: string } {
  return {
    name: `fabric taint ${total}`,
    title: `${plural(total, 'Node')} tainted by the controller (health.taint): every link of its host on a fabric missing for health.taint.after`,
  };
}

export function taintedNodes(data: TopologyView): TaintedNodes {
  const byNode = new Map<string, ViewFabricTaint>();
  for (const t of data.fabricTaints ?? []) byNode.set(t.node, t);
  const none: readonly string[] = [];
  const inHyperNode = data.hyperNodes.map((h) => (byNode.size > 0 ? h.nodes.filter((n) => byNode.has(n)) : none));
  return { of: (node) => byNode.get(node), in: (n) => inHyperNode[n] ?? none, total: byNode.size };
}
