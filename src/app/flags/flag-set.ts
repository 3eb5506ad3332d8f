// A pflag-compatible command-line parser over a fixed flag table. Mirrors
// github.com/spf13/pflag v1.0.10 flag.go (parseArgs, parseLongArg,
// parseSingleShortArg, FlagUsages) as configured by component-base's
// cliflag.InitFlags: interspersed positionals, `_` normalised to `-`, Go flags
// with one-letter names reachable as shorthands. These rules are the contract:
// every spelling and every error text below is something scripts and Helm
// charts already depend on.

import type { FlagKind } from './flag-kinds.ts';
import { quote, quoteRune } from './go-strconv.ts';
import { errorMessage } from '../../util/error-message.ts';

export interface FlagSpec<T> {
  readonly kind: FlagKind<T>;
  readonly defaultValue: T;
  readonly usage: string;
  /** One letter reachable as `-x` (only klog's `v`). */
  readonly shorthand?: string;
}

/** Flags keyed by their canonical name (words separated by `-`). */
export type FlagTable = Readonly<Record<string, FlagSpec<unknown>>>;

export type FlagValues<T extends FlagTable> = { readonly [K in keyof T]: T[K] extends FlagSpec<infer V> ? V : never };

export type ParseResult<T extends FlagTable> =
  | { readonly kind: 'ok'; readonly values: FlagValues<T>; readonly positionals: readonly string[] }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly message: string };

export function flag<T>(kind: FlagKind<T>, defaultValue: T, usage: string, shorthand?: string): FlagSpec<T> {
  return shorthand === undefined ? { kind, defaultValue, usage } : { kind, defaultValue, usage, shorthand };
}

/** cliflag.WordSepNormalizeFunc: `--log_dir` and `--log-dir` are the same flag. */
function normalizeFlagName(name: string): string {
  return name.replaceAll('_', '-');
}

class ParseError extends Error {}
class HelpRequested extends Error {}

/** Parses `argv` (without the program name) the way pflag's CommandLine.Parse does. */
export function parseFlags<T extends FlagTable>(table: T, argv: readonly string[]): ParseResult<T> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) values[name] = spec.defaultValue;
  const shorthands = new Map<string, string>();
  for (const [name, spec] of Object.entries(table)) if (spec.shorthand) shorthands.set(spec.shorthand, name);

  const given = new Set<string>();
  const set = (name: string, text: string) => {
    const spec = table[name]!;
    try {
      const value = spec.kind.parse(text);
      // The first occurrence of a repeatable flag replaces its default, as pflag's stringArray does.
      values[name] = spec.kind.accumulate && given.has(name) ? spec.kind.accumulate(values[name], value) : value;
      given.add(name);
    } catch (err) {
      const flagName = spec.shorthand ? `-${spec.shorthand}, --${name}` : `--${name}`;
      throw new ParseError(`invalid argument ${quote(text)} for ${quote(flagName)} flag: ${errorMessage(err)}`);
    }
  };

  const positionals: string[] = [];
  let rest = [...argv];
  try {
    while (rest.length > 0) {
      const arg = rest.shift()!;
      if (arg.length < 2 || arg[0] !== '-') {
        positionals.push(arg); // includes "" and a lone "-"
      } else if (arg === '--') {
        positionals.push(...rest);
        rest = [];
      } else if (arg[1] === '-') {
        parseLong(arg, rest, table, set);
      } else {
        parseShort(arg, rest, table, shorthands, set);
      }
    }
  } catch (err) {
    if (err instanceof HelpRequested) return { kind: 'help' };
    if (err instanceof ParseError) return { kind: 'error', message: err.message };
    throw err;
  }
  return { kind: 'ok', values: values as FlagValues<T>, positionals };
}

type Setter = (name: string, text: string) => void;

function parseLong(arg: string, rest: string[], table: FlagTable, set: Setter): void {
  const body = arg.slice(2);
  if (body === '' || body[0] === '-' || body[0] === '=') throw new ParseError(`bad flag syntax: ${arg}`);
  const eq = body.indexOf('=');
  const name = eq >= 0 ? body.slice(0, eq) : body;
  const canonical = normalizeFlagName(name);
  const spec = Object.hasOwn(table, canonical) ? table[canonical] : undefined;
  if (!spec) {
    // --help is not a defined flag: pflag recognises it (unnormalised) only when unknown.
    if (name === 'help') throw new HelpRequested();
    throw new ParseError(`unknown flag: --${name}`);
  }
  if (eq >= 0) set(canonical, body.slice(eq + 1));
  else if (spec.kind.isBool) set(canonical, 'true');
  else if (rest.length > 0) set(canonical, rest.shift()!);
  else throw new ParseError(`flag needs an argument: ${arg}`);
}

const utf8 = new TextEncoder();

function parseShort(
  arg: string,
  rest: string[],
  table: FlagTable,
  shorthands: ReadonlyMap<string, string>,
  set: Setter,
): void {
  let letters = arg.slice(1);
  // pflag skips Go test-binary flags such as -test.v entirely.
  if (letters.startsWith('test.')) return;
  while (letters.length > 0) {
    const letter = letters[0]!;
    const name = shorthands.get(letter);
    if (name === undefined) {
      if (letter === 'h') throw new HelpRequested();
      throw new ParseError(`unknown shorthand flag: ${quoteFirstByte(letters)} in -${letters}`);
    }
    if (letters.length > 2 && letters[1] === '=') {
      set(name, letters.slice(2)); // -v=4
      letters = '';
    } else if (table[name]!.kind.isBool) {
      set(name, 'true');
      letters = letters.slice(1);
    } else if (letters.length > 1) {
      set(name, letters.slice(1)); // -v4
      letters = '';
    } else if (rest.length > 0) {
      set(name, rest.shift()!); // -v 4
      letters = '';
    } else {
      throw new ParseError(`flag needs an argument: ${quoteFirstByte(letters)} in -${letters}`);
    }
  }
}

/** pflag looks at the first byte, and Go's %q prints that byte as a rune. */
function quoteFirstByte(text: string): string {
  return quoteRune(String.fromCharCode(utf8.encode(text)[0]!));
}

/** Each flag's current value in Go's String() form, sorted by name (the V(2) `FLAG:` dump). */
export function describeFlags<T extends FlagTable>(table: T, values: FlagValues<T>): { name: string; value: string }[] {
  return Object.keys(table)
    .sort()
    .map((name) => ({ name, value: table[name]!.kind.format((values as Record<string, unknown>)[name]) }));
}

/** pflag's UnquoteUsage shortens a few type names. */
const USAGE_TYPE_NAMES: Readonly<Record<string, string>> = { float64: 'float', int64: 'int', uint64: 'uint' };

/** `Usage of <argv0>:` and one line per flag, sorted, laid out like pflag's FlagUsages. */
export function formatUsage(table: FlagTable, argv0: string): string {
  const rows = Object.keys(table)
    .sort()
    .map((name) => {
      const spec = table[name]!;
      let head = spec.shorthand ? `  -${spec.shorthand}, --${name}` : `      --${name}`;
      if (!spec.kind.isBool) head += ` ${USAGE_TYPE_NAMES[spec.kind.typeName] ?? spec.kind.typeName}`;
      const def = spec.kind.format(spec.defaultValue);
      const isZero = def === '' || def === '0' || def === 'false' || def === '0s' || def === '[]';
      const shownDefault = isZero
        ? ''
        : spec.kind.typeName === 'string'
          ? ` (default ${quote(def)})`
          : ` (default ${def})`;
      return { head, text: spec.usage + shownDefault };
    });
  const width = Math.max(...rows.map((r) => r.head.length));
  const lines = rows.map((r) => `${r.head.padEnd(width)}   ${r.text}`);
  return `Usage of ${argv0}:\n${lines.join('\n')}\n`;
}
