// The health gauges (docs/metrics.md): per source and tier, the Nodes below
// HyperNodes with NodesReady=False and the HyperNodes each condition marks
// False; per source, the Nodes the label memory keeps in place. Read from the
// status writer's last judgement of every HyperNode and the sources' last
// reports at scrape time, so a deleted HyperNode leaves no stale series.

import type { Registry } from 'prom-client';
import { attachScrapeGauges } from '../../hypernode-metrics.ts';

export interface HealthJudgement {
  readonly source: string;
  readonly tier: number;
  /** Nodes below it that are not Ready (0 when NodesReady is off). */
  readonly unhealthyNodes: number;
  /** Condition types this controller holds False on it. */
  readonly falseConditions: readonly string[];
}

/** Per source, the Nodes the label memory keeps in place now (label-holds.ts). */
export interface HeldNodeCounts {
  heldNodes(): ReadonlyMap<string, number>;
}

/**
 * Registers the health gauges, read from `current` (the writer's judgements by HyperNode name) and `holds` at every
 * scrape; returns the detach.
 */
export function exportHealthGauges(
  registry: Registry,
  current: ReadonlyMap<string, HealthJudgement>,
  holds: HeldNodeCounts,
): () => void {
  const detachHolds = attachScrapeGauges(registry, holds, [
    {
      name: 'hypernode_label_held_nodes',
      help: 'Nodes each source keeps in place while a label that places them is missing (health.labelGracePeriod; TopologyLabelsPresent=False names them).',
      labelNames: ['source'],
      collect(gauge, board) {
        for (const [source, n] of board.heldNodes()) gauge.set({ source }, n);
      },
    },
  ]);
  const detach = attachScrapeGauges(registry, current, [
    {
      name: 'hypernode_unhealthy_members',
      help: 'Nodes that are NotReady, Unknown or gone below the HyperNodes of each source and tier (health.nodes; a Node counts once per HyperNode above it, so a tier sums its HyperNodes).',
      labelNames: ['source', 'tier'],
      collect(gauge, judgements) {
        for (const j of judgements.values()) gauge.inc({ source: j.source, tier: String(j.tier) }, j.unhealthyNodes);
      },
    },
    {
      name: 'hypernode_unhealthy_hypernodes',
      help: 'HyperNodes of each source and tier whose condition (NodesReady, FabricHealthy, TopologyLabelsPresent) is False.',
      labelNames: ['source', 'tier', 'condition'],
      collect(gauge, judgements) {
        for (const j of judgements.values())
          for (const condition of j.falseConditions)
            gauge.inc({ source: j.source, tier: String(j.tier), condition }, 1);
      },
    },
  ]);
  return () => {
    detach();
    detachHolds();
  };
}
