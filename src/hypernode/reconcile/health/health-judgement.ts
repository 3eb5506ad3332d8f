// What the health conditions of one HyperNode should be (docs/health.md),
// judged from the `health` settings in force, the Nodes below it and what
// its fabric source reports, and which of their changes are worth an Event:
// pure functions the status writer (../status-writer.ts) calls, and merges
// into the status it writes with mergeConditions.

import type { Lister } from '../../../kube/types.ts';
import type { HealthSettings } from '../../config/health-config.ts';
import { HYPERNODE_HEALTHY, HYPERNODE_UNHEALTHY, type EventReason } from '../../event-reasons.ts';
import type { FabricHealthProblem, HeldNode } from '../../model/contracts.ts';
import type { HyperNodeCondition } from '../../model/hypernode-types.ts';
import {
  FABRIC_HEALTHY,
  HEALTH_CONDITION_TYPES,
  NODES_READY,
  TOPOLOGY_LABELS_PRESENT,
  type DesiredCondition,
} from './conditions.ts';
import { judgeFabricHealthy } from './fabric-health.ts';
import { judgeTopologyLabelsPresent } from './label-holds.ts';
import type { NodeHealth } from './node-health.ts';
import { judgeNodesReady } from './nodes-ready.ts';

export interface HealthInputs {
  readonly settings: HealthSettings;
  /** The synced Node health cache; undefined while there is none (NodesReady is then left as it is). */
  readonly nodeHealth: Lister<NodeHealth> | undefined;
  /** The Nodes below the HyperNode (asked only when NodesReady is judged). */
  readonly nodesBelow: () => readonly string[];
  /** Its problems as its fabric source reported them; undefined when the source reports no fabric health. */
  readonly fabricProblems: readonly FabricHealthProblem[] | undefined;
  /**
   * The Nodes it holds that the label memory keeps in place; null when its
   * source keeps no label memory (the condition is removed), undefined before
   * the source said (left as it is: a restart reads it back).
   */
  readonly heldNodes: readonly HeldNode[] | null | undefined;
}

export interface HealthVerdict {
  /** Per condition type: the condition wanted, or null to remove it; a type absent is left as it is. */
  readonly desired: ReadonlyMap<string, DesiredCondition | null>;
  /** The Nodes below that are not Ready (0 when NodesReady is not judged). */
  readonly unhealthyNodes: number;
}

export function judgeHealth(i: HealthInputs): HealthVerdict {
  const desired = new Map<string, DesiredCondition | null>();
  let unhealthyNodes = 0;
  if (!i.settings.nodes) desired.set(NODES_READY, null);
  else if (i.nodeHealth) {
    const judged = judgeNodesReady(i.nodesBelow(), i.nodeHealth);
    desired.set(NODES_READY, judged.condition);
    unhealthyNodes = judged.unhealthy.length;
  }
  if (!i.settings.fabric) desired.set(FABRIC_HEALTHY, null);
  else if (i.fabricProblems) desired.set(FABRIC_HEALTHY, judgeFabricHealthy(i.fabricProblems));
  if (i.settings.labelGracePeriodMs === 0 || i.heldNodes === null) desired.set(TOPOLOGY_LABELS_PRESENT, null);
  else if (i.heldNodes) desired.set(TOPOLOGY_LABELS_PRESENT, judgeTopologyLabelsPresent(i.heldNodes));
  return { desired, unhealthyNodes };
}

/** An Event a written status change is worth. */
export interface HealthTransition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly event: EventReason;
  readonly message: string;
}

/** One per health condition that turned False (Warning) or back to True (Normal); a new True condition is none. */
export function healthTransitions(
  name: string,
  before: readonly HyperNodeCondition[],
  after: readonly HyperNodeCondition[],
): HealthTransition[] {
  const out: HealthTransition[] = [];
  for (const c of after) {
    if (!HEALTH_CONDITION_TYPES.includes(c.type)) continue;
    const was = before.find((b) => b.type === c.type)?.status;
    if (was === c.status || (was === undefined && c.status === 'True')) continue;
    const event = c.status === 'False' ? HYPERNODE_UNHEALTHY : HYPERNODE_HEALTHY;
    out.push({
      type: c.type,
      status: c.status,
      reason: c.reason,
      event,
      message: `HyperNode ${name}: ${c.type}=${c.status} (${c.reason}): ${c.message}`,
    });
  }
  return out;
}
