// The data the HTML topology view draws (topology-html.ts), in the shape its
// browser script reads (browser/topology-data.ts): one flat, indexed
// list of HyperNodes with what a person asks about each one (tier, tierName,
// source, label profile or fabric, nodeCount, children, the Nodes it holds)
// and, for a plan, what the controller would do to it with the field-level
// diff. Built from HyperNodes as they are (render, `kubectl hypernode tree`)
// or from a Plan over the cluster's objects (plan). Go has no equivalent.
// Each HyperNode also carries what formed its domain, to be labelled for
// people (hypernode-domain.ts), and the view lists the legend's levels, one per
// tierName with its colour (view-levels.ts), and the drawn Nodes that carry
// the fabric taint (fabric-taint-marks.ts).

import { compareBytes } from '../../../util/compare-bytes.ts';
import type { HyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { fabricOf, NETWORK_TOPOLOGY_PROFILE_LABEL, sourceOf } from '../../model/hypernode-labels.ts';
import { describeDiff, type HyperNodeDiff } from '../../reconcile/hypernode-diff.ts';
import { labelValue } from '../../model/label-reads.ts';
import { membersOf, resolveMembers } from '../../model/member-selector.ts';
import { falseHealthConditions } from '../../reconcile/health/conditions.ts';
import type { FabricTaint, TaintChange } from '../../reconcile/health/fabric-taints.ts';
import { carriedTaints, fabricTaintMarks, taintsAfterPlan } from './fabric-taint-marks.ts';
import { hyperNodeDomain } from './hypernode-domain.ts';
import type { TopologyView, ViewChange, ViewHyperNode } from './browser/topology-data.ts';
import { levelsOf } from './view-levels.ts';

/** What a view shows besides the HyperNodes. */
export interface ViewExtras {
  /** Lines above the picture. */
  readonly notes?: readonly string[];
  /** Node → the fabric taint of ours it carries (carriedFabricTaint: its record and that taint both on it). */
  readonly fabricTaints?: ReadonlyMap<string, FabricTaint>;
}

/**
 * What the view draws of a plan: its HyperNode changes, the lines above the
 * picture and the fabric taints it changes. `plan`'s Plan (preview/
 * cluster-plan.ts, a layer above) hands these over; the view never reads it.
 */
export interface PlanDrawing {
  readonly changes: readonly PlannedHyperNodeChange[];
  readonly notes: readonly string[];
  readonly taints: readonly TaintChange[];
}

/** One HyperNode the plan creates, updates or deletes, and what changes. */
export interface PlannedHyperNodeChange {
  readonly action: Exclude<ViewChange, 'held'>;
  readonly name: string;
  readonly diff: HyperNodeDiff;
  /** The object as the server would hold it afterwards (absent for a delete). */
  readonly object?: HyperNode;
  /** A delete the mass-delete guard holds. */
  readonly held?: true;
}

/** The view of HyperNodes as they are; `nodes` resolve regex and label members (exact names need none). */
export function topologyView(
  title: string,
  hyperNodes: readonly HyperNode[],
  nodes: readonly NodeMeta[],
  extras: ViewExtras = {},
): TopologyView {
  const viewed = viewHyperNodes(hyperNodes, nodes, new Map());
  return {
    title,
    plan: false,
    hyperNodes: viewed,
    levels: levelsOf(viewed),
    notes: extras.notes ?? [],
    ...fabricTaintMarks(carriedTaints(extras.fabricTaints ?? new Map()), viewed),
  };
}

/**
 * The view of a plan: the HyperNodes as the plan leaves them, with the ones
 * it deletes (held or not) kept in place so their position shows.
 */
export function planView(
  title: string,
  plan: PlanDrawing,
  existing: readonly HyperNode[],
  nodes: readonly NodeMeta[],
): TopologyView {
  const objects = new Map(existing.map((hn) => [hn.metadata.name, hn]));
  const changes = new Map<string, { change: ViewChange; diff: string[] }>();
  for (const c of plan.changes) {
    if (c.object) objects.set(c.name, c.object);
    changes.set(c.name, { change: c.held ? 'held' : c.action, diff: describeDiff(c.diff) });
  }
  const viewed = viewHyperNodes([...objects.values()], nodes, changes);
  return {
    title,
    plan: true,
    hyperNodes: viewed,
    levels: levelsOf(viewed),
    notes: plan.notes,
    ...fabricTaintMarks(taintsAfterPlan(nodes, plan.taints), viewed),
  };
}

/** Health (docs/health.md): the page colours a HyperNode with a False condition and lists the messages. */
function unhealthyOf(hn: HyperNode): { unhealthy?: string[] } {
  const unhealthy = falseHealthConditions(hn.status?.conditions).map((c) => `${c.type}: ${c.message}`);
  return unhealthy.length > 0 ? { unhealthy } : {};
}

function viewHyperNodes(
  hyperNodes: readonly HyperNode[],
  nodes: readonly NodeMeta[],
  changes: ReadonlyMap<string, { change: ViewChange; diff: string[] }>,
): ViewHyperNode[] {
  const sorted = [...hyperNodes].sort((a, b) => compareBytes(a.metadata.name, b.metadata.name));
  const index = new Map(sorted.map((hn, i) => [hn.metadata.name, i]));
  return sorted.map((hn) => {
    const children = new Set<number>();
    const members = new Set<string>();
    for (const m of membersOf(hn)) {
      if (m.type === 'HyperNode') {
        const child = m.selector?.exactMatch ? index.get(m.selector.exactMatch.name) : undefined;
        if (child !== undefined) children.add(child);
      } else {
        for (const name of resolveMembers(m.selector, nodes)) members.add(name);
      }
    }
    const labels = hn.metadata.labels;
    const optional = (key: string, value: string | undefined) =>
      value === undefined || value === '' ? {} : { [key]: value };
    const planned = changes.get(hn.metadata.name);
    const domain = hyperNodeDomain(hn);
    return {
      name: hn.metadata.name,
      tier: hn.spec?.tier ?? 0,
      ...optional('tierName', hn.spec?.tierName),
      ...optional('source', sourceOf(hn)),
      ...optional('profile', labelValue(labels, NETWORK_TOPOLOGY_PROFILE_LABEL)),
      ...optional('fabric', fabricOf(hn)?.fabric),
      nodeCount: hn.status?.nodeCount ?? 0,
      children: [...children].sort((a, b) => a - b),
      nodes: [...members].sort(compareBytes),
      ...optional('domain', domain?.value),
      ...optional('domainLabel', domain?.labelKey),
      ...(planned ? { change: planned.change, diff: planned.diff } : {}),
      ...unhealthyOf(hn),
    };
  });
}
