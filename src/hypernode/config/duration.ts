// Go duration strings (time.ParseDuration), the syntax of `interval` in the
// discovery configuration (docs/configuration.md, "Schema"): "10m", "1h30m", "1.5h", "-5m",
// "300ms", "0". Go parses them in the yaml.v2 decoder of config/loader.go.

const NS_PER_UNIT: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5 micro sign
  'μs': 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};
const COMPONENT = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;
/** Go's limit: durations are int64 nanoseconds. */
const MAX_NS = 2 ** 63 - 1;

/** Parses a Go duration; returns milliseconds, or undefined when `text` is not one. */
export function parseGoDuration(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let ns = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < s.length) {
    const at = COMPONENT.lastIndex;
    const m = COMPONENT.exec(s);
    if (!m || m.index !== at) return undefined;
    const [, whole = '', frac = '', unit = ''] = m;
    if (whole === '' && frac === '') return undefined; // ".s" has no digits
    ns += Number(`${whole || '0'}.${frac || '0'}`) * NS_PER_UNIT[unit]!;
  }
  if (ns > MAX_NS) return undefined;
  return (sign * ns) / 1e6;
}
