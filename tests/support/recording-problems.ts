// A DiscoveryProblems for discoverer unit tests: logs every failure through
// the test's logger (so tests can wait on log lines) and records failures and
// recoveries, and logs what a run left out at info, as the controller does.
// The once-per-error policy itself is tested with SourceProblems.

import type { DiscoveryProblems } from '../../src/hypernode/model/contracts.ts';
import type { KV, Logger } from '../../src/log.ts';

export class RecordingProblems implements DiscoveryProblems {
  readonly failures: string[] = [];
  readonly warnings: string[] = [];
  recoveries = 0;
  constructor(private readonly logger: Logger) {}
  failed(what: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.failures.push(`${what}: ${message}`);
    this.logger.error(what, { err: message });
  }
  warning(reason: string, message: string): void {
    this.warnings.push(`${reason}: ${message}`);
    this.logger.warn(message, { reason });
  }
  leftOut(message: string, kv: KV): void {
    this.logger.info(message, kv);
  }
  recovered(): void {
    this.recoveries++;
  }
}
