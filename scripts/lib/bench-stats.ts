// Small statistics and formatting helpers for the benchmarks under scripts/:
// percentiles by the nearest-rank method (p50 of an even count is the lower
// middle value, so every figure printed is one that was measured),
// fixed-precision milliseconds, and the PASS/MISS summary against targets.

/** The nearest-rank percentile `p` (0–100) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function ms(value: number, digits = 1): string {
  return `${value.toFixed(digits)} ms`;
}

export function seconds(valueMs: number): string {
  return `${(valueMs / 1000).toFixed(2)} s`;
}

/** One measured figure against its target. */
export interface Verdict {
  figure: string;
  measured: string;
  target: string;
  pass: boolean;
}

/** The summary a benchmark ends with: one PASS or MISS line per figure, sorted by figure. */
export function verdictSummary(title: string, verdicts: readonly Verdict[]): string {
  const lines = [...verdicts]
    .sort((a, b) => a.figure.localeCompare(b.figure))
    .map((v) => `  ${v.pass ? 'PASS' : 'MISS'}  ${v.figure}: ${v.measured} (target ${v.target})`);
  return [title, ...lines].join('\n');
}
