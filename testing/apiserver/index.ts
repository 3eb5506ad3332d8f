// Public entry of the Kubernetes API server stand-in used by integration
// tests, the demo and the benchmarks (see README.md beside this file).

export { startApiServer, ApiServer, ADMIN_TOKEN, ADMIN_USER, type ApiServerOptions } from './server.ts';
export type { KubeconfigOptions } from './kubeconfig.ts';
export { API_SERVER_AUDIENCE, hypernodeControllerRbac, type Grant, type PolicyRule } from './auth.ts';
export { accessReviewerRbac } from './access-reviews.ts';
export { isWriteRequest, type RequestRecord, type RequestMatch, type Verb } from './request-log.ts';
export type { FailureSpec } from './faults.ts';
export { StatusError, type Status, type StatusCause } from './status.ts';
export type { Obj } from './store.ts';
export {
  HYPERNODE_CRD_FILE,
  KAI_0_16_TOPOLOGY_CRD_FILE,
  KAI_TOPOLOGY_CRD_FILE,
  KUEUE_0_12_TOPOLOGY_CRD_FILE,
  KUEUE_0_13_TOPOLOGY_CRD_FILE,
  KUEUE_0_14_TOPOLOGY_CRD_FILE,
  KUEUE_RESOURCE_FLAVOR_CRD_FILE,
  KUEUE_TOPOLOGY_CRD_FILE,
  KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE,
} from './resources.ts';
export { KUEUE_RESOURCE_IN_USE_FINALIZER } from './kueue-topology-controller.ts';
