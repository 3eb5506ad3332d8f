// The values of a repeatable capture flag (`--ufm-capture`, `--lldp-capture`):
// `DIR` serves everything without its own directory, `KEY=DIR` one endpoint or
// fabric. Errors name the flag and the value.

export interface CaptureDirs {
  /** The directory for every key without its own. */
  readonly any?: string;
  readonly byKey: ReadonlyMap<string, string>;
}

/** Parses the values; `what` names a key in messages (`endpoint`, `fabric`), `normalize` makes equal keys equal. */
export function parseCaptureDirs(flag: string, what: string, values: readonly string[], normalize: (key: string) => string = (k) => k): CaptureDirs {
  let any: string | undefined;
  const byKey = new Map<string, string>();
  const KEY = what.toUpperCase();
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq < 0) {
      if (value === '') throw new Error(`${flag} needs a directory`);
      if (any !== undefined) throw new Error(`${flag} ${value}: a directory for every ${what} is already given (${any}); use ${KEY}=DIR for more than one`);
      any = value;
      continue;
    }
    const key = value.slice(0, eq);
    const dir = value.slice(eq + 1);
    if (key === '' || dir === '') throw new Error(`${flag} ${value}: want ${KEY}=DIR or DIR`);
    const k = normalize(key);
    if (byKey.has(k)) throw new Error(`${flag} ${value}: ${what} ${key} is already given`);
    byKey.set(k, dir);
  }
  return { any, byKey };
}
