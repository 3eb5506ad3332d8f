// Keeps the opt-in Kueue and KAI Topology objects (exports.kueueTopology /
// kaiTopology) equal to what the sources' latest accepted snapshots ask for:
// one worker, one pass per trigger (a snapshot, the configuration the
// discovery manager applied). Each
// pass asks discovery which versions of the group are served, so a CRD
// installed later is picked up at the next trigger and an absent one costs a
// log line, not a failure. Writes go through the HyperNode writes' client
// set (its rate limit and the leader's write fence). Ours, no Go
// counterpart (docs/configuration.md, "Kueue and KAI Topology objects").

import type { Clock } from '../../../kube/clock.ts';
import { isAlreadyExists, isNotFound } from '../../../kube/errors.ts';
import { RateLimitingQueue, runWorker, type QueueMetrics, type SyncResult } from '../../../kube/workqueue.ts';
import type { Logger } from '../../../log.ts';
import { errorMessage } from '../../../util/error-message.ts';
import type { TopologyObjectClient } from '../../model/contracts.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode } from '../../model/hypernode-types.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import type { Follower } from '../follower.ts';
import { writeRetryRateLimiter } from '../write-failures.ts';
import { firstTimeSeen } from '../../../util/reported-once.ts';
import { decideTopologyObjects } from './topology-object-decisions.ts';
import { TOPOLOGY_KINDS, topologyObject, type TopologyKind } from './topology-object-specs.ts';

export const TOPOLOGY_OBJECT_QUEUE_NAME = 'hypernode-topology-objects';
const PASS_KEY = 'topologies';

export interface TopologyObjectSyncDeps {
  client: TopologyObjectClient;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
}

export class TopologyObjectSync implements Follower {
  readonly queue: RateLimitingQueue;
  private readonly snapshots = new Map<string, readonly DiscoveredHyperNode[]>();
  /** The configuration the discovery manager applied last; undefined leaves every object as it is. */
  private config: DiscoveryConfig | undefined;
  /** Messages already logged (an absent CRD, a tree with too many levels): said once while they hold. */
  private readonly firstTime = firstTimeSeen();

  constructor(private readonly deps: TopologyObjectSyncDeps) {
    this.queue = new RateLimitingQueue({ name: TOPOLOGY_OBJECT_QUEUE_NAME, clock: deps.clock, rateLimiter: writeRetryRateLimiter(deps.clock), metrics: deps.queueMetrics });
  }

  /** A source's snapshot was accepted: its Topology objects follow it. */
  snapshot(source: string, hyperNodes: readonly DiscoveredHyperNode[]): void {
    this.snapshots.set(source, hyperNodes);
    this.queue.add(PASS_KEY);
  }

  /** A new configuration may turn the exports on or off. */
  configuration(config: DiscoveryConfig | undefined): void {
    this.config = config;
    this.queue.add(PASS_KEY);
  }

  run(): Promise<void> {
    return runWorker(this.queue, () => this.pass());
  }

  shutDown(): void {
    this.queue.shutDown();
  }

  private async pass(): Promise<SyncResult> {
    const config = this.config;
    if (!config) return 'done'; // the discovery manager reports a configuration it cannot load; objects stay meanwhile
    let retry = false;
    for (const kind of TOPOLOGY_KINDS) {
      try {
        await this.syncKind(kind, config);
      } catch (err) {
        this.reportOnce(`Failed to write ${kind.title} objects, will retry: ${errorMessage(err)}`);
        retry = true;
      }
    }
    return retry ? 'retry' : 'done';
  }

  private async syncKind(kind: TopologyKind, config: DiscoveryConfig): Promise<void> {
    const { client, logger } = this.deps;
    const decision = await decideTopologyObjects(kind, config, this.snapshots, client);
    if (!decision.served) {
      // Without the CRD there is nothing to write or to clean up; said once, only when a source wants the objects.
      if (decision.wanted) this.reportOnce(decision.message, 'info');
      return;
    }
    const { version } = decision;
    for (const { source, changes, errors } of decision.sources) {
      for (const e of errors) this.reportOnce(e);
      for (const c of changes) {
        if (c.action !== 'create') await this.deleteIgnoringGone(kind, version, c.name, c.uid);
        if (c.levels && !(await this.createUnlessForeign(kind, version, source, c.name, c.levels))) continue;
        // Whole messages, so docs/troubleshooting.md can quote them.
        const message = c.action === 'create' ? `Created ${kind.title}` : c.action === 'replace' ? `Replaced ${kind.title}` : `Deleted ${kind.title}`;
        logger.info(message, {
          name: c.name,
          source,
          ...(c.levels ? { levels: c.levels.join(',') } : {}),
          ...(c.action === 'replace' ? { reason: 'levels changed; levels are immutable' } : {}),
        });
      }
    }
  }

  /** Creates the object; false when one of that name exists that is not ours (no source label): it is left alone, said once. */
  private async createUnlessForeign(kind: TopologyKind, version: string, source: string, name: string, levels: readonly string[]): Promise<boolean> {
    try {
      await this.deps.client.create(kind.group, version, topologyObject(kind, version, source, name, levels));
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      this.reportOnce(
        `${kind.title} ${name} already exists without the ${NETWORK_TOPOLOGY_SOURCE_LABEL} label, so it is not ours and is left alone; delete it, or rename it, to let discovery source "${source}" write its own`,
      );
      return false;
    }
  }

  private async deleteIgnoringGone(kind: TopologyKind, version: string, name: string, uid: string | undefined): Promise<void> {
    try {
      await this.deps.client.delete(kind.group, version, name, uid);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private reportOnce(message: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.firstTime(message)) this.deps.logger[level](message);
  }
}
