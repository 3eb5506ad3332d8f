// What node health keeps of a full Node object: its name, the status of its
// Ready condition, whether it is cordoned, and for the fabric taint its taints
// and the controller's record of the one it set. Applied to each Node as it
// arrives (list items as their bytes are read, watch events), so 100,000 full
// Nodes are never held: the cache stays a few dozen bytes per Node, and about
// a hundred more per taint.

import type { KubeObject } from '../../../kube/types.ts';
import type { NodeTaint as Taint, NodeTaints } from '../../model/contracts.ts';
import { FABRIC_TAINT_ANNOTATION } from '../../model/hypernode-labels.ts';
import type { ConditionStatus } from './conditions.ts';

export interface NodeHealth extends KubeObject {
  metadata: { name: string; resourceVersion?: string };
  /**
   * The Node's Ready condition; Unknown when the kubelet never posted one (the node lifecycle controller's reading).
   */
  readonly ready: ConditionStatus;
  /** spec.unschedulable: cordoned by an operator or a drain. */
  readonly unschedulable: boolean;
  /** spec.taints, every writer's. */
  readonly taints: readonly Taint[];
  /** The controller's record of the taint it set (FABRIC_TAINT_ANNOTATION), if any. */
  readonly fabricTaint?: string;
}

interface FullNode extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: ReadonlyArray<Partial<Record<keyof Taint, unknown>>> };
  status?: { conditions?: ReadonlyArray<{ type?: string; status?: string }> };
}

const isHealth = (o: KubeObject): o is NodeHealth => typeof (o as Partial<NodeHealth>).ready === 'string';

/** The informer transform: a full Node → its NodeHealth (idempotent, as the list reader requires). */
export function nodeHealthOf(obj: KubeObject): NodeHealth {
  if (isHealth(obj)) return obj;
  const node = obj as FullNode;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const { name, resourceVersion } = obj.metadata;
  const record = obj.metadata.annotations?.[FABRIC_TAINT_ANNOTATION];
  return {
    metadata: { name, ...(resourceVersion !== undefined ? { resourceVersion } : {}) },
    // Literals, not the parsed strings: 100,000 Nodes share three strings.
    ready: ready === 'True' ? 'True' : ready === 'False' ? 'False' : 'Unknown',
    unschedulable: node.spec?.unschedulable === true,
    taints: taintsOf(node),
    ...(typeof record === 'string' ? { fabricTaint: record } : {}),
  };
}

/** Shared by every Node without a taint. */
const NO_TAINTS: readonly Taint[] = Object.freeze([]);

/** The taints as sent, their four fields only; one that is not an object of a string key and effect is dropped. */
function taintsOf(node: FullNode): readonly Taint[] {
  const taints = node.spec?.taints;
  if (!Array.isArray(taints) || taints.length === 0) return NO_TAINTS;
  const out: Taint[] = [];
  for (const t of taints) {
    if (typeof t?.key !== 'string' || typeof t.effect !== 'string') continue;
    out.push({
      key: t.key,
      ...(typeof t.value === 'string' ? { value: t.value } : {}),
      effect: t.effect,
      ...(typeof t.timeAdded === 'string' ? { timeAdded: t.timeAdded } : {}),
    });
  }
  return out;
}

/** Whether the fabric taint's view of a Node changed: its taints or the controller's record. */
export function taintsChanged(a: NodeHealth, b: NodeHealth): boolean {
  return a.fabricTaint !== b.fabricTaint || JSON.stringify(a.taints) !== JSON.stringify(b.taints);
}

/** Whether two readings differ in anything health reports (a heartbeat that changes neither costs nothing). */
export function healthChanged(a: NodeHealth, b: NodeHealth): boolean {
  return a.ready !== b.ready || a.unschedulable !== b.unschedulable;
}

/** Why a Node counts as unhealthy in NodesReady, or undefined when it is Ready (absent: no Node object). */
export function readinessProblem(h: NodeHealth | undefined): 'gone' | 'NotReady' | 'Unknown' | undefined {
  if (!h) return 'gone';
  return h.ready === 'True' ? undefined : h.ready === 'False' ? 'NotReady' : 'Unknown';
}

/** The taints of a Node as the taint writer reads them (taint-patch.ts). */
export function nodeTaintsOf(h: NodeHealth): NodeTaints {
  const { name, resourceVersion } = h.metadata;
  return {
    name,
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    taints: h.taints,
    ...(h.fabricTaint !== undefined ? { fabricTaint: h.fabricTaint } : {}),
  };
}
