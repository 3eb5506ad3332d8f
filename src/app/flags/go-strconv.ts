// Go's strconv, as far as the command line needs it: ParseBool, ParseInt,
// ParseUint, ParseFloat(…, 32), FormatFloat(…, 'g', -1, 32), Quote and
// QuoteRune. Mirrors Go's src/strconv/{atob,atoi,atof,ftoa,quote}.go.
//
// The parse errors carry Go's exact text (`strconv.ParseInt: parsing "abc":
// invalid syntax`) because pflag embeds it in the messages users see
// on a bad value, so scripts that match those messages keep working.

export type NumErrorKind = 'invalid syntax' | 'value out of range';

/** Go's *strconv.NumError. */
export class NumError extends Error {
  constructor(
    readonly func: string,
    readonly num: string,
    readonly kind: NumErrorKind,
  ) {
    super(`strconv.${func}: parsing ${quote(num)}: ${kind}`);
    this.name = 'NumError';
  }
}

export function parseBool(text: string): boolean {
  switch (text) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
  }
  throw new NumError('ParseBool', text, 'invalid syntax');
}

/** Base 0 reads Go literal prefixes (0x, 0o, 0b, leading 0) and allows `_` between digits. */
export type IntBase = 0 | 10;

export function parseUint(text: string, base: IntBase, bitSize: 32 | 64, func = 'ParseUint'): bigint {
  const syntax = () => new NumError(func, text, 'invalid syntax');
  if (text === '') throw syntax();
  const allowUnderscores = base === 0;
  let radix = 10;
  let digits = text;
  if (base === 0 && text[0] === '0') {
    const prefix = text.length >= 3 ? text[1]!.toLowerCase() : '';
    radix = prefix === 'b' ? 2 : prefix === 'o' ? 8 : prefix === 'x' ? 16 : 8;
    digits = text.slice(prefix === 'b' || prefix === 'o' || prefix === 'x' ? 2 : 1);
  }
  const max = (1n << BigInt(bitSize)) - 1n;
  let n = 0n;
  let sawUnderscore = false;
  for (const c of digits) {
    if (c === '_' && allowUnderscores) {
      sawUnderscore = true;
      continue;
    }
    const d = digitValue(c);
    if (d === undefined || d >= radix) throw syntax();
    n = n * BigInt(radix) + BigInt(d);
    if (n > max) throw new NumError(func, text, 'value out of range');
  }
  if (sawUnderscore && !underscoresOk(text)) throw syntax();
  return n;
}

export function parseGoInt(text: string, base: IntBase, bitSize: 32 | 64): bigint {
  if (text === '') throw new NumError('ParseInt', text, 'invalid syntax');
  const negative = text[0] === '-';
  const unsigned = text[0] === '+' || negative ? text.slice(1) : text;
  let magnitude: bigint;
  try {
    magnitude = parseUint(unsigned, base, bitSize);
  } catch (err) {
    // Go reports the whole input (with its sign) under ParseInt.
    throw new NumError('ParseInt', text, (err as NumError).kind);
  }
  const cutoff = 1n << BigInt(bitSize - 1);
  if ((!negative && magnitude >= cutoff) || (negative && magnitude > cutoff)) {
    throw new NumError('ParseInt', text, 'value out of range');
  }
  return negative ? -magnitude : magnitude;
}

function digitValue(c: string): number | undefined {
  const code = c.charCodeAt(0);
  if (c.length !== 1) return undefined;
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 122) return lower - 97 + 10;
  return undefined;
}

/** Go's underscoreOK: `_` only between digits, or between a base prefix and a digit. */
function underscoresOk(text: string): boolean {
  let saw: '^' | '0' | '_' | '!' = '^';
  let s = text;
  if (s[0] === '-' || s[0] === '+') s = s.slice(1);
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/**
 * strconv.ParseFloat(text, 32): decimal or hexadecimal literals with optional
 * `_` separators, `inf`/`infinity` with a sign, `nan`; a value beyond float32
 * range is an error, as in Go.
 */
export function parseFloat32(text: string): number {
  const special = parseSpecialFloat(text);
  if (special !== undefined) return special;
  const literal = scanFloatLiteral(text);
  if (literal === undefined) throw new NumError('ParseFloat', text, 'invalid syntax');
  const value = Math.fround(literal);
  if (!Number.isFinite(value)) throw new NumError('ParseFloat', text, 'value out of range');
  return value;
}

function parseSpecialFloat(text: string): number | undefined {
  const lower = text.toLowerCase();
  if (lower === 'nan') return NaN;
  const sign = lower[0] === '-' ? -1 : 1;
  const body = lower[0] === '-' || lower[0] === '+' ? lower.slice(1) : lower;
  return body === 'inf' || body === 'infinity' ? sign * Infinity : undefined;
}

/** Go's readFloat: returns the float64 value of a well-formed literal, undefined otherwise. */
function scanFloatLiteral(text: string): number | undefined {
  const m =
    /^([+-]?)(?:(0[xX])([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9][0-9_]*)|([0-9_]*)(?:\.([0-9_]*))?(?:[eE]([+-]?[0-9][0-9_]*))?)$/.exec(
      text,
    );
  if (!m) return undefined;
  const [, sign, hexPrefix, hexInt = '', hexFrac = '', binExp = '', decInt = '', decFrac = '', decExp = ''] = m;
  const intPart = hexPrefix ? hexInt : decInt;
  const fracPart = hexPrefix ? hexFrac : decFrac;
  if (!/[0-9a-fA-F]/.test(intPart + fracPart)) return undefined;
  if (text.includes('_') && !underscoresOk(text)) return undefined;
  const clean = (s: string) => s.replaceAll('_', '');
  const negative = sign === '-';
  let value: number;
  if (hexPrefix) {
    const digits = clean(intPart) + clean(fracPart);
    const exponent = Number(clean(binExp)) - 4 * clean(fracPart).length;
    value = scaleByPowerOfTwo(Number(BigInt(`0x${digits || '0'}`)), exponent);
  } else {
    value = Number(`${clean(intPart) || '0'}.${clean(fracPart) || '0'}e${clean(decExp) || '0'}`);
  }
  return negative ? -value : value;
}

/** mantissa × 2^exponent without overflowing the intermediate power. */
function scaleByPowerOfTwo(mantissa: number, exponent: number): number {
  const half = Math.trunc(exponent / 2);
  return mantissa * 2 ** half * 2 ** (exponent - half);
}

/** strconv.FormatFloat(float64(v), 'g', -1, 32): the shortest text that reads back as the same float32. */
export function formatFloat32(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  let digits = '';
  let exponent = 0;
  for (let precision = 1; precision <= 9; precision++) {
    const [mantissa, exp] = abs.toExponential(precision - 1).split('e') as [string, string];
    if (Math.fround(Number(`${mantissa}e${exp}`)) === Math.fround(abs) || precision === 9) {
      digits = mantissa.replace('.', '');
      exponent = Number(exp);
      break;
    }
  }
  // Go switches to %e when the exponent is < -4 or >= 6 for the shortest form.
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${digits[0]}${fraction}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  const pointAt = exponent + 1;
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return `${sign}${digits}${'0'.repeat(pointAt - digits.length)}`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

function escapeRune(ch: string, quoteChar: '"' | "'"): string {
  if (ch === quoteChar || ch === '\\') return `\\${ch}`;
  if (PRINTABLE.test(ch)) return ch;
  const simple: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
  };
  if (simple[ch]) return simple[ch];
  const code = ch.codePointAt(0)!;
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

/** strconv.Quote (what Go's %q prints for a string). */
export function quote(text: string): string {
  let out = '"';
  for (const ch of text) out += escapeRune(ch, '"');
  return `${out}"`;
}

/** strconv.QuoteRune (what Go's %q prints for a byte or rune). */
export function quoteRune(ch: string): string {
  return `'${escapeRune(ch, "'")}'`;
}
