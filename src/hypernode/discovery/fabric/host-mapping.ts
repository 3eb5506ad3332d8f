// From the names a fabric gives its hosts to Kubernetes Node names. A fabric
// names a host after what the host announces (an HCA's node description, an
// LLDP system name), which often differs from the Node name: a domain suffix,
// upper case, an adapter suffix. `config.hostMapping` rewrites the name in a
// fixed order (lowercase, strip suffixes, an RE2 pattern with a template) and
// then looks it up among the Nodes, by name or by the value of a Node label,
// in an index built once per poll (HostIndex). A host that matches no Node
// never becomes a member.

import type { NodeMeta } from '../../model/hypernode-types.ts';
import { labelValue } from '../../model/label-reads.ts';
import { compileNodeNamePattern } from '../../model/node-name-pattern.ts';
import type { RE2JS } from 're2js';
import { isMapping } from '../../../util/is-mapping.ts';
import { refuseUnknownKeys } from '../../config/unknown-keys.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

/** Maps a fabric's host name to its Kubernetes Node name, or undefined when no Node matches. */
export type HostMapper = (host: string) => string | undefined;

export const HOST_MAPPING_KEYS = ['lowercase', 'stripSuffix', 'pattern', 'template', 'nodeLabel'];

export interface HostMapping {
  readonly lowercase: boolean;
  readonly stripSuffixes: readonly string[];
  readonly pattern?: RE2JS;
  /** `$1`, `${1}`, `${name}` name capture groups; `$$` is a dollar sign. */
  readonly template?: string;
  readonly nodeLabel?: string;
}

export const IDENTITY_MAPPING: HostMapping = Object.freeze({ lowercase: false, stripSuffixes: Object.freeze([]) });

/** Validates `config.hostMapping`; throws naming the field. */
export function parseHostMapping(raw: unknown): HostMapping {
  if (raw === undefined || raw === null) return IDENTITY_MAPPING;
  if (!isMapping(raw))
    throw new Error(
      'config.hostMapping must be a mapping (keys: lowercase, stripSuffix, pattern, template, nodeLabel)',
    );
  const m = raw;
  refuseUnknownKeys(m, HOST_MAPPING_KEYS, 'config.hostMapping');
  if (m.lowercase !== undefined && typeof m.lowercase !== 'boolean')
    throw new Error('config.hostMapping.lowercase must be true or false');
  const suffixes = m.stripSuffix === undefined ? [] : Array.isArray(m.stripSuffix) ? m.stripSuffix : [m.stripSuffix];
  if (!suffixes.every((s) => typeof s === 'string' && s !== ''))
    throw new Error(
      'config.hostMapping.stripSuffix must be a non-empty string or a list of them (e.g. ".cluster.example.com")',
    );
  for (const key of ['pattern', 'template', 'nodeLabel'] as const) {
    if (m[key] !== undefined && (typeof m[key] !== 'string' || m[key] === ''))
      throw new Error(`config.hostMapping.${key} must be a non-empty string`);
  }
  if ((m.pattern === undefined) !== (m.template === undefined))
    throw new Error(
      "config.hostMapping.pattern and config.hostMapping.template go together: the template builds the Node name from the pattern's groups",
    );
  let pattern: RE2JS | undefined;
  if (typeof m.pattern === 'string') {
    const compiled = compileNodeNamePattern(m.pattern);
    if (!compiled.ok)
      throw new Error(
        `config.hostMapping.pattern ${quoteInput(m.pattern)} is not a usable RE2 pattern: ${compiled.detail}`,
      );
    pattern = compiled.re;
  }
  return Object.freeze({
    lowercase: m.lowercase === true,
    stripSuffixes: Object.freeze(suffixes as string[]),
    pattern,
    template: m.template as string | undefined,
    nodeLabel: m.nodeLabel as string | undefined,
  });
}

/** Expands `$1`, `${1}`, `${name}` and `$$` from a successful match. */
function expand(template: string, group: (g: number | string) => string | null): string {
  return template.replace(/\$(\$|\d+|\{(\w+)\})/g, (_all, token: string, braced: string | undefined) => {
    if (token === '$') return '$';
    const ref = braced ?? token;
    return group(/^\d+$/.test(ref) ? Number(ref) : ref) ?? '';
  });
}

/**
 * The rewritten host name, before the Node lookup. A pattern that does not match the whole name leaves it unchanged.
 */
export function rewriteHost(mapping: HostMapping, host: string): string {
  let name = mapping.lowercase ? host.toLowerCase() : host;
  for (const suffix of mapping.stripSuffixes) {
    if (name.endsWith(suffix) && name.length > suffix.length) {
      name = name.slice(0, -suffix.length);
      break;
    }
  }
  if (mapping.pattern && mapping.template !== undefined) {
    const m = mapping.pattern.matcher(name);
    if (m.matches()) {
      name = expand(mapping.template, (g) => {
        try {
          return m.group(g as never);
        } catch {
          return null;
        }
      });
    }
  }
  return name;
}

/**
 * The Nodes of one poll as a fabric source asks about them, built once over
 * one Node list and handed to every fabric of the poll, so a 100,000-Node
 * cluster is indexed once per poll, not once per fabric and question.
 */
export interface HostIndex {
  /** A fabric's host name → its Node through config.hostMapping, or undefined. */
  readonly mapHost: HostMapper;
  /** Whether a Node of this name exists: for names a source resolved itself (hostMacs, hostGuids). */
  readonly isNode: (name: string) => boolean;
}

/** The index over `nodes`; with `nodeLabel`, a rewritten host name is looked up among that label's values. */
export function hostIndex(mapping: HostMapping, nodes: readonly NodeMeta[]): HostIndex {
  const byKey = new Map<string, string>();
  const names = new Set<string>();
  for (const n of nodes) {
    names.add(n.metadata.name);
    const key = mapping.nodeLabel === undefined ? n.metadata.name : labelValue(n.metadata.labels, mapping.nodeLabel);
    if (key !== undefined && !byKey.has(key)) byKey.set(key, n.metadata.name);
  }
  return { mapHost: (host) => byKey.get(rewriteHost(mapping, host)), isNode: (name) => names.has(name) };
}
