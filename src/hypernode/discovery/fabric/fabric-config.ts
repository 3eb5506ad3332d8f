// The part of a fabric source's `config` every such source shares, decoded in
// one place so every fabric source refuses the same mistakes in the same
// words: fabric names, whole numbers and positive durations, `hostMapping`
// and `nvlink`, and the fabrics themselves, written either as one fabric at
// the top level (`fabric: NAME` beside that fabric's keys) or as
// `fabrics: [{name, ...}]`, each with the Secret its credentials come from.
// What a fabric holds besides its name and Secret stays with each source.

import type { DiscoveryEntry } from '../../model/contracts.ts';
import { durationToMs, parseDuration } from '../../../util/go-duration.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { unknownKeysProblem } from '../../config/unknown-keys.ts';
import { secretRefOf } from '../remote/credentials.ts';
import type { SecretRef } from '../remote/secret-grant.ts';
import { isFabricName } from './fabric-hypernodes.ts';
import { parseHostMapping, type HostMapping } from './host-mapping.ts';
import { parseNvlinkConfig, type NvlinkConfig } from './nvlink-config.ts';
import { quoteInput } from '../../../util/input-fragment.ts';
import { wrapError } from '../../../util/error-message.ts';

/** `raw` as a fabric name; throws `<source>: <where> must be a DNS label …` otherwise. */
export function configuredFabricName(raw: unknown, where: string, source: string): string {
  if (typeof raw !== 'string' || !isFabricName(raw)) {
    throw new Error(
      `${source}: ${where} must be a DNS label of at most 40 characters (lowercase letters, digits, '-'), got ${quoteInput(raw)}`,
    );
  }
  return raw;
}

/** A source's `config`, as the decoders here read it. */
type Config = Readonly<Record<string, unknown>>;
/** Throws a message with the source's prefix. */
type Fail = (message: string) => never;

/** How a source writes its fabrics, for the checks and messages of fabricsOf. */
export interface FabricListForm {
  /** What every message starts with: `lldp source`. */
  readonly source: string;
  /** The name of the one fabric written at the top level when `config.fabric` is absent. */
  readonly defaultName: string;
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

/** One fabric of the config, checked: the one at the top level, or an item of `config.fabrics`. */
export interface FabricItem {
  readonly name: string;
  /** The mapping holding the fabric's keys: the config itself for the one-fabric form. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** `config` or `config.fabrics[2]`, for the source's own messages about the fabric's keys. */
  readonly where: string;
  /** True for an item of `config.fabrics`. */
  readonly listed: boolean;
  /** Where its credentials are: the item's `secretRef`, else the entry's `credentials.secretRef`. */
  readonly secretRef: SecretRef | undefined;
}

/**
 * The fabrics of a fabric source's entry, each checked and handed to
 * `decode` in order, so an item's own problems are found before the next
 * item's: without `config.fabrics`, the one fabric at the top level, named by
 * `config.fabric` or the form's default; with it, each item, a mapping of
 * known keys with a fabric name used once and its own optional `secretRef`.
 */
export function fabricsOf<T>(entry: DiscoveryEntry, form: FabricListForm, decode: (fabric: FabricItem) => T): T[] {
  const c = entry.config;
  const entryRef = entry.credentials?.secretRef;
  const fail: Fail = (message) => {
    throw new Error(`${form.source}: ${message}`);
  };
  if (c.fabrics === undefined || c.fabrics === null) {
    const name =
      c.fabric === undefined ? form.defaultName : configuredFabricName(c.fabric, 'config.fabric', form.source);
    return [decode({ name, raw: c, where: 'config', listed: false, secretRef: entryRef })];
  }
  for (const key of form.singleKeys) {
    if (c[key] !== undefined)
      fail(`write either config.${form.singleKeyNamed ?? key} (one fabric) or config.fabrics (a list), not both`);
  }
  if (!Array.isArray(c.fabrics) || c.fabrics.length === 0)
    fail(`config.fabrics must be a non-empty list of ${form.itemShape}`);
  const names = new Set<string>();
  return (c.fabrics as unknown[]).map((raw, i) => {
    const where = `config.fabrics[${i}]`;
    if (!isMapping(raw)) return fail(`${where} must be a mapping${form.itemMappingHint ?? ''}`);
    const extra = unknownKeysProblem(raw, form.itemKeys, where);
    if (extra) fail(extra);
    const name = configuredFabricName(raw.name, `${where}.name`, form.source);
    if (names.has(name))
      fail(
        `${where}.name ${quoteInput(name)} is used twice; each fabric needs its own name (it prefixes and labels its HyperNodes)`,
      );
    names.add(name);
    let secretRef: SecretRef | undefined;
    try {
      secretRef = secretRefOf(raw.secretRef, `${where}.secretRef`, entryRef);
    } catch (err) {
      throw wrapError(form.source, err);
    }
    return decode({ name, raw, where, listed: true, secretRef });
  });
}

/** The keys every fabric source reads alike, besides its fabrics. */
export interface FabricHosts {
  readonly hostMapping: HostMapping;
  readonly nvlink: NvlinkConfig | undefined;
}

/** `config.hostMapping` and `config.nvlink`; an error starts with `<source>: `. */
export function hostsAndNvlink(c: Config, source: string): FabricHosts {
  try {
    return { hostMapping: parseHostMapping(c.hostMapping), nvlink: parseNvlinkConfig(c.nvlink) };
  } catch (err) {
    throw wrapError(source, err);
  }
}

/**
 * `config.minSharedHosts` of the sources that find scalable units in the cabling they discover (lldp, ibnetdiscover):
 * the hosts two leaves must share to be one unit, so one miscabled host merges nothing.
 */
export const DEFAULT_MIN_SHARED_HOSTS = 2;

/**
 * `config.minSharedHosts` of the graph source: its document states the cabling the operator means rather than what
 * was found on the wire, so a host it places on two leaves is meant, and joins them, as any shared host does where
 * no threshold is set (fabric-levels.ts).
 */
export const DEFAULT_MIN_SHARED_HOSTS_STATED_CABLING = 1;

/** A whole number of at least `min` of a fabric source's config, `fallback` when absent. */
export function wholeNumber(raw: unknown, where: string, fallback: number, fail: Fail, min = 1): number {
  if (raw === undefined || raw === null) return fallback;
  const whole = typeof raw === 'number' && Number.isInteger(raw) && raw >= min;
  if (!whole) fail(`${where} must be a whole number of at least ${min}, got ${quoteInput(raw)}`);
  return raw as number;
}

/**
 * A positive Go duration (`90s`, `30m`) of a fabric source's config in ms, or
 * undefined when absent; `fail` throws the source's error, `example` shows the form.
 */
export function positiveDuration(raw: unknown, where: string, example: string, fail: Fail): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  let ms: number;
  try {
    ms = durationToMs(parseDuration(String(raw)));
  } catch {
    return fail(`${where} must be a duration like ${example}, got ${quoteInput(raw)}`);
  }
  if (ms <= 0) fail(`${where} must be positive, got ${quoteInput(raw)}`);
  return ms;
}
