// The fabric taint's rig on the graph source (docs/health.md, "Node taint"):
// a graph document in a ConfigMap key, edited as an inventory system would,
// polled every second; Nodes with taints of their own; and reads of what
// the API server holds. Shared by tests/e2e/fabric-taints.test.ts and
// tests/security/taints.test.ts.

import type { RequestRecord } from '../../testing/apiserver/index.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { nodeTaintOverlayRules } from '../../testing/component-rbac.ts';
import {
  NS,
  fabricHealthSettled,
  hyperNodes,
  node,
  nodeCountsSettled,
  seedConfigMap,
  taintsOf,
  type Cluster,
} from './cluster.ts';
import type { Session } from './session.ts';

export type Api = Parameters<typeof hyperNodes>[0];
export type GraphDoc = ReturnType<typeof railGraphDocument>;

export const TAINT_KEY = 'topology.volcano.sh/fabric-unreachable';
/** The taint a GPU device plugin or operator sets on every GPU Node. */
export const GPU_TAINT = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };

/** The discovery document: `health` (a YAML block, '' for none) and one graph entry reading the ConfigMap key. */
export const graphConfig = (health: string) =>
  `${health}networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n    config:\n      fabric: lab\n      configMap: {namespace: ${NS}, name: fabric-graph, key: graph.json}\n`;

/** `health` with the taint on after `after` (and `more`, YAML lines of health). */
export const taintOn = (after: string, more = '') => `health:\n  taint: {after: ${after}}\n${more}`;

/** The graph document in its ConfigMap (any text: a broken one too), written as an inventory system would. */
export function setGraph(api: Api, doc: GraphDoc | string): void {
  const data = { 'graph.json': typeof doc === 'string' ? doc : JSON.stringify(doc) };
  const existing = api.store.get('configmaps', 'fabric-graph', NS);
  if (existing) api.store.update({ ...existing, data });
  else
    api.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fabric-graph', namespace: NS }, data });
}

/** The document without the links of `host` (on `rails`, every rail when absent). */
export function unlinked(doc: GraphDoc, host: string, rails?: readonly number[]): GraphDoc {
  const links = doc.links.filter((l) => {
    const a = (l as { a: { host?: string; port?: string } }).a;
    return a.host !== host || (rails !== undefined && !rails.includes(Number(a.port?.slice(3))));
  });
  return { ...doc, links };
}

/** Nodes named `hosts`, each with the taints `own` gives it. */
export function nodesWith(api: Api, hosts: readonly string[], own: Record<string, object[]> = {}): void {
  for (const h of hosts) api.store.create({ ...node(h, {}), spec: { taints: own[h] ?? [] } });
}

/**
 * The cluster every taint test starts from, under the chart's RBAC and
 * deploy/node-taints: `hosts` as Nodes with the taints `own` gives them,
 * `doc` in its ConfigMap, and the discovery ConfigMap holding `health` and
 * the graph entry. Starting the controller is the test's.
 */
export async function seedTaintLab(
  s: Session,
  lab: { doc: GraphDoc | string; hosts: readonly string[]; own?: Record<string, object[]>; health: string },
): Promise<Cluster> {
  const cluster = await s.startCluster(nodeTaintOverlayRules());
  nodesWith(cluster.api, lab.hosts, lab.own);
  setGraph(cluster.api, lab.doc);
  seedConfigMap(cluster.api, graphConfig(lab.health));
  return cluster;
}

/** Reads of the graph document so far: one a poll. */
export const graphReads = (api: Api) =>
  api.requests.count(
    (r: RequestRecord) => r.resource === 'configmaps' && r.query.fieldSelector === 'metadata.name=fabric-graph',
  );

/** Whether the leaf HyperNode `leaf` holds `host`. */
export const memberOf = (api: Api, leaf: string, host: string) =>
  hyperNodes(api, 'graph')
    .find((hn) => hn.metadata.name === leaf)
    ?.spec?.members?.some((m) => m.selector?.exactMatch?.name === host) === true;

/** The Node's taint of our key, `key=value:effect`, if it carries one. */
export const taintOf = (api: Api, name: string) => taintsOf(api, name).find((t) => t.startsWith(`${TAINT_KEY}=`));

/** The controller's record on the Node (FABRIC_TAINT_ANNOTATION). */
export const recordOf = (api: Api, name: string): string | undefined =>
  (api.store.get('nodes', name) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.[
    'topology.volcano.sh/fabric-taint'
  ];

/** The graph source's tree of `count` HyperNodes written, every nodeCount and FabricHealthy caught up. */
export const settled = (api: Api, count: number) =>
  hyperNodes(api, 'graph').length === count && nodeCountsSettled(api) && fabricHealthSettled(api);

/** Events of `reason` the controller filed, oldest first. */
export const eventsOf = (api: Api, reason: string) =>
  (api.store.list('events', NS) as { reason: string; message: string }[]).filter((e) => e.reason === reason);
