// The health gauges (docs/metrics.md): per source and tier, the Nodes below
// HyperNodes with NodesReady=False and the HyperNodes each condition marks
// False. Read from the status writer's last judgement of every HyperNode
// at scrape time, so a deleted HyperNode leaves no stale series.

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

/**
 * Registers the health gauges, read from `current` (the writer's judgements by HyperNode name) at every scrape; returns
 * the detach.
 */
export function exportHealthGauges(registry: Registry, current: ReadonlyMap<string, HealthJudgement>): () => void {
  return attachScrapeGauges(registry, current, [
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
      help: 'HyperNodes of each source and tier whose condition (NodesReady, FabricHealthy) is False.',
      labelNames: ['source', 'tier', 'condition'],
      collect(gauge, judgements) {
        for (const j of judgements.values())
          for (const condition of j.falseConditions)
            gauge.inc({ source: j.source, tier: String(j.tier), condition }, 1);
      },
    },
  ]);
}
