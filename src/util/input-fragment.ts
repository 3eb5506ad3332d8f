// What an error, a log line, an Event or a condition may say about input that
// someone other than the operator wrote: a ConfigMap value, a fabric answer, a
// file. Never the input itself: a file the ConfigMap points at may be a
// ServiceAccount token or a private key, and an Event is read by more people
// than the Secret. A message names where the input is wrong and what kind of
// value it found there (`describeInput`: its kind and size); where a value
// helps the reader find their own typo, at most a few dozen bytes of it, with
// control and formatting characters removed so that it cannot move a
// terminal's cursor or reverse the text around it (`quoteInput`).

import { utf8Prefix } from './truncate.ts';

/** The most of one input value a message shows, in UTF-8 bytes before quoting. */
export const FRAGMENT_MAX_BYTES = 40;
/** A path or a URL the configuration names is shown longer: the reader needs to see which one was refused. */
export const LOCATION_MAX_BYTES = 96;

/**
 * C0 and C1 controls, DEL, and the invisible formatting characters (bidi overrides and isolates, zero-width
 * characters, the BOM), line and paragraph separators, and lone surrogates.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;
const BLANKS = /[\t\n\v\f\r]+/g;

interface Fragment {
  /** What is shown: printable, at most the byte limit. */
  readonly shown: string;
  /** The whole input's size in UTF-8 bytes when `shown` is only its beginning. */
  readonly cutFrom?: number;
}

function fragmentOf(text: string, maxBytes: number): Fragment {
  // Only the head can be shown: cleaning a megabyte to keep 40 bytes would be wasted work.
  const window = maxBytes * 4;
  const head = text.length > window ? text.slice(0, window) : text;
  const clean = head.replace(BLANKS, ' ').replace(UNPRINTABLE, '');
  const shown = utf8Prefix(clean, maxBytes);
  return shown === clean && head === text ? { shown } : { shown, cutFrom: Buffer.byteLength(text) };
}

/**
 * `text` without control and formatting characters (runs of blanks become one space), at most `maxBytes` of it:
 * `abc… (812 bytes)` when cut.
 */
export function safeFragment(text: string, maxBytes: number = FRAGMENT_MAX_BYTES): string {
  const { shown, cutFrom } = fragmentOf(text, maxBytes);
  return cutFrom === undefined ? shown : `${shown}… (${cutFrom} bytes)`;
}

/** `a string of 812 bytes`, `a mapping of 3 keys`, `a list of 2 items`, `a number`: what a value is, not what it says. */
export function describeInput(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'string')
    return value === '' ? 'an empty string' : `a string of ${Buffer.byteLength(value)} bytes`;
  if (Array.isArray(value)) return `a list of ${plural(value.length, 'item')}`;
  if (typeof value === 'object') return `a mapping of ${plural(Object.keys(value).length, 'key')}`;
  return `a ${typeof value}`;
}

/**
 * A value as a message may show it: a string as a short quoted fragment (`"10x"`, `"abc…" (812 bytes)`), a number or
 * a boolean as written, a list or a mapping by its kind and size.
 */
export function quoteInput(value: unknown, maxBytes: number = FRAGMENT_MAX_BYTES): string {
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const { shown, cutFrom } = fragmentOf(value, maxBytes);
    return cutFrom === undefined ? JSON.stringify(shown) : `${JSON.stringify(`${shown}…`)} (${cutFrom} bytes)`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return describeInput(value);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
