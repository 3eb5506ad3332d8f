// The one rule for names a fabric gives itself — InfiniBand node descriptions,
// UFM system names, graph documents' names, LLDP system names and port ids —
// applied where each source reads them, before any lands in an annotation, a
// condition, an Event, a log line or a terminal. A host sets its own
// InfiniBand description or LLDP name, so a name may carry terminal escapes
// (ESC, OSC, BEL), bidi overrides that reorder what a person reads, zero-width
// characters that make two names look alike, or 300 KB of text that the API
// server then refuses in `volcano.sh/fabric-switches` forever.
//
// The rule is the one the LLDP source has always applied to what switches
// answer: text that is printable as it stands is kept; text holding a single
// unsafe character is not a name and is shown as the hex of its UTF-8 bytes
// (`6e:6f:64:65:1b`), which no terminal acts on and no reader mistakes for a
// name; either is cut to FABRIC_NAME_MAX_BYTES with a visible `…`. Printing
// what the cluster holds (which anyone who may write a HyperNode chooses) is
// escaped character by character instead (`terminalText`), so a line stays
// readable.

import { Buffer } from 'node:buffer';

/**
 * The longest name kept, in UTF-8 bytes: LLDP's SnmpAdminString names are SIZE(0..255) and an InfiniBand node
 * description 64 bytes; a Node name is at most 253. One name in an annotation or a condition is then small beside
 * the API server's 256 KiB for all annotations and 32 KiB for a condition message.
 */
export const FABRIC_NAME_MAX_BYTES = 255;
/** What marks a name that was cut. */
const CUT = '…';

/**
 * Characters no name may carry: C0 and C1 controls and DEL; the bidi marks, embeddings, overrides and isolates
 * (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069); zero-width and invisible characters (U+180E, U+200B–U+200D,
 * U+2060–U+2064, U+FEFF); the line and paragraph separators; the interlinear annotation marks; U+FFFD (what bytes
 * that are not UTF-8 decode to); and a surrogate without its pair.
 */
const CONTROLS = String.raw`\u0000-\u001f\u007f-\u009f`;
const INVISIBLE = String.raw`\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\ufffd`;
const LONE_SURROGATE = String.raw`[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]`;
const UNSAFE = new RegExp(`[${CONTROLS}${INVISIBLE}]|${LONE_SURROGATE}`);
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

/** Whether `text` holds a character no name may carry. */
export function hasUnsafeCharacters(text: string): boolean {
  return UNSAFE.test(text);
}

/** Colon-separated hex of bytes, as the LLDP source prints binary ids: `aa:bb:cc`. */
export function hexBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1:');
}

/**
 * A name as the controller keeps it: `raw` when it is printable and short; a long one cut to FABRIC_NAME_MAX_BYTES
 * and marked `…`; one holding any unsafe character (in what is kept of it) as the hex of its first bytes. The result
 * never shares memory with a long `raw` (a substring would keep all of it alive).
 */
export function fabricName(raw: string): string {
  // A character is at most 4 bytes, so a short string needs no count.
  const long = raw.length > FABRIC_NAME_MAX_BYTES / 4 && Buffer.byteLength(raw) > FABRIC_NAME_MAX_BYTES;
  const kept = long ? cutToBytes(raw, FABRIC_NAME_MAX_BYTES - Buffer.byteLength(CUT)) : raw;
  if (hasUnsafeCharacters(kept)) {
    // Three characters of hex a byte: as many bytes as make the cap.
    const room = Math.floor((FABRIC_NAME_MAX_BYTES - CUT.length) / 3);
    const bytes = Buffer.from(kept, 'utf8');
    return long || bytes.length > room ? `${hexBytes(bytes.subarray(0, room))}${CUT}` : hexBytes(bytes);
  }
  return long ? `${kept}${CUT}` : kept;
}

/** The longest head of `text` within `bytes` UTF-8 bytes, as a string of its own (not a slice of `text`). */
function cutToBytes(text: string, bytes: number): string {
  // The first `bytes` characters hold at least `bytes` bytes.
  const head = Buffer.from(text.slice(0, bytes), 'utf8').subarray(0, bytes).toString('utf8');
  // A cut through a character decodes to U+FFFD: drop it.
  return head.replace(/\ufffd$/, '');
}

/**
 * Printable text of bytes a switch answered: UTF-8 without an unsafe character (trailing NULs, which agents pad
 * with, cut), or undefined for a binary value, which the LLDP source then identifies by its hex.
 */
export function printableText(bytes: Uint8Array): string | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').replace(/\0+$/, '');
  return hasUnsafeCharacters(text) ? undefined : text;
}

/** A name from bytes a switch answered: its text when printable, else its hex; cut as fabricName cuts. */
export function fabricNameFromBytes(bytes: Uint8Array): string {
  return fabricName(printableText(bytes) ?? hexBytes(bytes));
}

/** `\x1b`, `\u202e`: how terminalText shows one unsafe character. */
function escaped(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text from the cluster made safe to print on a terminal: every unsafe character but the line feed escaped as
 * `\x1b` or `\u202e`, so escapes, overrides and invisible characters show as what they are and act on nothing.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE_ALL, (ch) => (ch === '\n' ? ch : escaped(ch)));
}
