// The metric families a running controller exports, from the same definitions
// its /metrics is built from: the process registry plus the HyperNode families.

import { createMetrics } from '../../../src/app/metrics.ts';
import { exportTopologyCounts, newHyperNodeMetrics } from '../../../src/hypernode/metrics.ts';

/** Family name → type (`counter`, `gauge`, `histogram`, …). */
export function exportedFamilies(): Map<string, string> {
  const metrics = createMetrics();
  newHyperNodeMetrics(metrics.registry);
  exportTopologyCounts(metrics.registry, { get: () => undefined, list: () => [] });
  return new Map(metrics.registry.getMetricsAsArray().map((m) => [(m as unknown as { name: string }).name, String((m as unknown as { type: string }).type)]));
}

/** True when `name` is an exported family or a histogram's `_bucket`/`_sum`/`_count` series. */
export function isExportedSeries(families: ReadonlyMap<string, string>, name: string): boolean {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return families.has(name) || (base !== name && families.get(base) === 'histogram');
}
