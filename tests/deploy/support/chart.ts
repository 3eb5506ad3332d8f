// What Volcano's Helm chart renders in standalone mode for release "volcano" in
// namespace "volcano-system" (06-deploy §2.2–§2.4), written out as data so the
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

/** 06-deploy §2.2 */
export const CLUSTER_ROLE_RULES: Rule[] = [
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
  { apiGroups: ['topology.volcano.sh'], resources: ['hypernodes'], verbs: ['list', 'watch', 'create', 'update', 'delete'] },
  { apiGroups: ['topology.volcano.sh'], resources: ['hypernodes/status'], verbs: ['update'] },
];

/** 06-deploy §2.3 */
export const ROLE_RULES: Rule[] = [
  { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [LEASE_NAME], verbs: ['get', 'update'] },
];

/** 06-deploy §2.4, chart defaults (metrics on, qps 50, burst 100, log level 4). */
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
