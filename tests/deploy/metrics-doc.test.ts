// docs/metrics.md is the operator's list of what /metrics holds: every
// family the controller exports (but prom-client's process_* and nodejs_*
// defaults, named there as a group) has a table row with its type and exactly
// its label names, and no row names a family that does not exist.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exportedFamilyList } from './support/metric-families.ts';
import { documentedMetrics as documented } from './support/metrics-doc.ts';

/** The scrape handler's families, registered when the /metrics server starts (src/app/metrics.ts, metricsHandler). */
const HANDLER_FAMILIES: ReadonlyArray<{ name: string; type: string; labelNames: string[] }> = [
  { name: 'promhttp_metric_handler_requests_total', type: 'counter', labelNames: ['code'] },
  { name: 'promhttp_metric_handler_requests_in_flight', type: 'gauge', labelNames: [] },
];
const isRuntimeDefault = (name: string) => name.startsWith('process_') || name.startsWith('nodejs_');

/** Family name → its type and label names (sorted), as the running controller registers them. */
function exported(): Map<string, { type: string; labels: string[] }> {
  const families = new Map<string, { type: string; labels: string[] }>();
  for (const f of [...exportedFamilyList(), ...HANDLER_FAMILIES])
    if (!isRuntimeDefault(f.name)) families.set(f.name, { type: f.type, labels: [...f.labelNames].sort() });
  return families;
}

test('every exported family has a row in docs/metrics.md, and every row is an exported family', () => {
  const [want, have] = [exported(), documented()];
  assert.equal([...want.keys()].filter((n) => !have.has(n)).sort(), [], 'families missing from docs/metrics.md');
  assert.equal(
    [...have.keys()].filter((n) => !want.has(n)).sort(),
    [],
    'rows in docs/metrics.md that name no exported family',
  );
});

test('each row of docs/metrics.md gives the type and exactly the labels of its family', () => {
  const have = documented();
  for (const [name, { type, labels }] of exported()) {
    assert.equal(have.get(name)?.labels, labels, `labels of ${name}`);
    assert.ok(have.get(name)?.type.startsWith(type), `${name} is a ${type}, the row says ${have.get(name)?.type}`);
  }
});

test.run();
