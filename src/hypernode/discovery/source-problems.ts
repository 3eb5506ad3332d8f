// How the controller reports what its discoverers run into (docs/differences-from-go.md
// item 3): every failed run is counted, each distinct error is logged and
// emitted as a Warning Event once — a UFM that stays down for a day yields
// one Event, not one per retry — and the return to health is logged. Go only
// logs, at every attempt. What a run left out that may be meant so is an
// info line here: the controller runs beside fabrics that hold more than Nodes.

import type { Clock } from '../../kube/clock.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { KV, Logger } from '../../log.ts';
import type { DiscoveryProblems, EventRecorder } from '../model/contracts.ts';
import type { HyperNodeMetrics } from '../hypernode-metrics.ts';
import { errorMessage } from '../../util/error-message.ts';
import { LastReported } from '../../util/reported-once.ts';
import { DISCOVERY_FAILED } from '../event-reasons.ts';

export interface SourceProblemsDeps {
  source: string;
  logger: Logger;
  events: EventRecorder;
  metrics: HyperNodeMetrics;
  /** Stamps hypernode_discovery_last_success_timestamp_seconds. */
  clock: Clock;
  /** The object Events are attached to (the discovery ConfigMap). */
  regarding(): KubeObject;
}

export class SourceProblems implements DiscoveryProblems {
  private readonly lastError = new LastReported();

  constructor(private readonly deps: SourceProblemsDeps) {}

  failed(what: string, err: unknown): void {
    const { source, logger, events, metrics } = this.deps;
    metrics.discoveryFailed(source);
    const message = errorMessage(err);
    if (!this.lastError.isNew(message)) {
      logger.v(2).info(what, { source, err: message, repeated: true });
      return;
    }
    logger.error(what, { source, err: message });
    events.event(
      this.deps.regarding(),
      DISCOVERY_FAILED.type,
      DISCOVERY_FAILED.reason,
      `Discovery source "${source}" produced no result, its HyperNodes are kept: ${what}: ${message}`,
    );
  }

  warning(reason: string, message: string): void {
    const { source, logger, events } = this.deps;
    logger.warn(message, { source, reason });
    events.event(this.deps.regarding(), 'Warning', reason, `Discovery source "${source}": ${message}`);
  }

  leftOut(message: string, kv: KV): void {
    this.deps.logger.info(message, { source: this.deps.source, ...kv });
  }

  recovered(): void {
    this.deps.metrics.discoverySucceeded(this.deps.source, this.deps.clock.now());
    if (!this.lastError.forget()) return;
    this.deps.logger.info('Network topology discovery recovered', { source: this.deps.source });
  }
}
