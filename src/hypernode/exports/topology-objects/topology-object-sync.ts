// Keeps the opt-in Kueue and KAI Topology objects equal to what the sources'
// accepted snapshots ask for: the worker that writes, watches and reports
// what topology-object-decisions.ts decides. A Topology is replaced only once
// its replacement can be written at once, so no scheduler reads a Topology of
// ours that names labels its Nodes lack. Ours, no Go counterpart; how it
// behaves is in docs/configuration.md, "Kueue and KAI Topology objects".

import type { Clock } from '../../../kube/clock.ts';
import { isAlreadyExists, isNotFound } from '../../../kube/errors.ts';
import type { EventHandler, KubeObject, Lister } from '../../../kube/types.ts';
import { PassWorker } from '../../../kube/pass-worker.ts';
import type { QueueMetrics, WorkerErrorHandler } from '../../../kube/rate-limiting-queue.ts';
import type { SyncResult } from '../../../kube/queue-workers.ts';
import type { Logger } from '../../../log.ts';
import { errorMessage } from '../../../util/error-message.ts';
import { mapBounded } from '../../../util/slots.ts';
import { isDeepStrictEqual } from 'node:util';
import type { EventRecorder, TopologyLevel, TopologyObject, TopologyObjectClient } from '../../model/contracts.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../model/hypernode-labels.ts';
import type { HyperNodeMetrics } from '../../hypernode-metrics.ts';
import { TOPOLOGY_CHANGE_WAITING, TOPOLOGY_DELETION_HELD } from '../../event-reasons.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import type { Follower } from '../../reconcile/follower.ts';
import type { KeptTopology } from '../../reconcile/kept-topology.ts';
import { writeRetryRateLimiter } from '../../reconcile/write-failures.ts';
import { firstTimeSeen } from '../../../util/reported-once.ts';
import { decideTopologyObjects, type TopologyDecision } from './topology-object-decisions.ts';
import { kindExported, oursMayExist } from './topology-export-states.ts';
import { heldDeletionMessage, waitMessage } from './topology-object-messages.ts';
import {
  describeLevels,
  labelsOf,
  levelLabelKeysBySource,
  TOPOLOGY_KINDS,
  topologyObject,
  type TopologyChange,
  type TopologyKind,
} from './topology-object-specs.ts';

export const TOPOLOGY_OBJECT_QUEUE_NAME = 'hypernode-topology-objects';
/**
 * Node label changes while a create waits are gathered over this window: a
 * labelling round patches every Node, and each pass asks discovery and lists
 * under the client rate limit the patches also use.
 */
export const LABEL_WAIT_COALESCE_MS = 1_000;

export interface TopologyObjectSyncDeps {
  /** The Node cache: a create waits until the Nodes carry the labels its levels name. */
  nodes: Lister<NodeMeta>;
  client: TopologyObjectClient;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
  /** Told of each throw of the worker before its key is retried (the process logs and counts it). */
  onWorkerError: WorkerErrorHandler;
  /** Where a held deletion is reported (the discovery ConfigMap); without them only the log says it. */
  events?: EventRecorder;
  regarding?: () => KubeObject;
  /** Counts the writes in hypernode_api_writes_total. */
  metrics?: Pick<HyperNodeMetrics, 'apiWrite'>;
  /** Writes of one source in flight at once (the client set's write pace); one at a time without it. */
  writeConcurrency?: () => number;
  /** The label keys live Topology objects of ours name have changed (the label worker may remove others now). */
  onRetainedLabelsChanged?: () => void;
  /**
   * Writes are recorded, not sent (--dry-run): a create waits for no label
   * patch (none is applied) and a delete is not looked at again (it stays).
   */
  dryRun?: boolean;
}

/** Per kind: the objects of ours at the last pass (undefined before it was known) and the running watch. */
interface KindState {
  live: readonly TopologyObject[] | undefined;
  watch?: { readonly version: string; readonly stop: AbortController };
}

export class TopologyObjectSync implements Follower {
  /** Snapshots, rejections, configurations and watch events ask for a pass at once; Node label changes are gathered. */
  private readonly worker: PassWorker;
  private readonly snapshots = new Map<string, readonly DiscoveredHyperNode[]>();
  /** The configuration the discovery manager applied last; undefined leaves every object as it is. */
  private config: DiscoveryConfig | undefined;
  /** Messages already logged (an absent CRD, a tree with too many levels, a hold): said once while they hold. */
  private readonly firstTime = firstTimeSeen();
  private readonly kinds = new Map<string, KindState>(TOPOLOGY_KINDS.map((k) => [k.exportKey, { live: undefined }]));
  /** Objects deleted to change their levels, by `<group>/<name>`: their create is logged as a replace. */
  private readonly replacing = new Set<string>();
  /**
   * A change waits for Node labels: Node label changes trigger a pass (also those during a pass, which may decide to
   * wait).
   */
  private waitingForLabels = false;
  private passing = false;
  /** `<group>/<name>`, action and cause of the changes whose wait was said (said once per wait). */
  private readonly waitSaid = new Set<string>();
  /** Per source: why its latest snapshot was rejected, while it is; nothing of such a source's objects changes. */
  private readonly rejections = new Map<string, string>();
  private retained: ReadonlyMap<string, ReadonlySet<string>> | undefined;

  constructor(private readonly deps: TopologyObjectSyncDeps) {
    this.worker = new PassWorker(
      {
        name: TOPOLOGY_OBJECT_QUEUE_NAME,
        clock: deps.clock,
        quietMs: LABEL_WAIT_COALESCE_MS,
        rateLimiter: writeRetryRateLimiter(deps.clock),
        metrics: deps.queueMetrics,
        onError: deps.onWorkerError,
        onScheduleError: (err) => deps.logger.error('Failed to queue a Topology object pass', { err }),
      },
      () => this.pass(),
    );
  }

  /** A source's snapshot was accepted: its Topology objects follow the tree as kept (held deletes in it). */
  kept(tree: KeptTopology): void {
    this.snapshots.set(tree.source, tree.hyperNodes);
    this.rejections.delete(tree.source);
    this.worker.now();
  }

  /** A source's snapshot was rejected: its objects stay as they are until one is accepted again. */
  rejected(source: string, violations: string): void {
    this.rejections.set(source, violations);
    this.worker.now();
  }

  /** A new configuration may turn the exports on or off. */
  configuration(config: DiscoveryConfig | undefined): void {
    this.config = config;
    this.worker.now();
  }

  /** While a change waits for its labels, a Node whose labels change may complete them. */
  nodeHandler(): EventHandler<NodeMeta> {
    const trigger = () => {
      if (this.waitingForLabels || this.passing) this.worker.schedule();
    };
    return {
      onAdd: trigger,
      onUpdate: (old, node) =>
        void (!isDeepStrictEqual(old.metadata.labels ?? {}, node.metadata.labels ?? {}) && trigger()),
    };
  }

  /**
   * Per source, the Node label keys that live Topology objects of ours name
   * (those being deleted included): the label worker keeps them on the
   * Nodes. Undefined until every kind's objects are known: keep them all.
   */
  retainedLabelKeys(): ReadonlyMap<string, ReadonlySet<string>> | undefined {
    return this.retained;
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  shutDown(): void {
    for (const k of this.kinds.values()) k.watch?.stop.abort();
    this.worker.shutDown();
  }

  private async pass(): Promise<SyncResult> {
    const config = this.config;
    if (!config) return 'done'; // the discovery manager reports a configuration it cannot load; objects stay meanwhile
    const nodes = this.deps.nodes.list();
    this.waitingForLabels = false;
    this.passing = true;
    let retry = false;
    try {
      for (const kind of TOPOLOGY_KINDS) {
        try {
          await this.syncKind(kind, this.kinds.get(kind.exportKey)!, config, nodes);
        } catch (err) {
          this.reportOnce(`Failed to write ${kind.title} objects, will retry: ${errorMessage(err)}`);
          retry = true;
        }
      }
    } finally {
      this.passing = false;
    }
    this.updateRetained();
    return retry ? 'retry' : 'done';
  }

  private async syncKind(
    kind: TopologyKind,
    state: KindState,
    config: DiscoveryConfig,
    nodes: readonly NodeMeta[],
  ): Promise<void> {
    // No request at all for a kind nobody exports while none of our objects can exist (topology-export-states.ts).
    const worthAsking =
      kindExported(kind, config) || (state.live === undefined ? oursMayExist(config, nodes) : state.live.length > 0);
    if (!worthAsking) {
      this.forget(state);
      return;
    }
    // A replace deletes first; once the delete is answered the pass decides again, to create at once what is already
    // gone.
    for (let round = 0; round < 2; round++) {
      const decision = await decideTopologyObjects(kind, config, this.snapshots, this.deps.client, nodes, {
        rejected: this.rejections,
      });
      if (!decision.served) {
        // Without the CRD there is nothing to write or to clean up; said once, only when a source wants the objects.
        if (decision.wanted) this.reportOnce(decision.message, 'info');
        this.forget(state);
        return;
      }
      state.live = decision.ours;
      this.watch(kind, state, decision.version);
      if (!(await this.apply(kind, decision)) || this.deps.dryRun) return;
    }
  }

  /** Sends one decision's writes; true when something was deleted (decide again). */
  private async apply(kind: TopologyKind, decision: Extract<TopologyDecision, { served: true }>): Promise<boolean> {
    const { logger } = this.deps;
    const { version } = decision;
    if (!decision.schemaRead) {
      this.reportOnce(
        `The served schema of ${kind.title} ${kind.group}/${version} cannot be read (no /openapi/v3 document this client may read): levels are held to ${decision.maxLevels} and written without aliases`,
        'info',
      );
    }
    let deleted = false;
    const waiting = new Set<string>();
    for (const { source, changes, errors } of decision.sources) {
      for (const e of errors) this.reportOnce(e);
      await mapBounded(changes, this.deps.writeConcurrency ?? 1, async (c) => {
        const key = `${kind.group}/${c.name}`;
        // --dry-run writes no label, so a change never waits for one.
        if (c.waits && !(c.waits.cause === 'labels' && this.deps.dryRun)) {
          if (c.waits.cause === 'labels') this.waitingForLabels = true;
          const wait = `${key}\n${c.action}\n${c.waits.cause}`;
          waiting.add(wait);
          this.reportWait(kind, source, c, wait);
          return;
        }
        switch (c.action) {
          case 'held':
            this.reportHeld(kind, source, c);
            break;
          case 'delete':
          case 'replace':
            await this.delete(kind, version, source, c);
            deleted = true;
            if (c.action === 'replace') this.replacing.add(key);
            // Whole messages, so docs/troubleshooting.md can quote them.
            logger.info(c.action === 'delete' ? `Deleted ${kind.title}` : `Deleting ${kind.title} to replace it`, {
              name: c.name,
              source,
              ...(c.action === 'replace' ? { reason: 'levels changed; levels are immutable' } : {}),
            });
            break;
          case 'update':
            await this.deps.client.updateLevels(kind.group, version, c.name, c.resourceVersion, c.levels!);
            this.deps.metrics?.apiWrite(source, 'patch', `Topology.${kind.group}`);
            logger.info(`Updated ${kind.title} aliases`, {
              name: c.name,
              source,
              levels: describeLevels(c.levels!, ','),
            });
            break;
          case 'create':
            if (!(await this.createUnlessForeign(kind, version, source, c.name, c.levels!))) break;
            if (this.replacing.delete(key))
              logger.info(`Replaced ${kind.title}`, {
                name: c.name,
                source,
                levels: labelsOf(c.levels!).join(','),
                reason: 'levels changed; levels are immutable',
              });
            else logger.info(`Created ${kind.title}`, { name: c.name, source, levels: labelsOf(c.levels!).join(',') });
            break;
        }
      });
    }
    // A wait that is over is said again if it comes back.
    for (const k of this.waitSaid) if (k.startsWith(`${kind.group}/`) && !waiting.has(k)) this.waitSaid.delete(k);
    return deleted;
  }

  /** A change that waits: logged and filed as an Event once per object and cause while it waits. */
  private reportWait(kind: TopologyKind, source: string, c: TopologyChange, key: string): void {
    if (this.waitSaid.has(key)) return;
    this.waitSaid.add(key);
    const message = waitMessage(kind, source, c, c.waits!);
    this.deps.logger.info(message);
    if (this.deps.events && this.deps.regarding)
      this.deps.events.event(
        this.deps.regarding(),
        TOPOLOGY_CHANGE_WAITING.type,
        TOPOLOGY_CHANGE_WAITING.reason,
        message,
      );
  }

  /** Creates the object; false when one of that name exists that is not this source's: it is left alone, said once. */
  private async createUnlessForeign(
    kind: TopologyKind,
    version: string,
    source: string,
    name: string,
    levels: readonly TopologyLevel[],
  ): Promise<boolean> {
    try {
      await this.deps.client.create(kind.group, version, topologyObject(kind, version, source, name, levels));
      this.deps.metrics?.apiWrite(source, 'create', `Topology.${kind.group}`);
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      // Being deleted since the list (the API server says so): the watch brings the pass that creates it once gone.
      if (errorMessage(err).includes('object is being deleted')) return false;
      // Ours (any source) were listed just now, those being deleted included: this one carries no label of this source.
      this.reportOnce(
        `${kind.title} ${name} already exists without the ${NETWORK_TOPOLOGY_SOURCE_LABEL}=${source} label, so it is not discovery source "${source}"'s and is left alone; delete or rename it to let "${source}" write its own`,
      );
      return false;
    }
  }

  private async delete(kind: TopologyKind, version: string, source: string, c: TopologyChange): Promise<void> {
    try {
      await this.deps.client.delete(kind.group, version, c.name, c.uid);
      this.deps.metrics?.apiWrite(source, 'delete', `Topology.${kind.group}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** A deletion a finalizer holds: logged and filed as an Event once per object and set of holders. */
  private reportHeld(kind: TopologyKind, source: string, c: TopologyChange): void {
    const message = heldDeletionMessage(kind, source, c);
    if (!this.firstTime(`${c.uid}\n${message}`)) return;
    this.deps.logger.warn(message);
    if (this.deps.events && this.deps.regarding)
      this.deps.events.event(
        this.deps.regarding(),
        TOPOLOGY_DELETION_HELD.type,
        TOPOLOGY_DELETION_HELD.reason,
        message,
      );
  }

  /** Watches the kind's objects of ours at `version` (a later version once served replaces the watch). */
  private watch(kind: TopologyKind, state: KindState, version: string): void {
    if (state.watch?.version === version || !this.deps.client.informer) return;
    state.watch?.stop.abort();
    const stop = new AbortController();
    const informer = this.deps.client.informer(kind.group, version, NETWORK_TOPOLOGY_SOURCE_LABEL, this.deps.logger);
    const trigger = () => this.worker.now();
    informer.addEventHandler({ onAdd: trigger, onUpdate: trigger, onDelete: trigger });
    informer
      .run(stop.signal)
      .catch((err) => this.deps.logger.error(`Watching ${kind.title} objects stopped`, { err: errorMessage(err) }));
    state.watch = { version, stop };
  }

  /** The kind is not asked about: no watch, and no objects of ours to keep labels for. */
  private forget(state: KindState): void {
    state.watch?.stop.abort();
    delete state.watch;
    state.live = [];
  }

  private updateRetained(): void {
    const states = [...this.kinds.values()];
    // Undefined until every kind's objects are known.
    const next = states.every((s) => s.live !== undefined)
      ? levelLabelKeysBySource(states.flatMap((s) => s.live!))
      : undefined;
    if (isDeepStrictEqual(next, this.retained)) return;
    this.retained = next;
    this.deps.onRetainedLabelsChanged?.();
  }

  private reportOnce(message: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.firstTime(message)) this.deps.logger[level](message);
  }
}
