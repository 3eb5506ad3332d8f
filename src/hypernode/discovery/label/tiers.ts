// Decoding of the label source's `config` into per-type tier lists
// (04-discovery §4.1). Mirrors the mapstructure decoding and the checks in
// pkg/controllers/hypernode/discovery/label/label.go: weak, case-insensitive
// field names, a single mapping taken as a one-element list, 20-byte type
// names, no duplicate labels; tier i+1 is the i-th label from the end,
// skipping the last (hostname) entry.

import type { Logger } from '../../../log.ts';
import { cleanTypeName, isDNS1123Subdomain } from './naming.ts';
import { compareBytes } from '../../api/builders.ts';

export const MAX_TYPE_NAME_BYTES = 20;

/** One topology type: its name and its label keys, tier 1 first. */
export interface TopologyType {
  readonly name: string;
  readonly tiers: readonly string[];
}

const isMapping = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** mapstructure's case-insensitive field lookup. */
function field(obj: Record<string, unknown>, name: string): unknown {
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

function decodeLabels(raw: unknown, typeName: string): string[] {
  if (raw === undefined || raw === null) return [];
  const items = isMapping(raw) ? [raw] : raw;
  if (!Array.isArray(items)) throw new Error(`networkTopologyTypes.${typeName}: expected a list of {nodeLabel: <key>}`);
  return items.map((item, i) => {
    const where = `networkTopologyTypes.${typeName}[${i}]`;
    if (item === null || item === undefined) return '';
    if (!isMapping(item)) throw new Error(`${where}: expected a mapping {nodeLabel: <key>}, got ${JSON.stringify(item)}`);
    return weakString(field(item, 'nodeLabel'), `${where}.nodeLabel`);
  });
}

/** Raw type name → label list, or an error when the shape cannot be decoded. */
function decodeTypes(config: Readonly<Record<string, unknown>>): Map<string, string[]> {
  const raw = field(config as Record<string, unknown>, 'networkTopologyTypes');
  const out = new Map<string, string[]>();
  if (raw === undefined || raw === null) return out;
  if (!isMapping(raw)) throw new Error('networkTopologyTypes: expected a mapping of type name to label list');
  for (const [name, labels] of Object.entries(raw)) out.set(name, decodeLabels(labels, name));
  return out;
}

/**
 * The configured topology types, sorted by name so that runs are
 * deterministic (Go iterates a map). Rejected types are logged and skipped;
 * what remains may be empty, which is not an error.
 *
 * A `networkTopologyTypes` that cannot be decoded throws. Go logs it and runs
 * with no types, emitting empty snapshots that delete every label HyperNode;
 * we refuse to start the source instead, so a typo deletes nothing
 * (00-overview §4 item 3).
 */
export function topologyTypes(config: Readonly<Record<string, unknown>> | undefined, logger: Logger): TopologyType[] {
  let decoded: Map<string, string[]>;
  try {
    decoded = decodeTypes(config ?? {});
  } catch (err) {
    throw new Error(`Cannot get networkTopologyTypes: ${(err as Error).message}`, { cause: err });
  }
  const types: TopologyType[] = [];
  for (const name of [...decoded.keys()].sort(compareBytes)) {
    const labels = decoded.get(name)!;
    if (new TextEncoder().encode(name).length > MAX_TYPE_NAME_BYTES) {
      logger.error(`The length of topologyTypeName exceeds ${MAX_TYPE_NAME_BYTES}. topologyTypeName is ${name}`);
      continue;
    }
    if (new Set(labels).size !== labels.length) {
      logger.error('The configMap format is incorrect, there are duplicate labels', { topologyTypeName: name, labels });
      continue;
    }
    // Our addition: a type whose cleaned name cannot form a valid object name
    // (e.g. "topo." → "hypernode-topo.-tier1-…") is reported, never sent.
    const sample = `hypernode-${cleanTypeName(name)}-tier1-bbbbb`;
    if (!isDNS1123Subdomain(sample)) {
      logger.error('The topologyTypeName yields HyperNode names that are not valid DNS-1123 subdomains; rename the type', {
        topologyTypeName: name,
        example: sample,
      });
      continue;
    }
    types.push(Object.freeze({ name, tiers: Object.freeze(labels.slice(0, -1).reverse()) }));
  }
  return types;
}
