// The metric families a running controller exports, from the same definitions
// its /metrics is built from: the process registry, the HyperNode families and
// the one a --dry-run controller adds.

import { createMetrics } from '../../../src/app/metrics.ts';
import { dryRunSinks } from '../../../src/hypernode/preview/dry-run.ts';
import { exportTopologyCounts, newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { nullLogger } from '../../../src/log.ts';
import { exportHealthGauges, exportTaintGauges } from '../../../src/hypernode/reconcile/health/health-metrics.ts';

export interface ExportedFamily {
  readonly name: string;
  /** `counter`, `gauge`, `histogram`, … */
  readonly type: string;
  readonly labelNames: readonly string[];
}

/** Every family, as registered. */
export function exportedFamilyList(): ExportedFamily[] {
  const metrics = createMetrics();
  const noHyperNodes = { get: () => undefined, list: () => [] };
  newHyperNodeMetrics(metrics.registry);
  exportTopologyCounts(metrics.registry, noHyperNodes);
  exportHealthGauges(metrics.registry, new Map(), { heldNodes: () => new Map() });
  exportTaintGauges(metrics.registry, { taintCounts: () => ({ tainted: new Map(), held: new Map() }) });
  dryRunSinks({ hyperNodes: noHyperNodes, logger: nullLogger, registry: metrics.registry });
  return (
    metrics.registry.getMetricsAsArray() as unknown as Array<{ name: string; type: unknown; labelNames?: string[] }>
  ).map((m) => ({
    name: m.name,
    type: String(m.type),
    labelNames: m.labelNames ?? [],
  }));
}

/** Family name → type (`counter`, `gauge`, `histogram`, …). */
export function exportedFamilies(): Map<string, string> {
  return new Map(exportedFamilyList().map((f) => [f.name, f.type]));
}

/** True when `name` is an exported family or a histogram's `_bucket`/`_sum`/`_count` series. */
export function isExportedSeries(families: ReadonlyMap<string, string>, name: string): boolean {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return families.has(name) || (base !== name && families.get(base) === 'histogram');
}
