// The health gauges (docs/metrics.md): per source and tier, the Nodes below
// HyperNodes with NodesReady=False and the HyperNodes each condition marks
// False; per source, the Nodes the label memory keeps in place, the Nodes
// carrying the fabric taint and those its guard keeps from it. Read from the
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

/** Per source, the Nodes carrying the fabric taint and those health.maxTaintPercent keeps from it (taint-writer.ts). */
export interface TaintCounts {
  taintCounts(): {
    readonly tainted: ReadonlyMap<string, number>;
    /** The Nodes held, and the maxTaintPercent that would let them be tainted. */
    readonly held: ReadonlyMap<string, { readonly nodes: number; readonly allowedFrom: number }>;
  };
}

/** Registers the fabric taint gauges, read from `counts` at every scrape; returns the detach. */
export function exportTaintGauges(registry: Registry, counts: TaintCounts): () => void {
  return attachScrapeGauges(registry, counts, [
    {
      name: 'hypernode_fabric_tainted_nodes',
      help: 'Nodes carrying the fabric taint (health.taint), by the source its value names.',
      labelNames: ['source'],
      collect(gauge, c) {
        for (const [source, n] of c.taintCounts().tainted) gauge.set({ source }, n);
      },
    },
    {
      name: 'hypernode_fabric_taints_held',
      help: 'Nodes cut off from their fabric that health.maxTaintPercent keeps from being tainted, per source.',
      labelNames: ['source'],
      collect(gauge, c) {
        for (const [source, h] of c.taintCounts().held) gauge.set({ source }, h.nodes);
      },
    },
    {
      name: 'hypernode_fabric_taint_percent_needed',
      help: 'The health.maxTaintPercent that would let the held Nodes of each source be tainted (set while some are held).',
      labelNames: ['source'],
      collect(gauge, c) {
        for (const [source, h] of c.taintCounts().held) gauge.set({ source }, h.allowedFrom);
      },
    },
  ]);
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
