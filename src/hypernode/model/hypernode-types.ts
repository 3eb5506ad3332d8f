// The HyperNode API types (topology.volcano.sh/v1alpha1), typed once for every
// wing. Mirrors volcano.sh/apis pkg/apis/topology/v1alpha1/hypernode_types.go;
// the CRD is Volcano's topology.volcano.sh_hypernodes.yaml (the tests' API
// server enforces a copy). The labels are in hypernode-labels.ts.

import type { ResourceDescriptor } from '../../kube/resource.ts';
import type { KubeObject, ObjectMeta } from '../../kube/types.ts';

export const HYPERNODE_GROUP = 'topology.volcano.sh';
export const HYPERNODE_VERSION = 'v1alpha1';
export const HYPERNODE_API_VERSION = `${HYPERNODE_GROUP}/${HYPERNODE_VERSION}`;
export const HYPERNODE_KIND = 'HyperNode';
export const HYPERNODE_RESOURCE = 'hypernodes';
export const HYPERNODES: ResourceDescriptor = {
  group: HYPERNODE_GROUP,
  version: HYPERNODE_VERSION,
  resource: HYPERNODE_RESOURCE,
  namespaced: false,
};
/** Added to the 404 the API server answers for HyperNodes when the CRD is not installed. */
export const HYPERNODE_CRD_MISSING_HINT = 'is the HyperNode CRD installed?';

export type MemberType = 'Node' | 'HyperNode';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface MemberSelector {
  exactMatch?: { name: string };
  regexMatch?: { pattern: string };
  labelMatch?: LabelSelector;
}

/** The CRD requires only `type`; a hand-written member may have no selector. */
export interface MemberSpec {
  type: MemberType;
  selector?: MemberSelector;
}

export interface HyperNodeSpec {
  tier: number;
  tierName?: string;
  members?: MemberSpec[];
}

export interface HyperNodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface HyperNodeStatus {
  conditions?: HyperNodeCondition[];
  /** Absent means 0 (Go omits zero). */
  nodeCount?: number;
}

/**
 * A HyperNode as the API server holds it. The CRD makes `spec` optional, so
 * a hand-made object may lack it: code reading cached HyperNodes must treat
 * a missing spec (or members, or selector) as "no members".
 */
export interface HyperNode extends KubeObject {
  metadata: ObjectMeta;
  spec?: HyperNodeSpec;
  status?: HyperNodeStatus;
}

/** A member as a discoverer builds it: always with a selector. */
export interface DiscoveredMember extends MemberSpec {
  selector: MemberSelector;
}

/**
 * A HyperNode as a discoverer builds it: spec, members and selectors always
 * present. Only what the controller creates has this shape; what it reads
 * back from the cluster is a HyperNode.
 */
export interface DiscoveredHyperNode extends HyperNode {
  spec: HyperNodeSpec & { members: DiscoveredMember[] };
}

/** A Node as the controller caches it: name and labels only (metadata-only watch). */
export interface NodeMeta extends KubeObject {
  /** annotations: only those the cache keeps (the controller's own ownership records). */
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export interface Secret extends KubeObject {
  /** base64-encoded values */
  data?: Record<string, string>;
}
