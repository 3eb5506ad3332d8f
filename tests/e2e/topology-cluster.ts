// The cluster the Topology object scenarios share: eight Nodes of the label
// worked example (racks s0 to s3 in clusters s4 and s5), the label source over
// given keys exporting Node labels under topo.example.com and the Topology
// kinds asked for, the API server stand-in with the chart's RBAC plus the
// deploy/node-labels overlay, serving the Kueue and KAI CRDs given.

import type { Session } from './session.ts';
import {
  KAI_TOPOLOGY_CRD_FILE,
  KUEUE_RESOURCE_FLAVOR_CRD_FILE,
  KUEUE_TOPOLOGY_CRD_FILE,
  type ApiServer,
} from '../../testing/apiserver/index.ts';
import { nodeLabelOverlayRules } from '../../testing/component-rbac.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import { CLUSTER, CONTROLLER_USER, NS, RACK, node, seedConfigMap } from './cluster.ts';

export const PREFIX = 'topo.example.com';
export const HOST = 'kubernetes.io/hostname';
export const KUEUE = 'topologies.kueue.x-k8s.io';
export const KAI = 'topologies.kai.scheduler';

/** The label source over `keys` (highest first) with the given exports. */
export function config(exports: string, keys: string[] = [CLUSTER, RACK]): string {
  const levels = [...keys, HOST].map((k) => `          - nodeLabel: ${k}\n`).join('');
  return `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n${exports}    config:\n      networkTopologyTypes:\n        topologyA3:\n${levels}`;
}
export const BOTH_EXPORTS = '      kueueTopology: true\n      kaiTopology: true\n';
export const BOTH = config(BOTH_EXPORTS);

export type Topo = {
  apiVersion: string;
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec: { levels: Array<{ nodeLabel: string; alias?: string }> };
};
export const topo = (api: ApiServer, resource: string, name = 'hypernode-label') =>
  api.store.get(resource, name) as Topo | undefined;
export const levels = (api: ApiServer, resource: string, name = 'hypernode-label') =>
  topo(api, resource, name)?.spec.levels.map((l) => l.nodeLabel);
export const topologyWrites = (api: ApiServer) =>
  api.requests.writes((r) => r.resource === 'topologies' && r.user === CONTROLLER_USER);

/** A current Kueue (Topology at v1beta2 and v1beta1) and KAI 0.17. */
export const CURRENT = [KUEUE_TOPOLOGY_CRD_FILE, KUEUE_RESOURCE_FLAVOR_CRD_FILE, KAI_TOPOLOGY_CRD_FILE];

/**
 * Starts the cluster with `crds` (true: CURRENT), Nodes carrying `extraLabels` too, and (unless `run` is false) the
 * controller.
 */
export async function startTopologyCluster(
  s: Session,
  conf: string,
  crds: boolean | string[] = true,
  extraLabels: Record<string, string> = {},
  run = true,
): Promise<ApiServer> {
  const { api, kubeconfig } = await s.startCluster(nodeLabelOverlayRules());
  for (const f of crds === true ? CURRENT : crds === false ? [] : crds) api.installCrd(f);
  for (let i = 0; i < 8; i++)
    api.store.create(node(`node${i}`, { [RACK]: `s${i >> 1}`, [CLUSTER]: i < 4 ? 's4' : 's5', ...extraLabels }));
  seedConfigMap(api, conf);
  if (run) s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  return api;
}
