// The cluster every end-to-end test runs against: the API server stand-in
// with the chart's least-privilege RBAC for the controller's ServiceAccount,
// the worked examples of docs/design.md §9 (label and UFM), and the questions the
// tests ask of the store and the request log.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { HyperNode, HyperNodeCondition } from '../../src/hypernode/model/hypernode-types.ts';
import { discoverySecret, type SecretAllows } from '../../testing/discovery-secret.ts';
import {
  hypernodeControllerRbac,
  startApiServer,
  type ApiServer,
  type PolicyRule,
  type RequestRecord,
} from '../../testing/apiserver/index.ts';
import { discoveryConfigMap } from '../../testing/sample-cluster.ts';
import { computerPorts, type UfmPortJson } from '../../testing/ufm-server.ts';
import { waitFor } from '../../testing/wait.ts';
import { memberNames } from '../../testing/hypernode-members.ts';

export const NS = 'volcano-system';
export const LEASE = 'vc-hypernode-controller-manager';
export const CONTROLLER_USER = `system:serviceaccount:${NS}:volcano-hypernode-controller`;
export const CONFIG_MAP = 'volcano-controller-configmap';
export const SOURCE_LABEL = 'volcano.sh/network-topology-source';
export const RACK = 'volcano.sh/hypernode';
export const CLUSTER = 'volcano.sh/hypercluster';
/** The two replicas of the fencing tests (startReplicaCluster's users). */
export const REPLICA_A = `system:serviceaccount:${NS}:replica-a`;
export const REPLICA_B = `system:serviceaccount:${NS}:replica-b`;
/** Short timings so a takeover takes seconds: lease 4 s, renew deadline 3 s, retry 0.5 s. */
export const FAST_LEASE_TIMINGS = { leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '500ms' };
/** The verbs that change the store, as the request log records them. */
export const WRITE_VERBS: readonly string[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];
/** Label names: `hypernode-<type>-tier<N>-` and five of the 27 symbols Go draws from. */
export const LABEL_NAME = (type: string, tier: number) =>
  new RegExp(`^hypernode-${type}-tier${tier}-[bcdfghjklmnpqrstvwxz2456789]{5}$`);

export interface Cluster {
  api: ApiServer;
  kubeconfig: string;
  close(): Promise<void>;
}

/** `extraRules`: grants beyond the chart's, as an opt-in manifest overlay adds them. */
export async function startCluster(extraRules: PolicyRule[] = []): Promise<Cluster> {
  const api = await startApiServer({ namespaces: [NS] });
  const dir = mkdtempSync(join(tmpdir(), 'hn-e2e-'));
  const kubeconfig = api.writeKubeconfig(dir, {
    token: api.addUser(CONTROLLER_USER, [...hypernodeControllerRbac(NS, LEASE), ...extraRules]),
  });
  return {
    api,
    kubeconfig,
    async close() {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The label worked example (docs/design.md §9): the label source with type topologyA3 (hypercluster → hypernode →
 * hostname).
 */
export const TOPOLOGY_A3_ENTRY = `  - source: label
    enabled: true
    config:
      networkTopologyTypes:
        topologyA3:
          - nodeLabel: ${CLUSTER}
          - nodeLabel: ${RACK}
          - nodeLabel: kubernetes.io/hostname
`;
export const TOPOLOGY_A3_CONFIG = `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY}`;

/** The label worked example: node0..7 in racks s0..s3, racks s0,s1 under s4 and s2,s3 under s5. */
export function workedExampleNodes() {
  return [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
    node(`node${i}`, { [RACK]: `s${Math.floor(i / 2)}`, [CLUSTER]: i < 4 ? 's4' : 's5' }),
  );
}

/** The six HyperNodes of the label worked example, every one with nodeCount 2 (tier 2 counts its children). */
export function workedExampleConverged(api: ApiServer): HyperNode[] | undefined {
  const hns = hyperNodes(api);
  return hns.length === 6 && hns.every((hn) => nodeCount(hn) === 2) ? hns : undefined;
}

export function node(name: string, labels: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } } };
}

export function seedConfigMap(api: ApiServer, conf: string): void {
  api.store.create(discoveryConfigMap(NS, conf));
}

/** Replaces the discovery document as `kubectl edit` would. */
export function setDiscoveryConfig(api: ApiServer, conf: string | undefined): void {
  const cm = api.store.get('configmaps', CONFIG_MAP, NS) as { data?: Record<string, string> };
  api.store.update({ ...cm, data: conf === undefined ? {} : { 'volcano-controller.conf': conf } });
}

export function setNodeLabels(api: ApiServer, name: string, labels: Record<string, string | undefined>): void {
  const n = api.store.get('nodes', name) as { metadata: { labels?: Record<string, string> } };
  const next: Record<string, string> = { ...n.metadata.labels };
  for (const [k, v] of Object.entries(labels)) {
    if (v === undefined) delete next[k];
    else next[k] = v;
  }
  api.store.update({ ...n, metadata: { ...n.metadata, labels: next } });
}

export function hyperNodes(api: ApiServer, source?: string): HyperNode[] {
  const all = api.store.list('hypernodes') as unknown as HyperNode[];
  return source === undefined ? all : all.filter((hn) => hn.metadata.labels?.[SOURCE_LABEL] === source);
}

/** Name → uid of a source's HyperNodes: a name kept with another uid was deleted and created again. */
export const uidsByName = (api: ApiServer, source: string): Map<string, string | undefined> =>
  new Map(hyperNodes(api, source).map((hn) => [hn.metadata.name, hn.metadata.uid]));

/** A HyperNode's FabricHealthy condition (docs/health.md), if it carries one. */
export function fabricHealthy(hn: HyperNode | undefined): HyperNodeCondition | undefined {
  return hn?.status?.conditions?.find((c) => c.type === 'FabricHealthy');
}

/**
 * One sorted line per HyperNode of `source` (every source when omitted): `name uid member,member…`, to compare a tree
 * before and after.
 */
export function topologyShape(api: ApiServer, source?: string): string[] {
  return hyperNodes(api, source)
    .map((hn) => `${hn.metadata.name} ${hn.metadata.uid} ${memberNames(hn).join(',')}`)
    .sort();
}

/** The tier-1 HyperNode of `source` that has `host` as a member. */
export function leafOf(api: ApiServer, source: string, host: string): HyperNode | undefined {
  return hyperNodes(api, source).find((hn) => hn.spec?.tier === 1 && memberNames(hn).includes(host));
}

export function byName(hns: HyperNode[]): Map<string, HyperNode> {
  return new Map(hns.map((hn) => [hn.metadata.name, hn]));
}

/** The label HyperNode holding `key=value`. */
export function groupOf(api: ApiServer, key: string, value: string): HyperNode | undefined {
  return hyperNodes(api, 'label').find((hn) => hn.metadata.labels?.[key] === value);
}

export const nodeCount = (hn: HyperNode | undefined) => hn?.status?.nodeCount ?? 0;

/**
 * Whether every HyperNode's status.nodeCount already equals what its
 * exact-match members give (distinct names, a child HyperNode counting one, as
 * Go counts): the status worker has caught up with the last spec change, so a
 * later window sees no status write left over from it.
 */
export function nodeCountsSettled(api: ApiServer): boolean {
  return hyperNodes(api).every(
    (hn) => nodeCount(hn) === new Set((hn.spec?.members ?? []).map((m) => m.selector?.exactMatch?.name)).size,
  );
}

/**
 * Every HyperNode of a fabric source (lldp, graph, ibnetdiscover, ufm fabric mode) carries
 * FabricHealthy (docs/health.md) for its current generation: the condition
 * writer has caught up with the tree, so a later window sees no status write
 * left over from it (a member update bumps the generation, and the writer then
 * restamps observedGeneration).
 */
export function fabricHealthSettled(api: ApiServer): boolean {
  const fabric = (hn: HyperNode) =>
    ['lldp', 'graph', 'ibnetdiscover'].includes(hn.metadata.labels?.[SOURCE_LABEL] ?? '') ||
    hn.metadata.labels?.['volcano.sh/ufm-fabric'] !== undefined;
  return hyperNodes(api)
    .filter(fabric)
    .every((hn) =>
      hn.status?.conditions?.some((c) => c.type === 'FabricHealthy' && c.observedGeneration === hn.metadata.generation),
    );
}

/** HyperNode writes the controller sent (create, update, status update, delete, patch), answered or not. */
export function hyperNodeWrites(api: ApiServer): RequestRecord[] {
  return api.requests.writes((r) => r.resource === 'hypernodes' && r.user === CONTROLLER_USER);
}

/**
 * The controller's HyperNode writes once every one of them is answered: the
 * store changes before the response is sent, so a test that saw the new state
 * may otherwise read a record whose code is still 0.
 */
export async function answeredHyperNodeWrites(api: ApiServer): Promise<RequestRecord[]> {
  await waitFor(() => hyperNodeWrites(api).every((r) => r.code !== 0), {
    timeoutMs: 10_000,
    what: 'every HyperNode write to be answered',
  });
  return hyperNodeWrites(api);
}

/** `verb name[/subresource] → code`; a create (POST to the collection) has no name in its path: `create <new>`. */
export const describeWrites = (rs: RequestRecord[]) =>
  rs.map((r) => `${r.verb} ${r.name || '<new>'}${r.subresource ? `/${r.subresource}` : ''} → ${r.code}`);

/** Node writes the controller sent (health.taint, exports.nodeLabels), answered or not. */
export function nodeWrites(api: ApiServer): RequestRecord[] {
  return api.requests.writes((r) => r.resource === 'nodes' && r.user === CONTROLLER_USER);
}

/** The controller's Node writes once every one of them is answered (see answeredHyperNodeWrites). */
export async function answeredNodeWrites(api: ApiServer): Promise<RequestRecord[]> {
  await waitFor(() => nodeWrites(api).every((r) => r.code !== 0), {
    timeoutMs: 10_000,
    what: 'every Node write to be answered',
  });
  return nodeWrites(api);
}

/** A Node's taints as the API server holds them, `key[=value]:effect` each, in order. */
export function taintsOf(api: ApiServer, name: string): string[] {
  const n = api.store.get('nodes', name) as { spec?: { taints?: { key: string; value?: string; effect: string }[] } };
  return (n.spec?.taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`);
}

/** Every request beyond the chart's RBAC is a failure of the product: none may be refused. */
export function assertNoForbidden(api: ApiServer): void {
  const refused = api.requests.all((r) => r.code === 403 || r.code === 401);
  assert.equal(
    refused.map((r) => `${r.verb} ${r.path} → ${r.code}`),
    [],
    'requests refused by the least-privilege RBAC',
  );
}

export function assertNoDeletes(api: ApiServer): void {
  assert.equal(
    hyperNodeWrites(api)
      .filter((r) => r.verb === 'delete')
      .map((r) => `delete ${r.name}`),
    [],
    'HyperNode delete requests',
  );
}

/**
 * The UFM worked example (docs/design.md §9): node0..3 on leaf0..3, node4..7 on leaf4..7 (node4 and node7 miss leaf7).
 */
export function workedExamplePorts(): UfmPortJson[] {
  const leaves = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `leaf${from + i}`);
  return [
    ...computerPorts(['node0', 'node1', 'node2', 'node3'], leaves(0, 3)),
    ...computerPorts(['node4'], leaves(4, 6)),
    ...computerPorts(['node5', 'node6'], leaves(4, 7)),
    ...computerPorts(['node7'], leaves(4, 6)),
  ];
}

/**
 * A discovery Secret in NS allowing `allows` (testing/discovery-secret.ts), whose `data` values are given as plain
 * text and stored base64-encoded, as the API serves them.
 */
export function secretObject(name: string, data: Record<string, string>, allows: SecretAllows) {
  return discoverySecret(NS, name, data, allows);
}

export const UFM_SECRET = 'ufm-credentials';

/**
 * Creates or replaces the UFM credentials Secret, allowing `endpoint` (also with TLS verification off, as the tests
 * of the stand-in's certificate turn it off).
 */
export function seedUfmSecret(api: ApiServer, endpoint: string, username: string, password: string): void {
  api.store.apply(
    secretObject(UFM_SECRET, { username, password }, { endpoints: [endpoint], insecureSkipVerify: true }),
  );
}

export function ufmEntry(endpoint: string, opts: { interval?: string; insecureSkipVerify?: boolean } = {}): string {
  return `  - source: ufm
    enabled: true
    interval: ${opts.interval ?? '1h'}
    credentials:
      secretRef: {name: ${UFM_SECRET}, namespace: ${NS}}
    config:
      endpoint: ${endpoint}
${opts.insecureSkipVerify ? '      insecureSkipVerify: true\n' : ''}`;
}

/** The expected HyperNodes of the UFM worked example as name → sorted member names. */
export const UFM_WORKED_EXAMPLE: Record<string, { tier: number; type: string; members: string[] }> = {
  'leaf-hn-0': { tier: 1, type: 'Node', members: ['node0', 'node1', 'node2', 'node3'] },
  'leaf-hn-1': { tier: 1, type: 'Node', members: ['node4', 'node5', 'node6', 'node7'] },
  'spine-hn': { tier: 2, type: 'HyperNode', members: ['leaf-hn-0', 'leaf-hn-1'] },
};

export function ufmTree(api: ApiServer) {
  return Object.fromEntries(
    hyperNodes(api, 'ufm')
      .map(
        (hn) =>
          [
            hn.metadata.name,
            { tier: hn.spec!.tier, type: hn.spec!.members?.[0]?.type ?? '', members: memberNames(hn) },
          ] as const,
      )
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}
