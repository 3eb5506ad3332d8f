// The Node label changes a `plan` shows beside the HyperNode changes: the
// label sync's own decision (sourceLabelStates + nodeLabelChanges) over the
// cluster's Nodes and the sources' fresh snapshots, as per-Node sets and
// removals. Ours, no Go counterpart.

import type { DiscoveredHyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { nodeLabelChanges, type RemovalsOfOffSource, type RetainedLabels } from './node-label-changes.ts';
import { heldLabelRemovalsMessage, offSourceRemovalsMessage } from './node-label-messages.ts';
import { sourceLabelStates } from './node-label-states.ts';

export interface PlannedLabelChange {
  readonly node: string;
  /** Labels set or changed: key → new value. */
  readonly set: Readonly<Record<string, string>>;
  /** Labels removed (only ever ones the controller wrote). */
  readonly removed: readonly string[];
}

export interface LabelPlan {
  readonly changes: PlannedLabelChange[];
  /** Nodes whose label removals the guard holds. */
  readonly held: number;
  /** Sources whose labels are off and go unguarded, with the sentence plan prints for each. */
  readonly off: ReadonlyArray<RemovalsOfOffSource & { readonly message: string }>;
  readonly warnings: string[];
}

/** `retained`: per source, the label keys live Topology objects of ours name, which stay. */
export function planNodeLabels(
  config: DiscoveryConfig,
  snapshots: ReadonlyMap<string, readonly DiscoveredHyperNode[]>,
  nodes: readonly NodeMeta[],
  retained: RetainedLabels = new Map(),
): LabelPlan {
  const warnings: string[] = [];
  const decided = nodeLabelChanges(
    nodes,
    sourceLabelStates(config, snapshots, nodes, (m) => warnings.push(m)),
    retained,
  );
  warnings.push(...decided.held.map(heldLabelRemovalsMessage));
  const changes = decided.patches
    .map((p) => {
      const keys = Object.keys(p.labels).sort(compareBytes);
      return {
        node: p.node,
        set: Object.fromEntries(keys.filter((k) => p.labels[k] !== null).map((k) => [k, p.labels[k]!])),
        removed: keys.filter((k) => p.labels[k] === null),
      };
    })
    // A patch that only rewrites the ownership record (a label already right, or gone meanwhile) changes no label.
    .filter((c) => Object.keys(c.set).length > 0 || c.removed.length > 0);
  const held = [...decided.counts.values()].reduce((n, c) => n + c.held, 0);
  return { changes, held, off: decided.off.map((r) => ({ ...r, message: offSourceRemovalsMessage(r) })), warnings };
}
