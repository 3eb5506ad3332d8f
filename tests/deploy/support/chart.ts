// What Volcano's Helm chart renders in standalone mode for release "volcano" in
// namespace "volcano-system" (its hypernode_controller.yaml template), written out as data so the
// manifests and the systemd unit can be compared with it.

export const RELEASE = 'volcano';
export const NAMESPACE = 'volcano-system';
export const LEASE_NAME = `${RELEASE}-hypernode-controller-manager`;

export interface Rule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

/** The chart's ClusterRole (deploy/kubernetes/rbac.yaml; docs/design.md §4, "RBAC"). */
export const CLUSTER_ROLE_RULES: Rule[] = [
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
  {
    apiGroups: ['topology.volcano.sh'],
    resources: ['hypernodes'],
    verbs: ['list', 'watch', 'create', 'update', 'delete'],
  },
  { apiGroups: ['topology.volcano.sh'], resources: ['hypernodes/status'], verbs: ['update'] },
];

/**
 * The chart's Role in the controller's namespace (deploy/kubernetes/rbac.yaml), but for the chart's get on every
 * Secret there, which ours grants by name in a Role of its own (SECRETS_RULES).
 */
export const ROLE_RULES: Rule[] = [
  { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [LEASE_NAME], verbs: ['get', 'update'] },
];

/**
 * Ours instead (deploy/kubernetes/rbac.yaml, a Role of its own): get on the named discovery Secrets only, the name
 * Volcano's docs give UFM's.
 */
export const SECRETS_RULES: Rule[] = [
  { apiGroups: [''], resources: ['secrets'], resourceNames: ['ufm-credentials'], verbs: ['get'] },
];

/** The container arguments (docs/deploy.md §2.3), chart defaults (metrics on, qps 50, burst 100, log level 4). */
export const CHART_ARGS = [
  '--logtostderr',
  '--enable-healthz=true',
  '--enable-metrics=true',
  '--leader-elect=true',
  `--leader-elect-resource-namespace=${NAMESPACE}`,
  `--leader-elect-resource-name=${LEASE_NAME}`,
  '--kube-api-qps=50',
  '--kube-api-burst=100',
  '-v=4',
  '2>&1',
];
