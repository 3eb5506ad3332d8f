// Go's time.Duration: time.ParseDuration and Duration.String(), in integer
// nanoseconds (bigint, like Go's int64). Mirrors Go's src/time/format.go
// (ParseDuration, quote) and time.go (String). The one parser for durations,
// on the command line and in the discovery ConfigMap's `interval`.
//
// The error texts are Go's (`time: missing unit in duration "5"`) because
// pflag embeds them in the parse-error messages users see, and validation
// messages print durations the way Go does (`1m30s`).

export const NANOSECOND = 1n;
export const MICROSECOND = 1_000n;
export const MILLISECOND = 1_000_000n;
export const SECOND = 1_000_000_000n;
export const MINUTE = 60n * SECOND;
export const HOUR = 60n * MINUTE;

const MAX_MAGNITUDE = 1n << 63n;
const MAX_DURATION = MAX_MAGNITUDE - 1n;

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', NANOSECOND],
  ['us', MICROSECOND],
  ['\u00b5s', MICROSECOND], // µ MICRO SIGN
  ['\u03bcs', MICROSECOND], // μ GREEK SMALL LETTER MU
  ['ms', MILLISECOND],
  ['s', SECOND],
  ['m', MINUTE],
  ['h', HOUR],
]);

/** time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or a bare `0`. Returns nanoseconds. */
export function parseDuration(text: string): bigint {
  const invalid = () => new Error(`time: invalid duration ${timeQuote(text)}`);
  let s = text;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    const [matched, whole = '', fraction] = m;
    if (whole === '' && !fraction) throw invalid(); // no digits at all, e.g. ".s"
    s = s.slice(matched.length);
    const unitText = /^[^0-9.]*/.exec(s)![0];
    if (unitText === '') throw new Error(`time: missing unit in duration ${timeQuote(text)}`);
    s = s.slice(unitText.length);
    const unit = UNITS.get(unitText);
    if (unit === undefined) throw new Error(`time: unknown unit ${timeQuote(unitText)} in duration ${timeQuote(text)}`);
    const wholeValue = BigInt(whole || '0');
    if (wholeValue > MAX_MAGNITUDE || wholeValue > MAX_MAGNITUDE / unit) throw invalid();
    let value = wholeValue * unit;
    if (fraction) {
      value += fractionOfUnit(fraction, unit);
      if (value > MAX_MAGNITUDE) throw invalid();
    }
    total += value;
    if (total > MAX_MAGNITUDE) throw invalid();
  }
  if (negative) return -total;
  if (total > MAX_DURATION) throw invalid();
  return total;
}

/**
 * The nanoseconds that `.<fraction>` of `unit` adds. Go evaluates this in
 * float64 (exact to the nanosecond for fractions of an hour) and keeps only
 * the first 19 digits of the fraction.
 */
function fractionOfUnit(fraction: string, unit: bigint): bigint {
  let digits = 0n;
  let scale = 1;
  for (const c of fraction) {
    const next = digits * 10n + BigInt(c.charCodeAt(0) - 48);
    if (digits > MAX_DURATION / 10n || next > MAX_MAGNITUDE) break;
    digits = next;
    scale *= 10;
  }
  return BigInt(Math.trunc(Number(digits) * (Number(unit) / scale)));
}

/** Duration.String(): `0s`, `1.5s`, `500ms`, `1m30s`, `1h0m0s`, `-2s`. */
export function formatDuration(ns: bigint): string {
  const negative = ns < 0n;
  const u = negative ? -ns : ns;
  let out: string;
  if (u === 0n) return '0s';
  if (u < SECOND) {
    // Below one second Go switches to the largest sub-second unit.
    const [unit, suffix] =
      u < MICROSECOND ? [NANOSECOND, 'ns'] : u < MILLISECOND ? [MICROSECOND, '\u00b5s'] : [MILLISECOND, 'ms'];
    out = withFraction(u, unit) + suffix;
  } else {
    const seconds = withFraction(u % MINUTE, SECOND) + 's';
    const minutes = u / MINUTE;
    if (minutes === 0n) out = seconds;
    else if (minutes < 60n) out = `${minutes}m${seconds}`;
    else out = `${minutes / 60n}h${minutes % 60n}m${seconds}`;
  }
  return negative ? `-${out}` : out;
}

/** `value / unit` with the fraction's trailing zeros (and a bare point) dropped. */
function withFraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const width = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(width, '0').replace(/0+$/, '')}`;
}

/** Converts nanoseconds to the milliseconds the rest of the program works in. */
export function durationToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}

/** Milliseconds back to nanoseconds; exact for every duration shorter than about 26 days. */
export function durationFromMs(ms: number): bigint {
  return BigInt(Math.round(ms * 1e6));
}

const utf8 = new TextEncoder();

/**
 * The time package's own quote(): like strconv.Quote for ASCII, but every
 * byte of a non-ASCII or control character is written as \xNN.
 */
function timeQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80) {
      for (const byte of utf8.encode(ch)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else {
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}
