// The mass-delete guard: one run of a discovery source may delete at most
// `maxDeletePercent` of the HyperNodes that source owns. A snapshot that drops
// most of a topology at once is far more often a fault upstream (Nodes that
// lost their labels in a botched relabel, a UFM answering with half a fabric)
// than an intended change, and deleting the HyperNodes takes the scheduler's
// topology away from running jobs. The Go controller
// (pkg/controllers/hypernode/hypernode_controller.go) deletes whatever a
// snapshot no longer describes; here such deletes are held until a snapshot
// no longer exceeds the limit or the operator raises it.
//
// Pure, counts in and a decision out: the reconciler holds deletes with it,
// and the offline previews report what it would hold.

/** A run deleting fewer HyperNodes than this is never held: a small source may well lose most of its objects. */
export const MIN_HELD_DELETES = 10;

export interface DeleteGuardDecision {
  /** The deletes of this run are to be held. */
  readonly hold: boolean;
  /** toDelete as a percentage of owned (0 when nothing is owned). */
  readonly percent: number;
  /** The smallest maxDeletePercent that would let these deletes through. */
  readonly allowedFrom: number;
}

/**
 * Whether a run that would delete `toDelete` of the `owned` HyperNodes of one
 * source must hold those deletes: more than `maxDeletePercent` of them, and
 * at least MIN_HELD_DELETES.
 */
export function deleteGuard(owned: number, toDelete: number, maxDeletePercent: number): DeleteGuardDecision {
  const percent = owned > 0 ? (toDelete * 100) / owned : 0;
  // Integer arithmetic for the comparison: 50 % of 20 is exactly 10, not 10.000000000000002.
  const hold = toDelete >= MIN_HELD_DELETES && toDelete * 100 > owned * maxDeletePercent;
  return { hold, percent, allowedFrom: owned > 0 ? Math.ceil((toDelete * 100) / owned) : 0 };
}

/** What is held and how to allow it: one text for the log, the Event and the previews' warnings. */
export function heldDeletesMessage(source: string, owned: number, toDelete: number, maxDeletePercent: number): string {
  const { percent, allowedFrom } = deleteGuard(owned, toDelete, maxDeletePercent);
  return (
    `Discovery source "${source}" would delete ${toDelete} of the ${owned} HyperNodes it owns (${formatPercent(percent)}), ` +
    `more than its maxDeletePercent of ${maxDeletePercent}, so these deletes are held; ` +
    `if the deletion is intended, set maxDeletePercent to ${allowedFrom} or more on the "${source}" entry of networkTopologyDiscovery`
  );
}

/** One decimal at most, so 57.14 reads 57.1% and 60 reads 60%. */
function formatPercent(percent: number): string {
  return `${Number(percent.toFixed(1))}%`;
}
