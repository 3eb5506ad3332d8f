// What leadership runs the controller on (docs/design.md §2): the three
// informers (Nodes metadata-only with our records, the one discovery
// ConfigMap, HyperNodes), the clients of every write, the Secrets and
// ConfigMaps sources read, the Event recorder, and the process's metrics and
// policies: the ControllerContext the controller factory is handed. A dry run
// swaps every write and Event for a sink that logs and counts it. Nothing here
// does I/O until it runs.

import type { MonotonicClock } from '../kube/clock.ts';
import { keepNameLabelsAnd, resourceInformer } from '../kube/informer.ts';
import { metadataMergePatch } from '../kube/metadata-patch.ts';
import { CONFIG_MAPS, NODES, SECRETS } from '../kube/core-resources.ts';
import { resourceClient } from '../kube/resource.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import type { Logger } from '../log.ts';
import type {
  HyperNodeClient,
  NodeLabelClient,
  NodeTaintClient,
  TopologyObjectClient,
} from '../hypernode/model/contracts.ts';
import { isRecordAnnotation } from '../hypernode/model/hypernode-labels.ts';
import {
  HYPERNODE_CRD_MISSING_HINT,
  HYPERNODES,
  type ConfigMap,
  type HyperNode,
  type NodeMeta,
  type Secret,
} from '../hypernode/model/hypernode-types.ts';
import { dryRunSinks } from '../hypernode/preview/dry-run.ts';
import { nodeHealthOf, type NodeHealth } from '../hypernode/reconcile/health/node-health.ts';
import type { TopologyStateRecorder } from '../hypernode/reconcile/topology-state.ts';
import { eventSinkOn, type ClientSets } from './client-sets.ts';
import { configMapEventRecorder } from './controller-events.ts';
import type { ControllerContext, RunnableInformer } from './controller-runner.ts';
import type { Metrics } from './metrics.ts';
import { nodeTaints } from './node-taint-client.ts';
import type { ResolvedOptions } from './options.ts';
import { topologyObjects } from './topology-object-client.ts';
import { workerErrorReporter } from './worker-errors.ts';

/** The context the controller is built from, and the informers it reads, run and synced before it starts. */
export interface ControllerInputs {
  readonly context: ControllerContext;
  readonly informers: readonly RunnableInformer[];
}

export interface ControllerContextDeps {
  readonly clock: MonotonicClock;
  readonly metrics: Metrics;
  /** Where Events say they come from. */
  readonly hostname: string;
  /** Where the topology page's state is recorded (--enable-topology-page). */
  readonly topologyState: TopologyStateRecorder | undefined;
}

export function newControllerInputs(
  options: ResolvedOptions,
  logger: Logger,
  clients: ClientSets,
  deps: ControllerContextDeps,
): ControllerInputs {
  const { clock, metrics } = deps;
  const informers = controllerInformers(options, logger, clients, clock);
  const writes = writeClients(clients.volcano);
  const events = eventSinkOn(clients.core, { hostname: deps.hostname, clock, logger });
  const apiContext: ControllerContext = {
    ...informers,
    ...writes,
    ...sourceReads(options, clients.core),
    events: configMapEventRecorder(events, informers.configMaps, options.configMap),
    configMap: options.configMap,
    clock,
    logger,
    registry: metrics.registry,
    queueMetrics: (name) => metrics.queue(name),
    workerErrors: workerErrorReporter(metrics, logger),
    ...(deps.topologyState ? { topologyState: deps.topologyState } : {}),
    // health.nodes: a second, full Node watch, started and stopped by the controller; each Node is cut down to its
    // health on arrival.
    nodeHealthInformer: () =>
      resourceInformer<NodeHealth>(resourceClient(clients.core, NODES), {
        transform: nodeHealthOf,
        clock,
        logger,
      }),
    // Every controller write goes through the volcano client set: its rate limit and measured answer times say how many
    // to keep in flight.
    writeConcurrency: () => clients.volcano.pace.concurrency(),
    inputPolicy: options.inputPolicy,
  };
  return {
    context: options.dryRun ? dryRunContext(apiContext, writes) : apiContext,
    informers: [informers.nodes, informers.configMaps, informers.hyperNodes],
  };
}

/** A dry run's context: every write and Event logged and counted instead of sent, the real clients' reads kept. */
function dryRunContext(context: ControllerContext, writes: WriteClients): ControllerContext {
  const { topologyObjectClient, nodeTaintClient } = writes;
  const { hyperNodes, logger, registry } = context;
  return { ...context, ...dryRunSinks({ hyperNodes, logger, registry, topologyObjectClient, nodeTaintClient }) };
}

/** The three informers of the controller; they list and watch once run. */
function controllerInformers(options: ResolvedOptions, logger: Logger, clients: ClientSets, clock: MonotonicClock) {
  return {
    nodes: resourceInformer<NodeMeta>(resourceClient(clients.core, NODES), {
      metadataOnly: true,
      // The label export's and the taint's records ride along; every other annotation is dropped.
      transform: keepNameLabelsAnd(isRecordAnnotation) as (o: KubeObject) => NodeMeta,
      clock,
      logger,
    }),
    configMaps: resourceInformer<ConfigMap>(resourceClient(clients.core, CONFIG_MAPS), {
      namespace: options.configMap.namespace,
      fieldSelector: `metadata.name=${options.configMap.name}`,
      clock,
      logger,
    }),
    hyperNodes: resourceInformer<HyperNode>(resourceClient(clients.volcano, HYPERNODES), {
      clock,
      logger,
      missingHint: HYPERNODE_CRD_MISSING_HINT,
    }),
  };
}

/** What sources read of core/v1 besides the caches: Secrets and ConfigMaps, each by name. */
function sourceReads(
  options: ResolvedOptions,
  core: RestClient,
): Pick<ControllerContext, 'secrets' | 'configMapReader'> {
  const secrets = resourceClient<Secret>(core, SECRETS);
  const configMaps = resourceClient<ConfigMap>(core, CONFIG_MAPS);
  return {
    // Sources read Secrets of the controller's namespace only: the discovery ConfigMap's, which the Role covers.
    secrets: {
      namespace: options.configMap.namespace,
      get: (namespace, name, signal) => secrets.get(name, { namespace, ...(signal ? { signal } : {}) }),
    },
    // A list narrowed to the one name, as for the discovery ConfigMap: the chart's Role grants list, not get.
    configMapReader: {
      get: async (namespace, name, signal) => {
        const selected = { namespace, fieldSelector: `metadata.name=${name}`, ...(signal ? { signal } : {}) };
        return (await configMaps.list(selected)).items[0];
      },
    },
  };
}

/** The clients of the controller's writes. */
interface WriteClients {
  readonly hyperNodeClient: HyperNodeClient;
  readonly nodeLabelClient: NodeLabelClient;
  readonly nodeTaintClient: NodeTaintClient;
  readonly topologyObjectClient: TopologyObjectClient;
}

/** The write clients, all on the HyperNode writes' client set, so one rate limit bounds them all. */
function writeClients(volcano: RestClient): WriteClients {
  const hyperNodes = resourceClient<HyperNode>(volcano, HYPERNODES);
  const nodes = resourceClient<NodeMeta>(volcano, NODES);
  const hyperNodeClient: HyperNodeClient = {
    create: (hn, signal) => hyperNodes.create(hn, signal ? { signal } : {}),
    update: (hn, signal) => hyperNodes.update(hn, signal ? { signal } : {}),
    updateStatus: (hn, signal) => hyperNodes.updateStatus(hn, signal ? { signal } : {}),
    delete: (name, preconditions, signal) => hyperNodes.delete(name, { preconditions, ...(signal ? { signal } : {}) }),
  };
  const nodeLabelClient: NodeLabelClient = {
    patchMetadata: async (node, changes, signal) =>
      void (await nodes.patch(node, metadataMergePatch(changes), signal ? { signal } : {})),
  };
  return {
    hyperNodeClient,
    nodeLabelClient,
    nodeTaintClient: nodeTaints(volcano),
    topologyObjectClient: topologyObjects(volcano),
  };
}
