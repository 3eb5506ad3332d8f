// Strict, weakly typed decoding of the profile form of the label source's
// configuration, with the behaviour and the messages of the Go decoder Volcano
// uses there (github.com/mitchellh/mapstructure with WeaklyTypedInput,
// ZeroFields and ErrorUnused): unknown keys are errors, field names match
// exactly or else case-insensitively, scalars convert to strings, a single
// value stands for a one-element list. Errors of one decode are gathered and
// reported together, sorted, in the decoder's frame.

import { isMapping } from '../../../../util/is-mapping.ts';
/** The errors gathered while decoding one value. */
export class DecodeErrors {
  readonly list: string[] = [];

  add(message: string): void {
    this.list.push(message);
  }

  /** `N error(s) decoding:` + one `* error` line each, sorted; undefined when there are none. */
  message(): string | undefined {
    if (this.list.length === 0) return undefined;
    return `${this.list.length} error(s) decoding:\n\n${[...this.list]
      .sort()
      .map((e) => `* ${e}`)
      .join('\n')}`;
  }
}

/** Go's kind word for a decoded YAML value, as the decoder names it in messages. */
export function goKind(x: unknown): string {
  if (typeof x === 'string') return 'string';
  if (typeof x === 'number') return Number.isInteger(x) ? 'int' : 'float64';
  if (typeof x === 'boolean') return 'bool';
  if (Array.isArray(x)) return 'slice';
  if (isMapping(x)) return 'map';
  return 'invalid';
}

/** Go's type text of a value that cannot become a string. */
function goType(x: unknown): string {
  return Array.isArray(x) ? '[]interface {}' : 'map[string]interface {}';
}

/**
 * The values of `known` fields in `obj`, matched exactly first, otherwise
 * case-insensitively; keys matching no field are reported as invalid at `path`.
 */
export function decodeFields<K extends string>(
  obj: Record<string, unknown>,
  known: readonly K[],
  path: string,
  errs: DecodeErrors,
): Partial<Record<K, unknown>> {
  const out: Partial<Record<K, unknown>> = {};
  const used = new Set<string>();
  const keys = Object.keys(obj);
  for (const field of known) {
    let key: string | undefined = Object.hasOwn(obj, field) ? field : undefined;
    key ??= keys.find((k) => !used.has(k) && k.toLowerCase() === field.toLowerCase());
    if (key === undefined) continue;
    used.add(key);
    out[field] = obj[key];
  }
  const invalid = keys.filter((k) => !used.has(k)).sort();
  if (invalid.length > 0) errs.add(`'${path}' has invalid keys: ${invalid.join(', ')}`);
  return out;
}

/** A string field: null is "", scalars are converted (true → "1"), lists and mappings are errors. */
export function weakString(x: unknown, path: string, errs: DecodeErrors): string {
  if (x === undefined || x === null) return '';
  if (typeof x === 'string') return x;
  if (typeof x === 'number') return String(x);
  if (typeof x === 'boolean') return x ? '1' : '0';
  errs.add(`'${path}' expected type 'string', got unconvertible type '${goType(x)}'`);
  return '';
}

/** A list field: null and an empty mapping are empty, a single value is a one-element list. */
export function weakList(x: unknown): unknown[] {
  if (x === undefined || x === null) return [];
  if (Array.isArray(x)) return x;
  if (isMapping(x) && Object.keys(x).length === 0) return [];
  return [x];
}

/** A mapping field: its object, or undefined with the decoder's error for anything else (null is absent). */
export function weakMapping(x: unknown, path: string, errs: DecodeErrors): Record<string, unknown> | undefined {
  if (x === undefined || x === null) return undefined;
  if (isMapping(x)) return x;
  errs.add(`'${path}' expected a map, got '${goKind(x)}'`);
  return undefined;
}
