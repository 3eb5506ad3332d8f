// Bounding foreign text before it reaches a log line, an error message or an
// Event: API server error bodies, UFM answers, object names and labels are
// whatever someone else wrote, and a megabyte of it must not become one log
// line. Lengths are UTF-8 bytes because that is what Kubernetes limits (an
// Event message may hold 1 KiB) and what an operator sees in a log file.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A sane default for one foreign value in a message or log line. */
export const FOREIGN_TEXT_MAX_BYTES = 1024;

/**
 * `text` unchanged when it fits in `maxBytes` UTF-8 bytes; otherwise its
 * longest prefix that fits together with `… (N bytes)`, where N is the
 * original length. Never splits a character.
 */
export function truncateText(text: string, maxBytes: number = FOREIGN_TEXT_MAX_BYTES): string {
  // Each UTF-16 unit encodes to at most 3 bytes: short strings need no encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const suffix = `… (${bytes.length} bytes)`;
  return bytePrefix(bytes, maxBytes - encoder.encode(suffix).length) + suffix;
}

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  return bytes.length <= maxBytes ? text : bytePrefix(bytes, maxBytes);
}

function bytePrefix(bytes: Uint8Array, maxBytes: number): string {
  let cut = Math.max(0, maxBytes);
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character boundary.
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return decoder.decode(bytes.subarray(0, cut));
}
