// The process-wide ready flag behind /readyz and its state machine
// (docs/design.md §3.3), including the fix for the late OnNewLeader race: a report
// of another leader that arrives after this replica started leading must not
// mark the still-syncing new leader ready.

import type { Logger } from '../log.ts';

export class Readiness {
  private ready = false;
  private leading = false;

  isReady(): boolean {
    return this.ready;
  }

  /** Controller caches synced and discovery started (or the runner finished: false). */
  set(ready: boolean): void {
    this.ready = ready;
  }

  /** OnStartedLeading: not ready until this leader's controller synced. */
  startedLeading(): void {
    this.leading = true;
    this.ready = false;
  }

  /** OnStoppedLeading. */
  stoppedLeading(): void {
    this.leading = false;
    this.ready = false;
  }

  /** OnNewLeader: a follower that can read the Lease is ready. */
  newLeader(identity: string, own: string, logger: Logger): void {
    if (identity === own) {
      logger.info('Acquired HyperNode controller leadership', { identity });
      return;
    }
    logger.info('Observed HyperNode controller leader', { identity });
    if (!this.leading) this.ready = true;
  }
}
