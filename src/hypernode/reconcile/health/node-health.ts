// What node health keeps of a full Node object: its name, the status of its
// Ready condition and whether it is cordoned. Applied to each Node as it
// arrives (list items as their bytes are read, watch events), so 100,000 full
// Nodes are never held: the cache stays a few dozen bytes per Node.

import type { KubeObject } from '../../../kube/types.ts';
import type { ConditionStatus } from './conditions.ts';

export interface NodeHealth extends KubeObject {
  metadata: { name: string; resourceVersion?: string };
  /**
   * The Node's Ready condition; Unknown when the kubelet never posted one (the node lifecycle controller's reading).
   */
  readonly ready: ConditionStatus;
  /** spec.unschedulable: cordoned by an operator or a drain. */
  readonly unschedulable: boolean;
}

interface FullNode extends KubeObject {
  spec?: { unschedulable?: boolean };
  status?: { conditions?: ReadonlyArray<{ type?: string; status?: string }> };
}

const isHealth = (o: KubeObject): o is NodeHealth => typeof (o as Partial<NodeHealth>).ready === 'string';

/** The informer transform: a full Node → its NodeHealth (idempotent, as the list reader requires). */
export function nodeHealthOf(obj: KubeObject): NodeHealth {
  if (isHealth(obj)) return obj;
  const node = obj as FullNode;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const { name, resourceVersion } = obj.metadata;
  return {
    metadata: { name, ...(resourceVersion !== undefined ? { resourceVersion } : {}) },
    // Literals, not the parsed strings: 100,000 Nodes share three strings.
    ready: ready === 'True' ? 'True' : ready === 'False' ? 'False' : 'Unknown',
    unschedulable: node.spec?.unschedulable === true,
  };
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
