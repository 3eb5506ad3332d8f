// The texts about held label removals, shared by the label sync's log line
// and the previews (`plan`, `--dry-run`). Ours, no Go counterpart.

import { deleteGuard } from '../delete-guard.ts';
import type { HeldLabelRemovals } from './node-label-changes.ts';

export function heldLabelRemovalsMessage(h: HeldLabelRemovals): string {
  const { allowedFrom } = deleteGuard(h.labelled, h.leaving, h.maxDeletePercent);
  // One template, so docs/troubleshooting.md can quote it whole.
  return `Discovery source "${h.source}" would remove its Node labels from ${h.leaving} of the ${h.labelled} Nodes it labels, more than its maxDeletePercent of ${h.maxDeletePercent}, so these removals are held; if intended, set maxDeletePercent to ${allowedFrom} or more on the "${h.source}" entry of networkTopologyDiscovery`;
}
