// The base of the sources that read a remote system on an interval (ufm,
// graph, lldp, ibnetdiscover): it owns what they share — the source's logger,
// the interval with its floor (a too-short one is raised, with a warning),
// start() running the poll loop and stop() ending it, the source's NVLink
// tier (config.nvlink) and the watch of the Node label it reads, whose
// changes make the loop rebuild the snapshot from the last poll — so a new
// polling source writes only what it announces when it starts, what one run
// does (its trees through `nvlink`) and what a rebuild does.

import type { Logger } from '../../log.ts';
import type { EventHandler, HandlerRegistration } from '../../kube/types.ts';
import type { Channel } from '../../util/channel.ts';
import type { SlicedWork } from '../../util/sliced-work.ts';
import type { Discoverer, DiscovererOptions, DiscoveryEntry, Snapshot } from '../model/contracts.ts';
import type { NodeMeta } from '../model/hypernode-types.ts';
import { labelValue } from '../model/label-reads.ts';
import type { NvlinkConfig } from './fabric/nvlink-config.ts';
import { NvlinkDomains } from './fabric/nvlink-domains.ts';
import { MIN_INTERVAL_MS, RebuildRequests, RETRY_BASE_MS, startPollLoop, type PollRun } from './poll-loop.ts';

export interface PollingSource {
  /** The source key (the logger's `source=`). */
  readonly source: string;
  /** How log lines name what polls: `UFM`, `Fabric graph`, `LLDP`, `InfiniBand`. */
  readonly title: string;
  /** The source's config.nvlink; undefined: no NVLink tier, no label watched. */
  readonly nvlink: NvlinkConfig | undefined;
  /** Logged when the loop ends. */
  readonly stoppedMessage: string;
  /** First retry after a failed run (tests shorten it); RETRY_BASE_MS by default. */
  readonly retryBaseMs?: number;
}

export abstract class PollingDiscoverer implements Discoverer {
  protected readonly logger: Logger;
  /** Aborted by stop(): ends the loop and every request in flight. */
  protected readonly stopping = new AbortController();
  /** The poll period in force: the entry's interval, at least MIN_INTERVAL_MS. */
  protected readonly intervalMs: number;
  /** The NVLink tier the source passes its trees through (a pass-through without config.nvlink). */
  protected readonly nvlink: NvlinkDomains;
  private readonly rebuilds: RebuildRequests;
  private labelWatch: HandlerRegistration | undefined;

  constructor(
    entry: DiscoveryEntry,
    protected readonly opts: DiscovererOptions,
    private readonly polling: PollingSource,
  ) {
    this.logger = opts.logger.with({ source: polling.source });
    this.intervalMs = Math.max(entry.intervalMs, MIN_INTERVAL_MS);
    if (this.intervalMs !== entry.intervalMs) {
      this.logger.warn(`${polling.title} poll interval too short, using the minimum`, {
        interval: `${entry.intervalMs}ms`,
        minimum: `${MIN_INTERVAL_MS}ms`,
      });
    }
    this.rebuilds = new RebuildRequests(opts.clock, this.logger);
    this.nvlink = new NvlinkDomains(polling.nvlink, {
      nodes: opts.nodes,
      hyperNodes: opts.hyperNodes,
      problems: opts.problems,
      logger: this.logger,
      clock: opts.clock,
      source: polling.source,
      ...(opts.labelHolds ? { labelHolds: opts.labelHolds } : {}),
      onExpiry: () => this.rebuilds.request(),
    });
  }

  resultSynced(): void {}

  /** Announces the source (may refuse to start by throwing), then polls now and every interval. */
  async start(): Promise<Channel<Snapshot>> {
    this.announce();
    const key = this.nvlink.config?.label;
    // Registering replays the cache as adds: the request it makes is served by the first poll.
    if (key !== undefined)
      this.labelWatch = this.opts.nodes.addEventHandler(labelChanges(key, () => this.rebuilds.request()));
    return startPollLoop(() => this.runOnce(), {
      intervalMs: this.intervalMs,
      retryBaseMs: this.polling.retryBaseMs ?? RETRY_BASE_MS,
      clock: this.opts.clock,
      logger: this.logger,
      signal: this.stopping.signal,
      stoppedMessage: this.polling.stoppedMessage,
      ...(key === undefined ? {} : { rebuild: { requests: this.rebuilds, run: () => this.rebuild() } }),
    });
  }

  async stop(): Promise<void> {
    this.labelWatch?.remove();
    this.rebuilds.stop();
    this.nvlink.stop();
    this.stopping.abort();
  }

  /**
   * With config.nvlink: the snapshot of the last poll placed again with the Nodes' labels as they are now, as sliced
   * work; undefined publishes nothing.
   */
  protected abstract rebuild(): SlicedWork<Snapshot | undefined>;

  /** The checks and log lines of a start, before the first run. */
  protected abstract announce(): void;

  /** One poll: what to publish, and whether it fully succeeded. */
  protected abstract runOnce(): Promise<PollRun>;
}

/**
 * Calls `changed` when a Node is added with `key` or an update changes it. A
 * deleted Node is left to the next poll, which drops it from the tree; a
 * rebuild before it would only move it out of its domain.
 */
function labelChanges(key: string, changed: () => void): EventHandler<NodeMeta> {
  const value = (n: NodeMeta) => labelValue(n.metadata.labels, key);
  return {
    onAdd: (n) => {
      if (value(n) !== undefined) changed();
    },
    onUpdate: (before, after) => {
      if (value(before) !== value(after)) changed();
    },
  };
}
