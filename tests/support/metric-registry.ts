// Reading metrics straight from a prom-client Registry (in-process tests).

import type { Registry } from 'prom-client';

/** The value of the first sample of `name` whose labels include `labels` (histogram buckets aside), 0 when absent. */
export async function registryValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const data = await metric.get();
  const sample = data.values.find(
    (v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val) && !('le' in v.labels),
  );
  return sample?.value ?? 0;
}
