// The data of the HTML topology view, as the page carries it in JSON
// (script#topology-data): topology-model.ts writes it on the server side and
// the browser code beside this file reads it. Types only, so both sides are
// held to one shape; one flat, indexed list of HyperNodes with what a person
// asks about each one, and for a plan what the controller would do to it; and
// the Nodes that carry the controller's fabric taint.

/** What a plan does to one HyperNode; `held` is a delete the mass-delete guard holds. */
export type ViewChange = 'create' | 'update' | 'delete' | 'held';

export interface ViewHyperNode {
  readonly name: string;
  readonly tier: number;
  readonly tierName?: string;
  /** The owning discovery source (the ownership label); absent for hand-made objects. */
  readonly source?: string;
  /** The label profile that grouped it (label source with profiles). */
  readonly profile?: string;
  /** The fabric it belongs to (ufm in fabric mode, lldp, ibnetdiscover). */
  readonly fabric?: string;
  /** status.nodeCount as written (or as a plan would write it). */
  readonly nodeCount: number;
  /** Indexes of its HyperNode members in the view's list, byte-sorted by name. */
  readonly children: readonly number[];
  /** Names of the Nodes its members select, byte-sorted. */
  readonly nodes: readonly string[];
  /** What formed its domain (hypernode-domain.ts): the label value, or the switch id a fabric group is named after. */
  readonly domain?: string;
  /** The Node label key whose value `domain` is; absent for a switch. */
  readonly domainLabel?: string;
  readonly change?: ViewChange;
  /** For a change: one line per changed field (describeDiff). */
  readonly diff?: readonly string[];
  /** Its health conditions held False, `Type: message` (docs/health.md); absent when none is. */
  readonly unhealthy?: readonly string[];
}

/** A level of the legend (view-levels.ts). */
export interface ViewLevel {
  /** The tierName, or `tier N` for HyperNodes that have none. */
  readonly tierName: string;
  /** The tiers HyperNodes of this tierName are at, highest first (more than one is a misconfiguration worth seeing). */
  readonly tiers: readonly number[];
  /** The Node label keys whose values formed its domains (label sources), byte-sorted. */
  readonly labelKeys: readonly string[];
  /** Index into the palette (0 … LEVEL_COLOURS - 1). */
  readonly colour: number;
}

/** What a plan does to a Node's fabric taint; absent, the taint stays. */
export type ViewTaintChange = 'add' | 'change' | 'remove';

/** A drawn Node carrying the controller's fabric taint (health.taint): its record and that taint are both on it. */
export interface ViewFabricTaint {
  readonly node: string;
  /** `key=value:effect`; in a plan, the taint it carries once the plan is made (for a removal, the one it carries now). */
  readonly taint: string;
  /** The fabric source whose polls found every link of the Node missing. */
  readonly source: string;
  /** The fabric it is cut off from; absent when the taint names the source alone (UFM legacy mode). */
  readonly fabric?: string;
  /** In a plan: what the plan does to the taint. */
  readonly change?: ViewTaintChange;
}

export interface TopologyView {
  /** The page's heading, e.g. `render: 9,300 HyperNodes`. */
  readonly title: string;
  /** True for a plan: the picture is coloured by change. */
  readonly plan: boolean;
  /** Byte-sorted by name. */
  readonly hyperNodes: readonly ViewHyperNode[];
  /** The legend: one level per tierName, highest tier first, each with its colour. */
  readonly levels: readonly ViewLevel[];
  /** Lines shown above the picture (a plan's warnings, a filter in force). */
  readonly notes: readonly string[];
  /** The drawn Nodes that carry the fabric taint, byte-sorted by Node; absent when none does. */
  readonly fabricTaints?: readonly ViewFabricTaint[];
}
