// A piece of someone else's input shown in an error or a warning: a line of a
// file, a diagnostic of a tool. Such text may be a secret the file happened to
// hold, or carry terminal escapes, so a message never quotes more than a few
// dozen bytes of it, and never a control character.

/** The most bytes of input a message quotes. */
export const INPUT_FRAGMENT_MAX_BYTES = 48;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is taken out
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+/g;

/**
 * `text` with each run of control characters (C0, C1, zero-width and bidi marks included) made one space, cut to
 * `maxBytes` UTF-8 bytes on a character boundary with `…` when longer.
 */
export function inputFragment(text: string, maxBytes: number = INPUT_FRAGMENT_MAX_BYTES): string {
  const clean = text.replace(CONTROLS, ' ');
  const bytes = encoder.encode(clean);
  if (bytes.length <= maxBytes) return clean;
  let cut = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character boundary.
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return `${decoder.decode(bytes.subarray(0, cut))}…`;
}
