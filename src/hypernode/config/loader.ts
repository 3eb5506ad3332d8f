// Loading the discovery configuration from the ConfigMap cache, and the views
// the discovery manager derives from it. Mirrors
// pkg/controllers/hypernode/config/loader.go (docs/design.md §2.4).
//
// Our rule for bad input: only a document that is not YAML, is not a mapping,
// or whose networkTopologyDiscovery is not a list fails the whole load; a bad
// field fails only its own entry (see entry.ts).

import { parse as parseYaml } from 'yaml';
import { ApiError } from '../../kube/errors.ts';
import type { Lister } from '../../kube/types.ts';
import type { Logger } from '../../log.ts';
import type { DiscoveryEntry } from '../model/contracts.ts';
import type { ConfigMap } from '../model/hypernode-types.ts';
import { ENTRY_KEYS, parseEntry, type EntryResult } from './entry.ts';
import type { ConfigMapLocation } from './location.ts';
import { warnUnknownKeys } from './unknown-keys.ts';
import { DEFAULT_HEALTH, parseHealth, type HealthSettings } from './health-config.ts';
import { errorMessage } from '../../util/error-message.ts';

export interface DiscoveryConfig {
  /** One result per networkTopologyDiscovery entry, in document order. */
  readonly entries: readonly EntryResult[];
  /** The top-level `health` mapping: which HyperNode conditions are kept (docs/health.md). */
  readonly health: HealthSettings;
}

export const EMPTY_CONFIG: DiscoveryConfig = Object.freeze({ entries: Object.freeze([]), health: DEFAULT_HEALTH });

const firstLine = (msg: string) => msg.split('\n')[0]!.trim();

/** Parses the YAML document (YAML 1.1 scalars, as Go's yaml.v2). Throws `failed to parse config: …`. */
export function parseConfig(text: string): DiscoveryConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text, { version: '1.1', prettyErrors: false });
  } catch (err) {
    throw new Error(`failed to parse config: ${firstLine(errorMessage(err))}`, { cause: err });
  }
  if (doc === null || doc === undefined) return EMPTY_CONFIG;
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new Error('failed to parse config: the document must be a mapping with a networkTopologyDiscovery list');
  }
  const list = (doc as Record<string, unknown>).networkTopologyDiscovery;
  const health = parseHealth((doc as Record<string, unknown>).health);
  if (list === undefined || list === null) return health === DEFAULT_HEALTH ? EMPTY_CONFIG : Object.freeze({ ...EMPTY_CONFIG, health });
  if (!Array.isArray(list)) throw new Error('failed to parse config: networkTopologyDiscovery must be a list of sources');
  return Object.freeze({ entries: Object.freeze(list.map(parseEntry)), health });
}

/**
 * Reads the ConfigMap from the informer cache and parses it. Throws an
 * ApiError NotFound (`configmap "<name>" not found`) when it does not exist.
 */
export function loadConfig(configMaps: Lister<ConfigMap>, where: ConfigMapLocation, logger: Logger): DiscoveryConfig {
  logger.info('Loading config from ConfigMap', { namespace: where.namespace, name: where.name });
  const cm = configMaps.get(`${where.namespace}/${where.name}`);
  if (!cm) throw new ApiError(`configmap "${where.name}" not found`, 404, 'NotFound');
  const text = cm.data?.[where.key];
  if (text === undefined) throw new Error(`config key not found in ConfigMap: ${where.key}`);
  const config = parseConfig(text);
  for (const r of config.entries) {
    const at = `networkTopologyDiscovery[${r.index}]${r.source ? ` (source "${r.source}")` : ''}`;
    warnUnknownKeys(logger, at, r.unknownKeys, ENTRY_KEYS);
  }
  return config;
}

/** An entry counts as wanted when it is enabled, or broken without saying `enabled: false`. */
const wanted = (r: EntryResult) => r.enabled;

/** Sources of the wanted entries, in document order, duplicates kept (Go GetEnabledSources). */
export function enabledSources(config: DiscoveryConfig): string[] {
  return config.entries.filter(wanted).map((r) => r.source);
}

/**
 * The first wanted entry for `source` (Go GetDiscoveryConfig): either its
 * resolved entry or its error; undefined when the source is not enabled.
 */
export function sourceEntry(config: DiscoveryConfig, source: string): EntryResult | undefined {
  return config.entries.find((r) => r.source === source && wanted(r));
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
