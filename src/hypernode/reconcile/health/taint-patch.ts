// One Node's taint list with the controller's taint set or removed, and
// nothing else of it changed: `spec.taints` is one list the node lifecycle
// controller, the cloud provider, device plugins and operators all write, so
// every other taint goes back exactly as read (its timeAdded included), and
// the write carries the resourceVersion it was read at (a merge patch of an
// atomic list replaces it whole; a list changed since is answered 409 and
// read again). The controller's record (FABRIC_TAINT_ANNOTATION) says which
// taint is its own: the one equal to it, key, value and effect. Pure; the taint writer
// sends what this returns. Mirrors PatchNodeTaints and the taint helpers of
// kubernetes/pkg/controller/controller_utils.go.

import { isDeepStrictEqual } from 'node:util';
import type { NodeTaint as Taint, NodeTaintChange, NodeTaints } from '../../model/contracts.ts';
import { FABRIC_TAINT_ANNOTATION } from '../../model/hypernode-labels.ts';
import { formatFabricTaint, parseFabricTaint, type FabricTaint } from './fabric-taints.ts';

/**
 * What `node` should carry so that ours is `want` (undefined: none of ours);
 * undefined when it already does. A taint of the wanted key the record does
 * not name is someone else's (foreignTaint): it stays, and ours is not added
 * beside it.
 */
export function taintListChange(node: NodeTaints, want: FabricTaint | undefined): NodeTaintChange | undefined {
  const others = othersOf(node);
  const add = want !== undefined && !others.some((t) => t.key === want.key);
  const taints = add ? [...others, ourTaint(want)] : others;
  const record = add ? formatFabricTaint(want) : null;
  if (isDeepStrictEqual(taints, node.taints) && record === (node.fabricTaint ?? null)) return undefined;
  return { ...(node.resourceVersion !== undefined ? { resourceVersion: node.resourceVersion } : {}), taints, record };
}

/** Whether the Node carries a taint of `want`'s key that the controller did not set (it is tainted with it already). */
export function foreignTaint(node: NodeTaints, want: FabricTaint): boolean {
  return othersOf(node).some((t) => t.key === want.key);
}

/** Every taint but the one the record says is the controller's (equal to it, key, value and effect). */
function othersOf(node: NodeTaints): readonly Taint[] {
  const ours = parseFabricTaint(node.fabricTaint);
  if (!ours) return node.taints;
  return node.taints.filter((t) => t.key !== ours.key || t.effect !== ours.effect || (t.value ?? '') !== ours.value);
}

const ourTaint = (t: FabricTaint): Taint => ({ key: t.key, value: t.value, effect: t.effect });

/**
 * The JSON merge patch of a change, made against `resourceVersion`: the
 * record and the whole list (an empty one removes the field).
 */
export function taintMergePatch(change: NodeTaintChange): unknown {
  const { resourceVersion } = change;
  return {
    metadata: {
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      annotations: { [FABRIC_TAINT_ANNOTATION]: change.record },
    },
    spec: { taints: change.taints.length > 0 ? change.taints : null },
  };
}
