// docs/metrics.md read as data: its table rows (family, type, label names)
// and the work-queue names its prose lists, for the tests that hold the
// reference to the registered families and to a running controller's scrape.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './releases.ts';

export const METRICS_DOC = readFileSync(join(repoRoot, 'docs/metrics.md'), 'utf8');

export interface MetricRow {
  /** The type column, e.g. `gauge (always 1)`. */
  type: string;
  labels: string[];
  /** The row says the family exists with `--dry-run` only. */
  dryRunOnly: boolean;
}

/**
 * Family name → its row: the backquoted words of the third column are the
 * label names, leaving out what parentheses say about them (`verb`
 * (`create`, `update`) names one label).
 */
export function documentedMetrics(doc = METRICS_DOC): Map<string, MetricRow> {
  const rows = new Map<string, MetricRow>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const name = cells[1]?.match(/^`([a-z_]+)`$/)?.[1];
    if (!name || cells.length < 5) continue;
    const labels = [...(cells[3] ?? '').replace(/\([^)]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    rows.set(name, {
      type: cells[2] ?? '',
      labels: labels.sort(),
      dryRunOnly: /with `--dry-run` only/.test(cells[4] ?? ''),
    });
  }
  return rows;
}

/** The work queues the paragraph starting "The queues (`name`):" names. */
export function documentedQueues(doc = METRICS_DOC): string[] {
  const paragraph = doc.split('\n\n').find((p) => p.startsWith('The queues (`name`):')) ?? '';
  return [...paragraph.matchAll(/`([a-z]+(?:-[a-z]+)+)`\s+\(/g)].map((m) => m[1]!).sort();
}
