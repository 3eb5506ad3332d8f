// The list form of `networkTopologyTypes` (Volcano's released format): a
// type is a list of `{nodeLabel: <key>}`, top first, the hostname last.
// Decoded as Volcano's controller does (mapstructure: weak, case-insensitive
// field names, a single mapping taken as a one-element list), with the checks
// of pkg/controllers/hypernode/discovery/label/label.go (20-byte type names,
// no duplicate labels) and ours (a missing nodeLabel, too few labels, a name
// that cannot form an object name).

import type { Logger } from '../../../../log.ts';
import { isDNS1123Subdomain } from '../../../../kube/name-validation.ts';
import { isMapping } from '../../../../util/is-mapping.ts';
import { unknownKeys, warnUnknownKeys } from '../../../config/unknown-keys.ts';
import { cleanTypeName } from '../name-book.ts';
import { quoteInput } from '../../../../util/input-fragment.ts';

export const MAX_TYPE_NAME_BYTES = 20;

/** mapstructure's case-insensitive field lookup. */
export function field(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const lower = name.toLowerCase();
  const key = Object.keys(obj).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : obj[key];
}

/** mapstructure's weak conversion of a scalar into a string. */
function weakString(x: unknown, where: string): string {
  if (x === undefined || x === null) return '';
  if (typeof x === 'string') return x;
  if (typeof x === 'number') return String(x);
  if (typeof x === 'boolean') return x ? '1' : '0';
  throw new Error(`${where}: expected a string, got ${Array.isArray(x) ? 'a list' : 'a mapping'}`);
}

/** The keys a list item may have; anything else is a typo worth naming. */
const ITEM_KEYS = ['nodeLabel'];

/** A list type's `nodeLabel`s as written, top first; throws when the shape is not a list of mappings. */
export function decodeLabels(raw: unknown, typeName: string, logger: Logger): string[] {
  if (raw === undefined || raw === null) return [];
  const items = isMapping(raw) ? [raw] : raw;
  if (!Array.isArray(items)) throw new Error(`networkTopologyTypes.${typeName}: expected a list of {nodeLabel: <key>}`);
  return items.map((item, i) => {
    const where = `networkTopologyTypes.${typeName}[${i}]`;
    if (item === null || item === undefined) return '';
    if (!isMapping(item)) throw new Error(`${where}: expected a mapping {nodeLabel: <key>}, got ${quoteInput(item)}`);
    warnUnknownKeys(logger, where, unknownKeys(item, ITEM_KEYS, { ignoreCase: true }), ITEM_KEYS);
    return weakString(field(item, 'nodeLabel'), `${where}.nodeLabel`);
  });
}

/** Why a decoded type cannot be used, or undefined when it can. Go checks only the first two. */
export function listTypeRejection(name: string, labels: readonly string[]): string | undefined {
  if (new TextEncoder().encode(name).length > MAX_TYPE_NAME_BYTES) {
    return `The length of topologyTypeName exceeds ${MAX_TYPE_NAME_BYTES}. topologyTypeName is ${name}`;
  }
  // A tier whose label key is empty matches no Node: `nodeLabel` is missing, misspelled or null.
  const empty = labels.indexOf('');
  if (empty >= 0) return `networkTopologyTypes.${name}[${empty}]: nodeLabel is missing or empty`;
  if (new Set(labels).size !== labels.length)
    return `The configMap format is incorrect, there are duplicate labels in topologyTypeName ${name}`;
  // The last label is the hostname and makes no tier; one label alone groups nothing.
  if (labels.length < 2)
    return `networkTopologyTypes.${name}: needs the tier labels followed by the hostname label, got ${labels.length} label(s)`;
  // A type whose cleaned name cannot form a valid object name (e.g. "topo." →
  // "hypernode-topo.-tier1-…") would only produce failing creates.
  const sample = `hypernode-${cleanTypeName(name)}-tier1-bbbbb`;
  if (!isDNS1123Subdomain(sample))
    return `The topologyTypeName ${name} yields HyperNode names that are not valid DNS-1123 subdomains; rename the type (e.g. ${sample})`;
  return undefined;
}
