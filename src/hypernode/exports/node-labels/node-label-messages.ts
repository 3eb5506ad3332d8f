// The texts about label removals the controller treats apart (held ones, and
// those of a source whose labels are off), shared by the label sync's log
// lines and the previews (`plan`, `--dry-run`). Ours, no Go counterpart.

import { deleteGuard } from '../../reconcile/delete-guard.ts';
import type { HeldLabelRemovals, RemovalsOfOffSource } from './node-label-changes.ts';

export function heldLabelRemovalsMessage(h: HeldLabelRemovals): string {
  const { allowedFrom } = deleteGuard(h.labelled, h.leaving, h.maxDeletePercent);
  // One template, so docs/troubleshooting.md can quote it whole.
  return `Discovery source "${h.source}" would remove its Node labels from ${h.leaving} of the ${h.labelled} Nodes it labels, more than its maxDeletePercent of ${h.maxDeletePercent}, so these removals are held; if intended, set maxDeletePercent to ${allowedFrom} or more on the "${h.source}" entry of networkTopologyDiscovery`;
}

export function offSourceRemovalsMessage(r: RemovalsOfOffSource): string {
  return `Node labels of discovery source "${r.source}" are off (its entry is disabled, removed, or has no exports.nodeLabels): its labels are removed from ${r.nodes} Nodes, not held by maxDeletePercent; its HyperNodes stay`;
}
