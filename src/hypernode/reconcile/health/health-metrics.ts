// The health gauges (docs/metrics.md): per source and tier, the Nodes below
// HyperNodes with NodesReady=False and the HyperNodes each condition marks
// False. Read from the condition writer's last judgement of every HyperNode
// at scrape time, so a deleted HyperNode leaves no stale series.

import { Gauge, type Registry } from 'prom-client';

export interface HealthJudgement {
  readonly source: string;
  readonly tier: number;
  /** Nodes below it that are not Ready (0 when NodesReady is off). */
  readonly unhealthyNodes: number;
  /** Condition types this controller holds False on it. */
  readonly falseConditions: readonly string[];
}

/** The writer's judgements by HyperNode name, per registry (a new controller run replaces the old one's). */
const judgements = new WeakMap<Registry, ReadonlyMap<string, HealthJudgement>>();

export function exportHealthGauges(registry: Registry, current: ReadonlyMap<string, HealthJudgement>): () => void {
  judgements.set(registry, current);
  if (!registry.getSingleMetric('hypernode_unhealthy_members')) {
    new Gauge({
      name: 'hypernode_unhealthy_members',
      help: 'Nodes that are NotReady, Unknown or gone below the HyperNodes of each source and tier (health.nodes; a Node counts once per HyperNode above it, so a tier sums its HyperNodes).',
      labelNames: ['source', 'tier'],
      registers: [registry],
      collect() {
        this.reset();
        for (const j of judgements.get(registry)?.values() ?? []) this.inc({ source: j.source, tier: String(j.tier) }, j.unhealthyNodes);
      },
    });
    new Gauge({
      name: 'hypernode_unhealthy_hypernodes',
      help: 'HyperNodes of each source and tier whose condition (NodesReady, FabricHealthy) is False.',
      labelNames: ['source', 'tier', 'condition'],
      registers: [registry],
      collect() {
        this.reset();
        for (const j of judgements.get(registry)?.values() ?? []) for (const condition of j.falseConditions) this.inc({ source: j.source, tier: String(j.tier), condition }, 1);
      },
    });
  }
  return () => {
    if (judgements.get(registry) === current) judgements.delete(registry);
  };
}
