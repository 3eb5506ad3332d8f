// Loading the discovery configuration from the ConfigMap cache, and the views
// the discovery manager derives from it. Mirrors
// pkg/controllers/hypernode/config/loader.go (docs/design.md §2.4).
//
// Our rule for bad input: only a document that is not YAML, is not a mapping,
// or whose networkTopologyDiscovery is not a list fails the whole load; a bad
// field fails only its own entry (see entry.ts).

import { isMap, isSeq, LineCounter, parseAllDocuments, type Document } from 'yaml';
import { ApiError } from '../../kube/errors.ts';
import type { Lister } from '../../kube/types.ts';
import type { Logger } from '../../log.ts';
import type { DiscoveryEntry } from '../model/contracts.ts';
import type { ConfigMap } from '../model/hypernode-types.ts';
import { DISCOVERY_KEY, ENTRY_KEYS, entryLocation, parseEntry, type EntryResult } from './entry.ts';
import type { ConfigMapLocation } from './location.ts';
import { warnUnknownKeys } from './unknown-keys.ts';
import { describeSyntaxError } from '../../util/syntax-error.ts';
import { wrapError } from '../../util/error-message.ts';
import { firstFew } from '../../util/first-few.ts';
import type { ParseBounds } from '../../util/bounded-json.ts';
import { checkYamlBounds, checkYamlBoundsSteps } from '../../util/bounded-yaml.ts';
import { runInSlices } from '../../util/sliced-work.ts';
import { isMapping } from '../../util/is-mapping.ts';
import { DEFAULT_HEALTH, parseHealth, type HealthSettings } from './health-config.ts';

export interface DiscoveryConfig {
  /** One result per networkTopologyDiscovery entry, in document order. */
  readonly entries: readonly EntryResult[];
  /**
   * The document's top-level keys, in order (a fragment of the docs shows here as `config` or `networkTopologyTypes`).
   */
  readonly topLevelKeys: readonly string[];
  /** The documents after the first (`---` then a Secret), which Go's yaml.v2 ignores too: `line N: kind name`. */
  readonly ignoredDocuments: readonly string[];
  /** The top-level `health` mapping: which HyperNode conditions are kept (docs/health.md). */
  readonly health: HealthSettings;
  /**
   * The first wanted entry of each source, in document order (Go GetDiscoveryConfig), so every reader finds a
   * source's entry without a scan of all entries.
   */
  readonly bySource: ReadonlyMap<string, EntryResult>;
}

/** An entry counts as wanted when it is enabled, or broken without saying `enabled: false`. */
const wanted = (r: EntryResult) => r.enabled;

export const EMPTY_CONFIG: DiscoveryConfig = Object.freeze({
  entries: Object.freeze([]),
  bySource: new Map(),
  topLevelKeys: Object.freeze([]),
  ignoredDocuments: Object.freeze([]),
  health: DEFAULT_HEALTH,
});

/**
 * What the discovery document may build. A configuration of every source with a few hundred switches or types holds
 * a few thousand values and nests under 10 levels; composing YAML costs about 15 µs a value on the thread that
 * answers the probes, so 20,000 values take about 0.3 s, and measuring the largest text the API server stores (1 MiB)
 * about as long. Past the bounds the document is refused before it is composed (bounded-yaml.ts), as unparsable.
 */
export const CONFIG_BOUNDS: ParseBounds = { maxDepth: 64, maxValues: 20_000 };

/**
 * Parses the YAML text (YAML 1.1 scalars, as Go's yaml.v2). Throws
 * `failed to parse config: line L, column C: …`. As yaml.v2's Unmarshal, the
 * first document is the configuration and the ones after it are ignored
 * (named in ignoredDocuments, for a warning).
 */
export function parseConfig(text: string): DiscoveryConfig {
  try {
    checkYamlBounds(text, CONFIG_BOUNDS, 'the document');
  } catch (err) {
    throw wrapError('failed to parse config', err);
  }
  return parseMeasured(text);
}

/** parseConfig once the text was measured within CONFIG_BOUNDS. */
function parseMeasured(text: string): DiscoveryConfig {
  const lines = new LineCounter();
  // logLevel 'error': a key that is a collection (`[a]: b`) would otherwise print a Node.js
  // process warning about stringifying it; the key is reported as unknown like any other.
  const docs = parseAllDocuments(text, { version: '1.1', lineCounter: lines, logLevel: 'error' });
  const all = Array.isArray(docs) ? docs : [];
  for (const doc of all) {
    const error = doc.errors[0];
    if (error) throw new Error(`failed to parse config: ${describeSyntaxError(error) ?? 'not YAML'}`, { cause: error });
  }
  const [first, ...rest] = all;
  const ignoredDocuments = Object.freeze(
    rest.filter((d) => d.contents !== null).map((d) => describeDocument(d, lines)),
  );
  const doc = first === undefined ? undefined : toJs(first);
  if (doc === null || doc === undefined)
    return Object.freeze({ ...EMPTY_CONFIG, ignoredDocuments, bySource: new Map() });
  if (!isMapping(doc)) {
    // The docs show most sources as a list entry (`- source: label`); pasted as the whole file, it needs its key.
    const entryList = Array.isArray(doc) && doc.length > 0 && doc.every((e) => isMapping(e) && 'source' in e);
    throw new Error(
      entryList
        ? `failed to parse config: the document is a list of ${doc.length} source entries, not a configuration: put the list under the top-level key ${DISCOVERY_KEY} (a line "${DISCOVERY_KEY}:" above it, the entries indented)`
        : `failed to parse config: the document must be a mapping with a ${DISCOVERY_KEY} list`,
    );
  }
  const topLevelKeys = Object.freeze(Object.keys(doc));
  const health = parseHealth(doc.health);
  const list = doc[DISCOVERY_KEY];
  if (list === undefined || list === null)
    return Object.freeze({ entries: Object.freeze([]), topLevelKeys, ignoredDocuments, health, bySource: new Map() });
  if (!Array.isArray(list)) throw new Error(`failed to parse config: ${DISCOVERY_KEY} must be a list of sources`);
  const entryLines = entryLineNumbers(first!, lines);
  const entries = refuseDuplicates(list.map((raw, i) => parseEntry(raw, i, entryLines[i])));
  const bySource = new Map<string, EntryResult>();
  for (const r of entries) if (wanted(r) && !bySource.has(r.source)) bySource.set(r.source, r);
  return Object.freeze({ entries: Object.freeze(entries), topLevelKeys, ignoredDocuments, health, bySource });
}

/**
 * The document's value. Building it can still fail after a clean parse (an
 * alias whose anchor is never set, `*a`): that fails the load like any other
 * YAML error instead of escaping as a bare ReferenceError.
 */
function toJs(doc: Document): unknown {
  try {
    return doc.toJS();
  } catch (err) {
    throw wrapError('failed to parse config', err);
  }
}

/** The 1-based line each networkTopologyDiscovery entry starts on. */
function entryLineNumbers(doc: Document, lines: LineCounter): number[] {
  const list = isMap(doc.contents) ? doc.contents.get(DISCOVERY_KEY, true) : undefined;
  if (!isSeq(list)) return [];
  return list.items.map((item) => {
    const offset = (item as { range?: [number, number, number] }).range?.[0];
    return offset === undefined ? 0 : lines.linePos(offset).line;
  });
}

/** `line N: Secret ufm-credentials` for a document the configuration does not use. */
function describeDocument(doc: Document, lines: LineCounter): string {
  let value: unknown;
  try {
    value = doc.toJS();
  } catch {
    value = undefined; // not readable as a value: named by its line only
  }
  const offset = doc.contents?.range?.[0] ?? 0;
  const meta = isMapping(value) && isMapping(value.metadata) ? value.metadata : {};
  const what =
    isMapping(value) && typeof value.kind === 'string'
      ? `${value.kind}${typeof meta.name === 'string' ? ` ${meta.name}` : ''}`
      : 'a YAML document';
  return `line ${lines.linePos(offset).line}: ${what}`;
}

/** Duplicate entries named in one message: a document of 30,000 copies must not make 30,000 messages of 30,000 names. */
const DUPLICATES_NAMED = 3;

/**
 * Go reads the first enabled entry of a source and drops the others without
 * a word; two entries of one source are more likely a mistake (two graph
 * fabrics meant as one) than a wish. Every wanted entry of such a source fails,
 * naming the first few of them, so the source stops (its HyperNodes kept) until one
 * entry is left (docs/configuration.md, "What happens with bad input"). Linear
 * in the entries: each source's list of duplicates is named once.
 */
function refuseDuplicates(entries: EntryResult[]): EntryResult[] {
  const bySource = new Map<string, EntryResult[]>();
  for (const r of entries) {
    if (!r.enabled) continue;
    const same = bySource.get(r.source);
    if (same) same.push(r);
    else bySource.set(r.source, [r]);
  }
  const named = new Map<string, string>();
  const namedOnce = (source: string, same: readonly EntryResult[]): string => {
    let text = named.get(source);
    if (text === undefined) named.set(source, (text = firstFew(same.map(entryLocation), DUPLICATES_NAMED, ' and ')));
    return text;
  };
  return entries.map((r) => {
    const same = bySource.get(r.source) ?? [];
    // A broken entry keeps its own, more precise error.
    if (!r.enabled || same.length < 2 || 'error' in r) return r;
    const error = `${entryLocation(r)}: source "${r.source}" has ${same.length} enabled entries, ${namedOnce(r.source, same)}; keep one (merge their config, or set enabled: false on the others)`;
    return Object.freeze({
      index: r.index,
      source: r.source,
      enabled: true,
      ...(r.line ? { line: r.line } : {}),
      error,
      unknownKeys: r.unknownKeys,
    });
  });
}

/**
 * Logs what the controller ignores in the configuration: unknown keys of an
 * entry (typos such as `enable`) and the documents after the first. The
 * controller and the `render` and `plan` subcommands log the same lines.
 */
export function warnConfigProblems(config: DiscoveryConfig, logger: Logger): void {
  for (const r of config.entries) warnUnknownKeys(logger, entryLocation(r), r.unknownKeys, ENTRY_KEYS);
  if (config.ignoredDocuments.length > 0) {
    logger.warn(
      'Ignoring the documents after the first in the discovery configuration, as Go does; only the first is read',
      { documents: config.ignoredDocuments },
    );
  }
}

/**
 * Reads the ConfigMap from the informer cache and parses it, measuring it first in slices (sliced-work.ts) so the
 * probes are answered meanwhile. Throws an ApiError NotFound (`configmap "<name>" not found`) when it does not exist.
 */
export async function loadConfig(
  configMaps: Lister<ConfigMap>,
  where: ConfigMapLocation,
  logger: Logger,
): Promise<DiscoveryConfig> {
  logger.info('Loading config from ConfigMap', { namespace: where.namespace, name: where.name });
  const cm = configMaps.get(`${where.namespace}/${where.name}`);
  if (!cm) throw new ApiError(`configmap "${where.name}" not found`, 404, 'NotFound');
  const text = cm.data?.[where.key];
  if (text === undefined) throw new Error(`config key not found in ConfigMap: ${where.key}`);
  let config = lastParsed?.text === text ? lastParsed.config : undefined;
  if (config === undefined) {
    try {
      await runInSlices(checkYamlBoundsSteps(text, CONFIG_BOUNDS, 'the document'));
    } catch (err) {
      throw wrapError('failed to parse config', err);
    }
    config = parseMeasured(text);
  }
  lastParsed = { text, config };
  warnConfigProblems(config, logger);
  return config;
}

/**
 * The last document loaded and its configuration (pure and frozen, so safe to share): the manager loads once per
 * ConfigMap event and once per retry of each failing source, and a document of thousands of broken entries must not
 * be parsed again for each of them.
 */
let lastParsed: { readonly text: string; readonly config: DiscoveryConfig } | undefined;

/** Sources of the wanted entries, in document order, duplicates kept (Go GetEnabledSources). */
export function enabledSources(config: DiscoveryConfig): string[] {
  return config.entries.filter(wanted).map((r) => r.source);
}

/**
 * The first wanted entry for `source` (Go GetDiscoveryConfig): either its
 * resolved entry or its error; undefined when the source is not enabled.
 */
export function sourceEntry(config: DiscoveryConfig, source: string): EntryResult | undefined {
  return config.bySource.get(source);
}

/**
 * How the exports (exports.*) see `source`: its wanted entry, 'off' when it
 * is disabled or removed (what it exported goes), or 'broken' when its entry
 * fails to parse (what it exported stays as it is).
 */
export function exportingEntry(config: DiscoveryConfig, source: string): DiscoveryEntry | 'off' | 'broken' {
  const result = sourceEntry(config, source);
  if (!result) return 'off';
  return 'entry' in result ? result.entry : 'broken';
}

/** Narrowing helper: the entry, or undefined for a broken result. */
export function entryOf(result: EntryResult | undefined): DiscoveryEntry | undefined {
  return result && 'entry' in result ? result.entry : undefined;
}
