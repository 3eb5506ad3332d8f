// The HyperNode conditions this controller maintains (status.conditions,
// standard metav1.Condition): each reason defined once with what docs/health.md
// says of it, and the rule for merging them into a HyperNode's status. Ours:
// Volcano's controller fills no condition.

import type { HyperNodeCondition } from '../../model/hypernode-types.ts';

export type ConditionStatus = HyperNodeCondition['status'];

export interface ConditionReason {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  /** When it is set, in one line (docs/health.md). */
  readonly when: string;
  /** The message's shape (docs/health.md). */
  readonly message: string;
}

export const NODES_READY = 'NodesReady';
export const FABRIC_HEALTHY = 'FabricHealthy';
export const TOPOLOGY_LABELS_PRESENT = 'TopologyLabelsPresent';
/** The condition types this controller owns; any other condition on a HyperNode is left as it is. */
export const HEALTH_CONDITION_TYPES: readonly string[] = Object.freeze([
  NODES_READY,
  FABRIC_HEALTHY,
  TOPOLOGY_LABELS_PRESENT,
]);

const define = (r: ConditionReason): ConditionReason => Object.freeze(r);

export const ALL_NODES_READY = define({
  type: NODES_READY,
  status: 'True',
  reason: 'AllNodesReady',
  when: 'Every Node below the HyperNode has Ready=True.',
  message: 'Every Node is Ready.',
});
export const NODES_CORDONED = define({
  type: NODES_READY,
  status: 'True',
  reason: 'NodesCordoned',
  when: 'Every Node below is Ready and some are cordoned (spec.unschedulable): an operator decision, not a failure.',
  message: 'Every Node is Ready; <k> cordoned: <first names>.',
});
export const NODES_NOT_READY = define({
  type: NODES_READY,
  status: 'False',
  reason: 'NodesNotReady',
  when: 'A Node below is NotReady, Unknown (or never reported Ready) or gone (named as a member, no Node object).',
  message: '<k> of <n> Nodes not ready: <name> (NotReady | Unknown | gone), … (the first 5, then "and <m> more").',
});
export const LINKS_UP = define({
  type: FABRIC_HEALTHY,
  status: 'True',
  reason: 'LinksUp',
  when: "The source's last poll of the fabric found every link of the last good poll.",
  message: 'Every link of the last good poll is present.',
});
export const LINKS_DOWN = define({
  type: FABRIC_HEALTHY,
  status: 'False',
  reason: 'LinksDown',
  when: "A link of a switch in the HyperNode's group is missing or down against the last good poll (within health.linkGracePeriod).",
  message:
    '<k> fabric problem(s): <switch> port <port> (link to host <host> | switch <switch> port <port> missing), … (the first 5, then "and <m> more").',
});

export const LABELS_PRESENT = define({
  type: TOPOLOGY_LABELS_PRESENT,
  status: 'True',
  reason: 'LabelsPresent',
  when: 'Every Node the HyperNode holds directly carries the labels that place it (or lost one longer ago than health.labelGracePeriod and moved).',
  message: 'Every Node carries the labels that place it.',
});
export const LABELS_MISSING = define({
  type: TOPOLOGY_LABELS_PRESENT,
  status: 'False',
  reason: 'LabelsMissing',
  when: 'A Node it holds directly lost a label that places it (a level label, the NVLink label) and is kept in place until health.labelGracePeriod ends; then it moves. lastTransitionTime: when the first of them went missing.',
  message:
    '<k> Node(s) kept in place while labels are missing: <node> (<key>, …) until <time>, … (the first 5 by time, then "and <m> more until <time> at the latest").',
});

/** Every reason, in the order docs/health.md lists them (its table is checked against this list). */
const NODES_READY_REASONS = [ALL_NODES_READY, NODES_CORDONED, NODES_NOT_READY];
const FABRIC_HEALTHY_REASONS = [LINKS_UP, LINKS_DOWN];
const TOPOLOGY_LABELS_PRESENT_REASONS = [LABELS_PRESENT, LABELS_MISSING];
export const CONDITION_REASONS: readonly ConditionReason[] = [
  ...NODES_READY_REASONS,
  ...FABRIC_HEALTHY_REASONS,
  ...TOPOLOGY_LABELS_PRESENT_REASONS,
];

/** The health conditions (this controller's types) a HyperNode holds False: what the tree and `why` mark. */
export function falseHealthConditions(
  conditions: readonly { type: string; status: string; message: string }[] | undefined,
): { type: string; message: string }[] {
  return (conditions ?? [])
    .filter((c) => HEALTH_CONDITION_TYPES.includes(c.type) && c.status === 'False')
    .map((c) => ({ type: c.type, message: c.message }));
}

/** One condition as this controller wants it, before the times are stamped. */
export interface DesiredCondition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** The condition `reason` stands for, with `message` (a reason whose message is fixed text needs none). */
export function conditionOf(reason: ConditionReason, message = reason.message): DesiredCondition {
  return { type: reason.type, status: reason.status, reason: reason.reason, message };
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
      const same =
        c.status === want.status &&
        c.reason === want.reason &&
        c.message === want.message &&
        c.observedGeneration === generation;
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
  return {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    lastTransitionTime,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}

/** metav1.Time: RFC 3339 in seconds, as the API server stores it. */
export function conditionTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
