// The reads `plan` and `kubectl hypernode` make against a cluster, through the
// controller's own client (the same configuration resolution, User-Agent, QPS
// and burst), so they see what the controller would: Nodes as it caches them
// (metadata only), HyperNodes, the discovery ConfigMap, the Secrets the
// sources name and the Topology objects. Lists are paged by the reflector's
// pager; nothing is watched or written, so get and list rights are enough.

import { topologyObjects } from '../app/topology-object-client.ts';
import type { TopologyObjectClient } from '../hypernode/model/contracts.ts';
import type { SecretClient } from '../hypernode/model/contracts.ts';
import {
  HYPERNODE_API_VERSION,
  HYPERNODE_CRD_MISSING_HINT,
  HYPERNODE_KIND,
  HYPERNODES,
  type ConfigMap,
  type HyperNode,
  type NodeMeta,
  type Secret,
} from '../hypernode/model/hypernode-types.ts';
import type { ConfigMapLocation } from '../hypernode/config/location.ts';
import { buildClientConfig, type ConfigEnvironment } from '../kube/config.ts';
import { explainMissing, keepNameLabelsAnd, PARTIAL_OBJECT_METADATA_LIST_ACCEPT } from '../kube/informer.ts';
import { isRecordAnnotation } from '../hypernode/model/hypernode-labels.ts';
import { LIST_PAGE_SIZE, listAllPages } from '../kube/list-pager.ts';
import { nodeHealthOf, type NodeHealth } from '../hypernode/reconcile/health/node-health.ts';
import { CONFIG_MAPS, NODES, SECRETS } from '../kube/core-resources.ts';
import { resourceClient, type ListOptions, type ResourceClient } from '../kube/resource.ts';
import { RestClient } from '../kube/rest.ts';
import { Transport } from '../kube/transport.ts';
import type { KubeObject } from '../kube/types.ts';
import { userAgent } from '../kube/user-agent.ts';
import type { Logger } from '../log.ts';
import { goPlatform } from '../version.ts';

/**
 * A one-shot command should fail in about a second when the API server cannot
 * be reached, not after the controller's five retries.
 */
const MAX_RETRIES = 2;

export interface ClusterFlags {
  readonly master: string;
  readonly kubeconfig: string;
  /** A kubeconfig context other than its current one. */
  readonly context?: string;
  /** Kubeconfig files merged after `kubeconfig`, as kubectl merges $KUBECONFIG (the plugin). */
  readonly mergedKubeconfigs?: readonly string[];
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
}

export interface ClusterIdentity {
  readonly program: string;
  readonly version: { readonly gitVersion: string; readonly gitCommit: string };
  /** The User-Agent's last part, naming the caller. */
  readonly suffix: string;
}

export interface ClusterReader {
  nodes(): Promise<NodeMeta[]>;
  /** One Node by name (its labels are what `kubectl hypernode why` explains). */
  node(name: string): Promise<NodeMeta>;
  /** One Node's readiness and cordon (`kubectl hypernode why` says why it counts as unhealthy). */
  nodeHealth(name: string): Promise<NodeHealth>;
  hyperNodes(): Promise<HyperNode[]>;
  /** The ConfigMap at `where`, or undefined when there is none. */
  configMap(where: ConfigMapLocation): Promise<ConfigMap | undefined>;
  /** The Secrets of `namespace`, the only one a source may name (plan passes the controller's). */
  secrets(namespace: string): SecretClient;
  /** Reads the Kueue and KAI Topology objects (discovery and list only). */
  readonly topologyObjects: Pick<TopologyObjectClient, 'servedVersions' | 'servedSchema' | 'list'>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** Resolves the client configuration (no network I/O yet); throws with client-go's texts on a bad one. */
export function connectCluster(
  flags: ClusterFlags,
  identity: ClusterIdentity,
  logger: Logger,
  environment: ConfigEnvironment,
): ClusterReader {
  const transport = new Transport(buildClientConfig(flags, logger, environment));
  const rest = new RestClient({
    transport,
    userAgent: userAgent(
      {
        program: identity.program,
        version: identity.version.gitVersion,
        platform: goPlatform(),
        commit: identity.version.gitCommit,
      },
      identity.suffix,
    ),
    qps: flags.kubeApiQps,
    burst: flags.kubeApiBurst,
    maxRetries: MAX_RETRIES,
  });
  const nodes = resourceClient<KubeObject>(rest, NODES);
  const hyperNodes = resourceClient<HyperNode>(rest, HYPERNODES);
  const configMaps = resourceClient<ConfigMap>(rest, CONFIG_MAPS);
  const secrets = resourceClient<Secret>(rest, SECRETS);
  return {
    nodes: async () =>
      (await listAll(nodes, {
        accept: PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
        eachItem: keepNameLabelsAnd(isRecordAnnotation),
      })) as NodeMeta[],
    node: async (name) => keepNameLabelsAnd(isRecordAnnotation)(await nodes.get(name)) as NodeMeta,
    nodeHealth: async (name) => nodeHealthOf(await nodes.get(name)),
    // Typed list items carry no apiVersion/kind; the plan prints whole objects, so they get them back.
    // A cluster without the CRD answers 404: say what is missing, as the controller does.
    hyperNodes: async () =>
      (await listAll(hyperNodes, {}).catch(explainMissing(hyperNodes.descriptor, HYPERNODE_CRD_MISSING_HINT))).map(
        (hn) => ({
          ...hn,
          apiVersion: HYPERNODE_API_VERSION,
          kind: HYPERNODE_KIND,
        }),
      ),
    // A list filtered to the one name, as the controller's informer reads it: the chart's Role grants list, not get.
    configMap: async (where) =>
      (await listAll(configMaps, { namespace: where.namespace, fieldSelector: `metadata.name=${where.name}` }))[0],
    secrets: (only) => ({
      namespace: only,
      get: (namespace, name, signal) => secrets.get(name, { namespace, ...(signal ? { signal } : {}) }),
    }),
    topologyObjects: topologyObjects(rest),
    close: () => transport.close(),
  };
}

/** Every item, LIST_PAGE_SIZE a page, as a consistent read. */
async function listAll<T extends KubeObject>(client: ResourceClient<T>, opts: ListOptions): Promise<T[]> {
  return (
    await listAllPages((request) => client.list({ ...opts, ...request }), {
      resource: client.descriptor.resource,
      limit: LIST_PAGE_SIZE,
    })
  ).items;
}
