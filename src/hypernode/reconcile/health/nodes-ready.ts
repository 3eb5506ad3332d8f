// The NodesReady condition of one HyperNode from the Nodes below it
// (docs/health.md): False when one of them is NotReady, Unknown or gone (no
// Node object); True otherwise, with cordoned Nodes counted in the message and
// their own reason: cordoning is an operator's decision, not a failure.

import type { Lister } from '../../../kube/types.ts';
import {
  ALL_NODES_READY,
  conditionOf,
  MESSAGE_NAMES,
  NODES_CORDONED,
  NODES_NOT_READY,
  type DesiredCondition,
} from './conditions.ts';
import { firstFew } from '../../../util/first-few.ts';
import { readinessProblem, type NodeHealth } from './node-health.ts';

export interface NodesReadyJudgement {
  readonly condition: DesiredCondition;
  /** The Nodes that make it False, with why: `node-3 (NotReady)`. */
  readonly unhealthy: readonly string[];
}

export function judgeNodesReady(nodes: readonly string[], health: Lister<NodeHealth>): NodesReadyJudgement {
  const unhealthy: string[] = [];
  const cordoned: string[] = [];
  for (const n of nodes) {
    const why = readinessProblem(health.get(n));
    if (why !== undefined) unhealthy.push(`${n} (${why})`);
    else if (health.get(n)?.unschedulable) cordoned.push(n);
  }
  if (unhealthy.length > 0)
    return {
      condition: conditionOf(
        NODES_NOT_READY,
        `${unhealthy.length} of ${nodes.length} Nodes not ready: ${firstFew(unhealthy, MESSAGE_NAMES)}.`,
      ),
      unhealthy,
    };
  // No count in a True message: a tree that grows would otherwise rewrite every HyperNode above it.
  if (cordoned.length > 0)
    return {
      condition: conditionOf(
        NODES_CORDONED,
        `Every Node is Ready; ${cordoned.length} cordoned: ${firstFew(cordoned, MESSAGE_NAMES)}.`,
      ),
      unhealthy,
    };
  return { condition: conditionOf(ALL_NODES_READY), unhealthy };
}
