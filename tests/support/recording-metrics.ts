// A DiscovererMetrics for discoverer unit tests: keeps the last value each
// figure was set to, as the gauges behind it do.

import type { DiscovererMetrics, FabricPoll } from '../../src/hypernode/api/interface.ts';

export class RecordingMetrics implements DiscovererMetrics {
  /** Fabric → hosts that match no Node. */
  readonly unmapped = new Map<string, number>();
  /** Source → Nodes in none of its HyperNodes. */
  readonly uncovered = new Map<string, number>();
  unmappedHosts(_source: string, fabric: string, count: number): void {
    this.unmapped.set(fabric, count);
  }
  uncoveredNodes(source: string, count: number): void {
    this.uncovered.set(source, count);
  }
  /** Fabric → its last poll. */
  readonly polls = new Map<string, FabricPoll>();
  fabricPolled(_source: string, fabric: string, poll: FabricPoll): void {
    this.polls.set(fabric, poll);
  }
}
