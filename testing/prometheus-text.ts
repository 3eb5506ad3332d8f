// Reading values out of a Prometheus text exposition (a /metrics answer).

/**
 * The value of the one series of `name` whose labels are exactly `labels`
 * (0 when the series does not exist yet).
 */
export function seriesValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '')
      .split(/,(?=[a-zA-Z_]\w*=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (have === want) return Number(m[3]);
  }
  return 0;
}

/** The sum of the samples of `family` whose labels contain every `labels` pair. */
export function familySum(text: string, family: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${family}{`) && !line.startsWith(`${family} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
