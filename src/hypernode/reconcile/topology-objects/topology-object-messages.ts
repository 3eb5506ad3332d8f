// The texts about a Topology object of ours whose deletion a finalizer holds,
// and about a create waiting for its Node labels, shared by the writer's log
// lines and Events and by `plan`. Ours, no Go counterpart.

import { HOSTNAME_LABEL } from '../../model/hypernode-labels.ts';
import type { TopologyChange, TopologyKind } from './topology-object-specs.ts';

/** The finalizer Kueue's Topology controller keeps on a Topology while a ResourceFlavor names it. */
export const KUEUE_RESOURCE_IN_USE_FINALIZER = 'kueue.x-k8s.io/resource-in-use';

/** What lets `finalizer` go, as an instruction to the operator. */
function release(finalizer: string, name: string): string {
  if (finalizer === KUEUE_RESOURCE_IN_USE_FINALIZER) {
    return `Kueue keeps ${finalizer} while a ResourceFlavor has spec.topologyName: ${name}; delete those ResourceFlavors (their topologyName cannot change) and create them again once the new Topology exists`;
  }
  return `${finalizer} is removed by whoever set it once it lets go of the object`;
}

/**
 * One template per held object (docs/troubleshooting.md quotes it): who
 * holds it, what the operator does next, and what happens after.
 */
export function heldDeletionMessage(kind: TopologyKind, source: string, change: TopologyChange): string {
  const finalizers = change.finalizers ?? [];
  const held = finalizers.length > 0 ? `held by finalizer ${finalizers.join(', ')}` : 'waiting for the API server to finish';
  const next = finalizers.map((f) => release(f, change.name)).join('; ');
  const after = change.levels ? `then it is created again with levels ${change.levels.join(',')}` : 'then it is gone';
  return `${kind.title} ${change.name} of discovery source "${source}" is being deleted, ${held}${next ? `: ${next}` : ''}; ${after}. Until then the Nodes keep the labels of its levels ${(change.previous ?? []).join(',')}`;
}

export function labelsPendingMessage(kind: TopologyKind, source: string, name: string, nodes: number): string {
  return `${kind.title} ${name} of discovery source "${source}" waits for the Node labels its levels name (${nodes} Nodes not yet labelled); it is created once they are written`;
}

/**
 * The whole sequence one change goes through, one step a line, for `plan`:
 * labels first, the delete and whoever may hold it, the create once the old
 * object is gone, and the old levels' labels last.
 */
export function topologySequence(kind: TopologyKind, source: string, change: TopologyChange, labelsPending: number): string[] {
  const steps: string[] = [];
  if (change.levels && labelsPending > 0) steps.push(`the Node labels above are written first (${labelsPending} Nodes)`);
  if (change.action === 'held') steps.push(heldDeletionMessage(kind, source, change));
  if (change.action === 'replace' || change.action === 'delete') {
    const holders = change.finalizers ?? [];
    steps.push(
      holders.length > 0
        ? `delete ${change.name}; it carries finalizer ${holders.join(', ')}, so the deletion is held until that goes: ${holders.map((f) => release(f, change.name)).join('; ')}`
        : `delete ${change.name}`,
    );
  }
  if (change.levels) steps.push(`${change.action === 'create' ? 'create' : 'create it again, once it is gone,'} with levels ${change.levels.join(', ')}`);
  const dropped = (change.previous ?? []).filter((k) => !change.levels?.includes(k) && k !== HOSTNAME_LABEL);
  if (dropped.length > 0) steps.push(`then the Node labels ${dropped.join(', ')}, which no live Topology names any more, are removed`);
  return steps;
}
