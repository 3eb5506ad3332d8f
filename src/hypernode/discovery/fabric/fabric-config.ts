// The part of a fabric source's `config` every such source shares: fabric
// names, positive durations, and a source that reads several fabrics written
// either as one fabric at the top level (`fabric: NAME` beside that fabric's keys) or as
// `fabrics: [{name, ...}]`. One home, so every fabric source refuses the
// same mistakes with the same words; what a fabric holds besides its name
// stays with each source.

import { durationToMs, parseDuration } from '../../../util/go-duration.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { unknownKeysProblem } from '../../config/unknown-keys.ts';
import { isFabricName } from './fabric-hypernodes.ts';

/** `raw` as a fabric name; throws `<source>: <where> must be a DNS label …` otherwise. */
export function fabricName(raw: unknown, where: string, source: string): string {
  if (typeof raw !== 'string' || !isFabricName(raw)) {
    throw new Error(`${source}: ${where} must be a DNS label of at most 40 characters (lowercase letters, digits, '-'), got ${JSON.stringify(raw)}`);
  }
  return raw;
}

/** The name of the one fabric written at the top level: `config.fabric`, or `defaultName` when absent. */
export function singleFabricName(c: Readonly<Record<string, unknown>>, defaultName: string, source: string): string {
  return c.fabric === undefined ? defaultName : fabricName(c.fabric, 'config.fabric', source);
}

/** How a source writes its list of fabrics, for the checks and messages of fabricList. */
export interface FabricListForm {
  /** What every message starts with: `lldp source`. */
  readonly source: string;
  /** Top-level keys of the one-fabric form, refused beside `fabrics`, in the order they are checked. */
  readonly singleKeys: readonly string[];
  /** The one-fabric key the refusal names whichever of singleKeys is set; the one set by default. */
  readonly singleKeyNamed?: string;
  /** The keys an item may have. */
  readonly itemKeys: readonly string[];
  /** An item as the list message shows it: `{name, switches}`. */
  readonly itemShape: string;
  /** Said after "must be a mapping" for an item that is none, e.g. ` with name and endpoint`. */
  readonly itemMappingHint?: string;
}

/** One item of `config.fabrics`, checked: a mapping of known keys with a fabric name used once. */
export interface FabricItem {
  readonly name: string;
  readonly raw: Readonly<Record<string, unknown>>;
  /** `config.fabrics[2]`, for the source's own messages. */
  readonly where: string;
}

/**
 * `config.fabrics` (the caller checked that it is set), each item checked and
 * handed to `decode` in order, so an item's own problems are found before the
 * next item's.
 */
export function fabricList<T>(c: Readonly<Record<string, unknown>>, form: FabricListForm, decode: (item: FabricItem) => T): T[] {
  const fail = (message: string): never => {
    throw new Error(`${form.source}: ${message}`);
  };
  for (const key of form.singleKeys) {
    if (c[key] !== undefined) fail(`write either config.${form.singleKeyNamed ?? key} (one fabric) or config.fabrics (a list), not both`);
  }
  if (!Array.isArray(c.fabrics) || c.fabrics.length === 0) fail(`config.fabrics must be a non-empty list of ${form.itemShape}`);
  const names = new Set<string>();
  return (c.fabrics as unknown[]).map((raw, i) => {
    const where = `config.fabrics[${i}]`;
    if (!isMapping(raw)) return fail(`${where} must be a mapping${form.itemMappingHint ?? ''}`);
    const extra = unknownKeysProblem(raw, form.itemKeys, where);
    if (extra) fail(extra);
    const name = fabricName(raw.name, `${where}.name`, form.source);
    if (names.has(name)) fail(`${where}.name ${JSON.stringify(name)} is used twice; each fabric needs its own name (it prefixes and labels its HyperNodes)`);
    names.add(name);
    return decode({ name, raw, where });
  });
}

/**
 * A positive Go duration (`90s`, `30m`) of a fabric source's config in ms, or
 * undefined when absent; `fail` throws the source's error, `example` shows the form.
 */
export function positiveDuration(raw: unknown, where: string, example: string, fail: (message: string) => never): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  let ms: number;
  try {
    ms = durationToMs(parseDuration(String(raw)));
  } catch {
    return fail(`${where} must be a duration like ${example}, got ${JSON.stringify(raw)}`);
  }
  if (ms <= 0) fail(`${where} must be positive, got ${JSON.stringify(raw)}`);
  return ms;
}
