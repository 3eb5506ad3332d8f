// Equality of two values' JSON forms (what an API server stores): properties
// whose value is undefined count as absent, as JSON.stringify drops them.
// Compared in place, so the common equal case copies nothing; it runs for
// every HyperNode of every discovery round, so it creates no function per
// call either (the bundle names each function it creates, at a cost).

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    if (a.length !== bs.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bs[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = definedKeys(ao);
  if (ak.length !== definedKeys(bo).length) return false;
  for (const k of ak) if (!jsonEqual(ao[k], bo[k])) return false;
  return true;
}

function definedKeys(o: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const k of Object.keys(o)) if (o[k] !== undefined) keys.push(k);
  return keys;
}
