// The HyperNode conditions this controller maintains (status.conditions,
// standard metav1.Condition): their types and reasons in one place (the
// catalogue of docs/health.md describes each, condition-catalogue.ts), and the
// rule for merging them into a HyperNode's status. Ours: Volcano's controller
// fills no condition.

import type { HyperNodeCondition } from '../../model/hypernode-types.ts';

export type ConditionStatus = HyperNodeCondition['status'];

export interface ConditionReason {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
}

export const NODES_READY = 'NodesReady';
export const FABRIC_HEALTHY = 'FabricHealthy';
/** The condition types this controller owns; any other condition on a HyperNode is left as it is. */
export const HEALTH_CONDITION_TYPES: readonly string[] = Object.freeze([NODES_READY, FABRIC_HEALTHY]);

const define = (type: string, status: ConditionStatus, reason: string): ConditionReason => Object.freeze({ type, status, reason });

// Each reason's description and message shape are in condition-catalogue.ts.
export const ALL_NODES_READY = define(NODES_READY, 'True', 'AllNodesReady');
export const NODES_CORDONED = define(NODES_READY, 'True', 'NodesCordoned');
export const NODES_NOT_READY = define(NODES_READY, 'False', 'NodesNotReady');
export const LINKS_UP = define(FABRIC_HEALTHY, 'True', 'LinksUp');
export const LINKS_DOWN = define(FABRIC_HEALTHY, 'False', 'LinksDown');

/** The health conditions (this controller's types) a HyperNode holds False: what the tree and `why` mark. */
export function falseHealthConditions(conditions: readonly { type: string; status: string; message: string }[] | undefined): { type: string; message: string }[] {
  return (conditions ?? []).filter((c) => HEALTH_CONDITION_TYPES.includes(c.type) && c.status === 'False').map((c) => ({ type: c.type, message: c.message }));
}

/** One condition as this controller wants it, before the times are stamped. */
export interface DesiredCondition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** How many names a condition message lists before "and <m> more". */
export const MESSAGE_NAMES = 5;

/**
 * The conditions after applying `desired` to `current`: a type mapped to a
 * condition is set, one mapped to null is removed, others are kept. As
 * apimachinery's meta.SetStatusCondition, lastTransitionTime changes only
 * when the status does. Returns undefined when nothing changes (no write).
 */
export function mergeConditions(
  current: readonly HyperNodeCondition[] | undefined,
  desired: ReadonlyMap<string, DesiredCondition | null>,
  now: string,
  generation: number | undefined,
): HyperNodeCondition[] | undefined {
  const next: HyperNodeCondition[] = [];
  let changed = false;
  const seen = new Set<string>();
  for (const c of current ?? []) {
    seen.add(c.type);
    const want = desired.get(c.type);
    if (want === undefined) next.push(c);
    else if (want === null) changed = true;
    else {
      const same = c.status === want.status && c.reason === want.reason && c.message === want.message && c.observedGeneration === generation;
      if (!same) changed = true;
      next.push(same ? c : stamped(want, c.status === want.status ? c.lastTransitionTime : now, generation));
    }
  }
  for (const [type, want] of desired) {
    if (want === null || seen.has(type)) continue;
    changed = true;
    next.push(stamped(want, now, generation));
  }
  return changed ? next : undefined;
}

function stamped(c: DesiredCondition, lastTransitionTime: string, generation: number | undefined): HyperNodeCondition {
  return { type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime, ...(generation !== undefined ? { observedGeneration: generation } : {}) };
}

/** metav1.Time: RFC 3339 in seconds, as the API server stores it. */
export function conditionTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
