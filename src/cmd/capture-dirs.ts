// The values of a repeatable capture flag (`--ufm-capture`, `--lldp-capture`,
// `--ibnetdiscover-capture`): `DIR` (or `FILE`) serves everything without its
// own, `KEY=DIR` one endpoint or fabric. Errors name the flag and the value.

export interface CaptureDirs {
  /** The directory (or file) for every key without its own. */
  readonly any?: string;
  readonly byKey: ReadonlyMap<string, string>;
}

/** What a capture flag's value names: a directory (the default) or a file. */
export interface CapturePlace {
  readonly noun: string;
  readonly placeholder: string;
}

const DIRECTORY: CapturePlace = { noun: 'directory', placeholder: 'DIR' };
export const CAPTURE_FILE: CapturePlace = { noun: 'file', placeholder: 'FILE' };

/** Parses the values; `what` names a key in messages (`endpoint`, `fabric`), `normalize` makes equal keys equal. */
export function parseCaptureDirs(
  flag: string,
  what: string,
  values: readonly string[],
  normalize: (key: string) => string = (k) => k,
  place: CapturePlace = DIRECTORY,
): CaptureDirs {
  let any: string | undefined;
  const byKey = new Map<string, string>();
  const KEY = what.toUpperCase();
  const { noun, placeholder } = place;
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq < 0) {
      if (value === '') throw new Error(`${flag} needs a ${noun}`);
      if (any !== undefined)
        throw new Error(
          `${flag} ${value}: a ${noun} for every ${what} is already given (${any}); use ${KEY}=${placeholder} for more than one`,
        );
      any = value;
      continue;
    }
    const key = value.slice(0, eq);
    const dir = value.slice(eq + 1);
    if (key === '' || dir === '') throw new Error(`${flag} ${value}: want ${KEY}=${placeholder} or ${placeholder}`);
    const k = normalize(key);
    if (byKey.has(k)) throw new Error(`${flag} ${value}: ${what} ${key} is already given`);
    byKey.set(k, dir);
  }
  return { any, byKey };
}
