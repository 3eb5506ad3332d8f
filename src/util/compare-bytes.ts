// Go's byte-wise string order (sort.Strings), for every place that sorts
// names, label values or keys so that output order matches the Go controller
// and never depends on the locale.

/**
 * Byte-order comparison (Go's sort.Strings), never locale order. UTF-8 byte
 * order equals code-point order; JavaScript's UTF-16 code-unit order differs
 * from it only where a surrogate (an astral character) meets U+E000–U+FFFF.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x < y ? -1 : 1;
    return xs ? 1 : -1; // the astral side has the larger code point
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
