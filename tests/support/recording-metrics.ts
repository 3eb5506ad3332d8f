// A DiscovererMetrics for discoverer unit tests: keeps the last value each
// figure was set to, as the gauges behind it do.

import type { DiscovererMetrics, FabricPoll, UncoveredDetail } from '../../src/hypernode/model/contracts.ts';

export class RecordingMetrics implements DiscovererMetrics {
  /** Fabric → hosts that match no Node. */
  readonly unmapped = new Map<string, number>();
  /** Source → Nodes in none of its HyperNodes. */
  readonly uncovered = new Map<string, number>();
  unmappedHosts(_source: string, fabric: string, count: number): void {
    this.unmapped.set(fabric, count);
  }
  /** `source/reason` → count, for the per-reason series. */
  readonly uncoveredByReason = new Map<string, number>();
  uncoveredNodes(source: string, count: number, detail?: UncoveredDetail): void {
    if (detail?.reason === undefined) this.uncovered.set(source, count);
    else this.uncoveredByReason.set(`${source}/${detail.reason}`, count);
  }
  /** Fabric → its last poll. */
  readonly polls = new Map<string, FabricPoll>();
  fabricPolled(_source: string, fabric: string, poll: FabricPoll): void {
    this.polls.set(fabric, poll);
  }
  /** Switch address → rows without a chassis id at its fabric's last poll. */
  readonly incompleteRows = new Map<string, number>();
  incompleteLldpRows(_fabric: string, switchAddress: string, count: number): void {
    this.incompleteRows.set(switchAddress, count);
  }
}
