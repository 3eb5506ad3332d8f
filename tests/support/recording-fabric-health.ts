// A FabricHealthReporter for unit tests of the fabric sources' link memory:
// a fixed grace period, memory kept across discoverer restarts as the
// controller keeps it, and every report recorded.

import type { FabricHealthProblem, FabricHealthReporter, HostLinkReport } from '../../src/hypernode/model/contracts.ts';

export class RecordingFabricHealth implements FabricHealthReporter {
  /** Each report's problems by HyperNode name, oldest first. */
  readonly reports: ReadonlyMap<string, readonly FabricHealthProblem[]>[] = [];
  /** Each poll's links of the Nodes, oldest first (a report repeated without a poll carries none). */
  readonly hostReports: HostLinkReport[] = [];
  private readonly memories = new Map<string, unknown>();

  constructor(private readonly graceMs: number) {}

  report(
    _source: string,
    _fabric: string,
    problems: ReadonlyMap<string, readonly FabricHealthProblem[]>,
    hosts?: HostLinkReport,
  ): void {
    this.reports.push(problems);
    if (hosts) this.hostReports.push(hosts);
  }

  linkGraceMs(): number {
    return this.graceMs;
  }

  kept<T>(key: string, create: () => T): T {
    if (!this.memories.has(key)) this.memories.set(key, create());
    return this.memories.get(key) as T;
  }
}
