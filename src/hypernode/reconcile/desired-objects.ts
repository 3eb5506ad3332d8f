// The objects the reconciler writes, as pure functions of a snapshot and the
// cache: the snapshot as create bodies, whether an existing object needs an
// update, and the body of that update. Shared with the previews (render and
// plan show exactly what a create would send). Mirrors the object building of
// pkg/controllers/hypernode/utils/utils.go, without Go's status writes and
// label removal.

import {
  HYPERNODE_API_VERSION,
  HYPERNODE_KIND,
  type DiscoveredHyperNode,
  type HyperNode,
} from '../model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL } from '../model/hypernode-labels.ts';
import { labelValue } from '../model/label-reads.ts';
import { jsonEqual } from '../../util/json-equal.ts';

/**
 * The snapshot keyed by name (a later duplicate wins, as in Go), each a copy
 * carrying the source label, `spec.tier` always present, and no status: a
 * create never sends the discoverer's empty status.
 */
export function desiredByName(
  source: string,
  discovered: readonly DiscoveredHyperNode[],
): Map<string, DiscoveredHyperNode> {
  const desired = new Map<string, DiscoveredHyperNode>();
  for (const { status: _status, ...hn } of discovered) {
    // Shallow copies: nested spec parts are shared with the snapshot and never mutated.
    desired.set(hn.metadata.name, {
      ...hn,
      apiVersion: HYPERNODE_API_VERSION,
      kind: HYPERNODE_KIND,
      metadata: { ...hn.metadata, labels: { ...hn.metadata.labels, [NETWORK_TOPOLOGY_SOURCE_LABEL]: source } },
      spec: { ...hn.spec, tier: hn.spec.tier ?? 0 },
    });
  }
  return desired;
}

/**
 * True when PUTting desiredUpdate(current, want) would change what the server
 * holds: the spec differs, or a desired label/annotation is missing or has
 * another value. Compared in place, so the common unchanged case copies nothing.
 */
export function needsUpdate(current: HyperNode, want: HyperNode): boolean {
  return (
    !jsonEqual(want.spec, current.spec) ||
    !includesAll(current.metadata.labels, want.metadata.labels) ||
    !includesAll(current.metadata.annotations, want.metadata.annotations)
  );
}

/**
 * The object to PUT for an existing HyperNode: a copy of the cached one (its
 * resourceVersion included) with the spec replaced and the desired labels and
 * annotations merged over the current ones (Go never removes labels). Status is
 * left out: the main resource ignores it, and nodeCount belongs to the status writer.
 */
export function desiredUpdate(current: HyperNode, want: HyperNode): HyperNode {
  const body = structuredClone(current);
  delete body.status;
  body.spec = structuredClone(want.spec);
  body.metadata.labels = { ...current.metadata.labels, ...want.metadata.labels };
  if (want.metadata.annotations)
    body.metadata.annotations = { ...current.metadata.annotations, ...want.metadata.annotations };
  return body;
}

function includesAll(have: Record<string, string> | undefined, want: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(want ?? {})) if (labelValue(have, k) !== v) return false;
  return true;
}
