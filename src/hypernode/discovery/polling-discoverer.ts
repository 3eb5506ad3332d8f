// The base of the sources that read a remote system on an interval (ufm,
// graph, lldp, ibnetdiscover): it owns what they share — the source's logger, the interval
// with its floor (a too-short one is raised, with a warning), start() running
// the poll loop and stop() ending it — so a new polling source writes only
// what it announces when it starts and what one run does.

import type { Logger } from '../../log.ts';
import type { Channel } from '../../util/channel.ts';
import type { Discoverer, DiscovererOptions, DiscoveryEntry, Snapshot } from '../model/contracts.ts';
import { MIN_INTERVAL_MS, RETRY_BASE_MS, startPollLoop, type PollRun } from './poll-loop.ts';

export interface PollingSource {
  /** The source key (the logger's `source=`). */
  readonly source: string;
  /** How log lines name what polls: `UFM`, `Fabric graph`, `LLDP`. */
  readonly title: string;
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

  constructor(
    entry: DiscoveryEntry,
    protected readonly opts: DiscovererOptions,
    private readonly polling: PollingSource,
  ) {
    this.logger = opts.logger.with({ source: polling.source });
    this.intervalMs = Math.max(entry.intervalMs, MIN_INTERVAL_MS);
    if (this.intervalMs !== entry.intervalMs) {
      this.logger.warn(`${polling.title} poll interval too short, using the minimum`, { interval: `${entry.intervalMs}ms`, minimum: `${MIN_INTERVAL_MS}ms` });
    }
  }

  resultSynced(): void {}

  /** Announces the source (may refuse to start by throwing), then polls now and every interval. */
  async start(): Promise<Channel<Snapshot>> {
    this.announce();
    return startPollLoop(() => this.runOnce(), {
      intervalMs: this.intervalMs,
      retryBaseMs: this.polling.retryBaseMs ?? RETRY_BASE_MS,
      clock: this.opts.clock,
      logger: this.logger,
      signal: this.stopping.signal,
      stoppedMessage: this.polling.stoppedMessage,
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
  }

  /** The checks and log lines of a start, before the first run. */
  protected abstract announce(): void;

  /** One poll: what to publish, and whether it fully succeeded. */
  protected abstract runOnce(): Promise<PollRun>;
}
