// The label changes that bring the Nodes to what every source wants, decided
// against the Node cache: which labels to set, which of our own labels to
// remove, and the ownership annotations to rewrite, as one patch per Node
// that changes. Pure, so the label sync, `plan` and `--dry-run` decide alike.
// Ours, no Go counterpart.
//
// Rules: a label is removed only when a source's ownership annotation lists
// it (a label someone else set under the same prefix is never touched); a
// source whose state is unknown (no snapshot yet, a broken entry) keeps its
// labels as they are; a source that is off loses all it wrote, unguarded
// (reported apart, see RemovalsOfOffSource); and a run that would strip more
// than maxDeletePercent of a source's labelled Nodes (Nodes leaving the
// topology) holds those removals, like HyperNode deletes. A label a live
// Kueue or KAI Topology of ours names is never removed (`retained`): the
// Topology may outlive the level, held by Kueue's finalizer, and Kueue skips
// Nodes that lack any of its levels.

import type { NodeMeta } from '../../model/hypernode-types.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { deleteGuard } from '../../reconcile/delete-guard.ts';
import { labelValue } from '../../model/label-reads.ts';
import { ownedKeys, ownersOf, ownershipAnnotation, type NodeLabels } from './node-label-values.ts';

/** What one source wants of the Nodes' labels. Sources with no state are left alone. */
export type SourceLabelState =
  | { readonly kind: 'desired'; readonly labels: NodeLabels; readonly maxDeletePercent: number }
  /** Labels turned off (entry disabled, removed, or without exports.nodeLabels): remove all it wrote. */
  | { readonly kind: 'off' };

/** One merge patch of a Node's metadata: a value sets, null removes. */
export interface NodeLabelPatch {
  readonly node: string;
  readonly labels: Readonly<Record<string, string | null>>;
  readonly annotations: Readonly<Record<string, string | null>>;
}

export interface SourceLabelCounts {
  /** Labels set or changed. */
  set: number;
  /** Labels removed. */
  removed: number;
  /** Nodes whose removals the guard holds. */
  held: number;
}

export interface HeldLabelRemovals {
  readonly source: string;
  /** Nodes carrying labels of this source. */
  readonly labelled: number;
  /** Of those, Nodes that would lose all of them. */
  readonly leaving: number;
  readonly maxDeletePercent: number;
}

/**
 * A source whose labels are off and which still has labels on Nodes. Its
 * removals are not guarded: turning the option off (the entry disabled,
 * removed, or without exports.nodeLabels) is the operator's explicit
 * change, and a removed entry has no maxDeletePercent left to allow them
 * with. The HyperNodes of such a source stay, so nothing else is deleted.
 */
export interface RemovalsOfOffSource {
  readonly source: string;
  /** Nodes that lose the source's labels. */
  readonly nodes: number;
}

export interface NodeLabelChanges {
  /** By Node name. */
  readonly patches: NodeLabelPatch[];
  readonly counts: Map<string, SourceLabelCounts>;
  readonly held: HeldLabelRemovals[];
  /** By source name. */
  readonly off: RemovalsOfOffSource[];
}

const EMPTY: ReadonlyMap<string, string> = new Map();

/**
 * Per source, the label keys to keep whatever it wants now (those live
 * Topology objects name); 'all' keeps every label while they are unknown.
 */
export type RetainedLabels = ReadonlyMap<string, ReadonlySet<string>> | 'all';

/** The changes for `nodes`; `states` holds every source whose labels are decided this round. */
export function nodeLabelChanges(
  nodes: readonly NodeMeta[],
  states: ReadonlyMap<string, SourceLabelState>,
  retained: RetainedLabels = new Map(),
): NodeLabelChanges {
  const kept = (source: string, key: string) => retained === 'all' || retained.get(source)?.has(key) === true;
  // First the guard: per source, how many labelled Nodes would lose everything.
  const heldSources = new Set<string>();
  const held: HeldLabelRemovals[] = [];
  for (const [source, state] of states) {
    if (state.kind !== 'desired') continue;
    let labelled = 0;
    let leaving = 0;
    for (const node of nodes) {
      if (ownedKeys(node, source).length === 0) continue;
      labelled++;
      if (!state.labels.has(node.metadata.name)) leaving++;
    }
    if (deleteGuard(labelled, leaving, state.maxDeletePercent).hold) {
      heldSources.add(source);
      held.push({ source, labelled, leaving, maxDeletePercent: state.maxDeletePercent });
    }
  }
  const counts = new Map<string, SourceLabelCounts>();
  const countsOf = (source: string) => {
    let c = counts.get(source);
    if (!c) counts.set(source, (c = { set: 0, removed: 0, held: 0 }));
    return c;
  };
  const patches: NodeLabelPatch[] = [];
  const offNodes = new Map<string, number>();
  for (const node of nodes) {
    const name = node.metadata.name;
    const current = node.metadata.labels;
    const sets: Record<string, string> = {};
    const removals: Record<string, null> = {};
    const annotations: Record<string, string | null> = {};
    const sources = new Set([
      ...ownersOf(node),
      ...[...states].filter(([, s]) => s.kind === 'desired' && s.labels.has(name)).map(([source]) => source),
    ]);
    for (const source of sources) {
      const state = states.get(source);
      if (!state) continue;
      const owned = ownedKeys(node, source);
      const want = state.kind === 'desired' ? (state.labels.get(name) ?? EMPTY) : EMPTY;
      if (want.size === 0 && heldSources.has(source) && owned.length > 0) {
        countsOf(source).held++;
        continue;
      }
      for (const [key, value] of want) {
        if (labelValue(current, key) === value) continue;
        sets[key] = value;
        countsOf(source).set++;
      }
      let removing = false;
      const keeping: string[] = [];
      for (const key of owned) {
        if (want.has(key) || labelValue(current, key) === undefined) continue;
        // Kept for a Node still in the topology, or for all while the export is off; a Node that left it loses them.
        if (kept(source, key) && (state.kind === 'off' || want.size > 0)) {
          keeping.push(key);
          continue;
        }
        removals[key] = null;
        countsOf(source).removed++;
        removing = true;
      }
      if (removing && state.kind === 'off') offNodes.set(source, (offNodes.get(source) ?? 0) + 1);
      const nowOwned = [...want.keys(), ...keeping].sort(compareBytes).join(',');
      if (nowOwned !== owned.join(',')) annotations[ownershipAnnotation(source)] = nowOwned === '' ? null : nowOwned;
    }
    // A key one source sets and another gives up (a prefix moved between sources) is set.
    const labels = { ...removals, ...sets };
    if (Object.keys(labels).length > 0 || Object.keys(annotations).length > 0)
      patches.push({ node: name, labels, annotations });
  }
  patches.sort((a, b) => compareBytes(a.node, b.node));
  const off = [...offNodes].sort(([a], [b]) => compareBytes(a, b)).map(([source, n]) => ({ source, nodes: n }));
  return { patches, counts, held, off };
}
