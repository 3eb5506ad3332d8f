// The texts about a Topology object of ours whose deletion a finalizer holds,
// and about a change that waits until it can be made at once (the Node
// labels of its levels, the source's snapshot), shared by the writer's log
// lines and Events and by `plan`. Ours, no Go counterpart.

import { HOSTNAME_LABEL } from '../../model/hypernode-labels.ts';
import {
  describeLevels,
  labelsOf,
  type TopologyChange,
  type TopologyKind,
  type TopologyWait,
} from './topology-object-specs.ts';

/** The finalizer Kueue's Topology controller keeps on a Topology while a ResourceFlavor names it. */
export const KUEUE_RESOURCE_IN_USE_FINALIZER = 'kueue.x-k8s.io/resource-in-use';

/** What lets `finalizer` go, as an instruction to the operator. */
function release(finalizer: string, name: string): string {
  if (finalizer === KUEUE_RESOURCE_IN_USE_FINALIZER) {
    return `Kueue keeps ${finalizer} while a ResourceFlavor has spec.topologyName: ${name}; delete those ResourceFlavors (their topologyName cannot change) and create them again once the new Topology exists`;
  }
  return `${finalizer} is removed by whoever set it once it lets go of the object`;
}

const labels = (levels: TopologyChange['levels']) => labelsOf(levels ?? []).join(',');

/**
 * One template per held object (docs/troubleshooting.md quotes it): who
 * holds it, what the operator does next, and what happens after.
 */
export function heldDeletionMessage(kind: TopologyKind, source: string, change: TopologyChange): string {
  const finalizers = change.finalizers ?? [];
  const held =
    finalizers.length > 0 ? `held by finalizer ${finalizers.join(', ')}` : 'waiting for the API server to finish';
  const next = finalizers.map((f) => release(f, change.name)).join('; ');
  const after = change.levels ? `then it is created again with levels ${labels(change.levels)}` : 'then it is gone';
  return `${kind.title} ${change.name} of discovery source "${source}" is being deleted, ${held}${next ? `: ${next}` : ''}; ${after}. Until then the Nodes keep the labels of its levels ${labels(change.previous)}`;
}

/** The first line of a rejection's violations, for a one-line message. */
const firstViolation = (violations: string) => {
  const lines = violations.split('\n').filter((l) => l !== '');
  return lines.length > 1 ? `${lines[0]} (and ${lines.length - 1} more)` : (lines[0] ?? '');
};

const VERB: Readonly<Record<TopologyChange['action'], string>> = {
  create: 'created',
  replace: 'replaced',
  update: 'updated',
  delete: 'deleted',
  held: 'deleted',
};

/**
 * Why a change is not made now, and what it waits for (docs/troubleshooting.md
 * quotes these): the object of ours, if any, stays as it is meanwhile.
 */
export function waitMessage(kind: TopologyKind, source: string, change: TopologyChange, wait: TopologyWait): string {
  const what = `${kind.title} ${change.name} of discovery source "${source}"`;
  const stays = change.previous ? `; until then it stays with its levels ${labels(change.previous)}` : '';
  switch (wait.cause) {
    case 'labels':
      return change.action === 'create'
        ? `${what} waits for the Node labels its levels name (${wait.nodes} Nodes not yet labelled); it is created once they are written`
        : `${what} waits for the Node labels its new levels ${labels(change.levels)} name (${wait.nodes} Nodes not yet labelled); once they are written it is deleted and created again with them at once${stays}`;
    case 'rejected':
      return `${what} is not ${VERB[change.action]} while the latest snapshot of "${source}" is rejected (${firstViolation(wait.violations)}); it changes once a snapshot of "${source}" is accepted${stays}`;
    case 'no-snapshot':
      return `${what} is not ${VERB[change.action]} before discovery source "${source}", which still runs, produces a snapshot that is accepted${stays}`;
  }
}

/**
 * The whole sequence one change goes through, one step a line, for `plan`:
 * labels first (the old object stays until they are written), the delete
 * and whoever may hold it, the create once the old object is gone, and the
 * old levels' labels last.
 */
export function topologySequence(kind: TopologyKind, source: string, change: TopologyChange): string[] {
  const steps: string[] = [];
  if (change.waits)
    steps.push(
      change.waits.cause === 'labels'
        ? `the Node labels above are written first (${change.waits.nodes} Nodes)${change.previous ? `; until then ${change.name} stays as it is` : ''}`
        : waitMessage(kind, source, change, change.waits),
    );
  if (change.action === 'held') steps.push(heldDeletionMessage(kind, source, change));
  if (change.action === 'update')
    steps.push(`update the aliases of ${change.name} in place: ${describeLevels(change.levels ?? [])}`);
  if (change.action === 'replace' || change.action === 'delete') {
    const holders = change.finalizers ?? [];
    steps.push(
      holders.length > 0
        ? `delete ${change.name}; it carries finalizer ${holders.join(', ')}, so the deletion is held until that goes: ${holders.map((f) => release(f, change.name)).join('; ')}`
        : `delete ${change.name}`,
    );
  }
  if (change.levels && change.action !== 'update')
    steps.push(
      `${change.action === 'create' ? 'create' : 'create it again, once it is gone,'} with levels ${describeLevels(change.levels)}`,
    );
  const dropped = labelsOf(change.previous ?? []).filter(
    (k) => !labelsOf(change.levels ?? []).includes(k) && k !== HOSTNAME_LABEL,
  );
  if (dropped.length > 0 && change.action !== 'update')
    steps.push(`then the Node labels ${dropped.join(', ')}, which no live Topology names any more, are removed`);
  return steps;
}
