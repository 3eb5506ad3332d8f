// The `config` of a ufm entry, validated once into a frozen value. Two modes:
// `legacy` (the default) is Volcano's output byte for byte from one endpoint;
// `fabric` builds each fabric's whole tree and may name several endpoints:
//
//   config:
//     mode: fabric
//     auth: token                     # default for every fabric; basic is the default
//     hostMapping: {lowercase: true}  # UFM host names → Node names (host-mapping.ts)
//     fabrics:
//       - {name: pod-a, endpoint: https://ufm-a.example.com}
//       - {name: pod-b, endpoint: https://ufm-b.example.com, secretRef: {name: ufm-b}}
//
// A single fabric may instead be written as `endpoint` (+ optional `fabric`,
// its name, default "ufm"). Fabric names are DNS labels: they prefix the
// HyperNode names and are the value of the fabric label, so one ufm source
// owns every fabric's HyperNodes and each fabric's share stays identifiable.
// `nvlink` (fabric/nvlink-config.ts) puts NVLink domains below the leaf
// groups in both modes.

import type { DiscoveryEntry } from '../../model/contracts.ts';
import { AUTH_SCHEMES, type AuthScheme, type SecretRef } from '../remote/credentials.ts';
import { fabricList, singleFabricName, type FabricListForm } from '../fabric/fabric-config.ts';
import { parseHostMapping, type HostMapping } from '../fabric/host-mapping.ts';
import { NVLINK_KEY, parseNvlinkConfig, type NvlinkConfig } from '../fabric/nvlink-config.ts';

export type UfmMode = 'legacy' | 'fabric';
export const DEFAULT_FABRIC_NAME = 'ufm';
/** The keys of the ufm source's `config`; anything else is a typo worth naming. */
export const CONFIG_KEYS = ['endpoint', 'insecureSkipVerify', 'mode', 'auth', 'fabric', 'fabrics', 'hostMapping', NVLINK_KEY];
const FABRIC_KEYS = ['name', 'endpoint', 'auth', 'insecureSkipVerify', 'secretRef'];
const SOURCE = 'ufm source';
const FABRIC_LIST: FabricListForm = {
  source: SOURCE,
  singleKeys: ['endpoint', 'fabric'],
  singleKeyNamed: 'endpoint',
  itemKeys: FABRIC_KEYS,
  itemShape: '{name, endpoint}',
  itemMappingHint: ' with name and endpoint',
};

export interface FabricEndpoint {
  readonly name: string;
  readonly endpoint: string;
  readonly auth: AuthScheme;
  /** undefined: insecureSkipVerify was not a YAML boolean (verification stays on, with a warning). */
  readonly insecureSkipVerify: boolean;
  readonly skipVerifyRaw: unknown;
  readonly secretRef?: SecretRef;
}

export interface UfmConfig {
  readonly mode: UfmMode;
  readonly fabrics: readonly FabricEndpoint[];
  readonly hostMapping: HostMapping;
  /** The NVLink tier below the leaf groups; undefined without one. */
  readonly nvlink?: NvlinkConfig;
}

function auth(raw: unknown, where: string, fallback: AuthScheme): AuthScheme {
  if (raw === undefined || raw === null) return fallback;
  if (!AUTH_SCHEMES.includes(raw as AuthScheme)) throw new Error(`ufm source: ${where} must be one of ${AUTH_SCHEMES.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as AuthScheme;
}

function endpointOf(raw: unknown, where: string, typo: string): string {
  if (typeof raw !== 'string') {
    throw new Error(
      `ufm source: ${where} must be a string with the UFM address (e.g. "https://ufm.example.com"), got ${raw === undefined ? 'nothing' : JSON.stringify(raw)}${typo}`,
    );
  }
  return raw;
}

function secretRefOf(raw: unknown, where: string, fallback: SecretRef | undefined): SecretRef | undefined {
  if (raw === undefined || raw === null) return fallback;
  const r = raw as Record<string, unknown>;
  if (typeof raw !== 'object' || typeof r.name !== 'string' || r.name === '' || (r.namespace !== undefined && typeof r.namespace !== 'string')) {
    throw new Error(`ufm source: ${where} must be {name: <secret>, namespace: <namespace>} (namespace defaults to the entry's credentials.secretRef namespace)`);
  }
  const namespace = (r.namespace as string | undefined) ?? fallback?.namespace;
  if (!namespace) throw new Error(`ufm source: ${where}.namespace is needed when the entry has no credentials.secretRef`);
  return { name: r.name, namespace };
}

/** Validates the entry's config; `unknown` are the top-level keys that are not CONFIG_KEYS (named in the endpoint error). */
export function parseUfmConfig(entry: DiscoveryEntry, unknown: readonly string[]): UfmConfig {
  const c = entry.config;
  const mode = c.mode ?? 'legacy';
  if (mode !== 'legacy' && mode !== 'fabric') throw new Error(`ufm source: config.mode must be legacy or fabric, got ${JSON.stringify(mode)}`);
  const defaultAuth = auth(c.auth, 'config.auth', 'basic');
  const entryRef = entry.credentials?.secretRef;
  const typo = unknown.length > 0 ? ` (the config has ${unknown.map((k) => JSON.stringify(k)).join(', ')}; misspelled?)` : '';
  const hostMapping = parseHostMapping(c.hostMapping);
  let nvlink: NvlinkConfig | undefined;
  try {
    nvlink = parseNvlinkConfig(c.nvlink);
  } catch (err) {
    throw new Error(`ufm source: ${(err as Error).message}`);
  }
  if (mode === 'legacy') {
    for (const key of ['fabrics', 'fabric', 'hostMapping']) {
      if (c[key] !== undefined) throw new Error(`ufm source: config.${key} needs config.mode: fabric (legacy mode reads one endpoint and builds Volcano's leaf-hn-N/spine-hn)`);
    }
  }
  if (c.fabrics === undefined || c.fabrics === null) {
    const name = singleFabricName(c, DEFAULT_FABRIC_NAME, SOURCE);
    const fabric = {
      name,
      endpoint: endpointOf(c.endpoint, 'config.endpoint', typo),
      auth: defaultAuth,
      insecureSkipVerify: c.insecureSkipVerify === true,
      skipVerifyRaw: c.insecureSkipVerify,
      secretRef: entryRef,
    };
    return Object.freeze({ mode, fabrics: Object.freeze([Object.freeze(fabric)]), hostMapping, nvlink });
  }
  const fabrics = fabricList(c, FABRIC_LIST, ({ name, raw: f, where }) => {
    const skip = f.insecureSkipVerify ?? c.insecureSkipVerify;
    return Object.freeze({
      name,
      endpoint: endpointOf(f.endpoint, `${where}.endpoint`, ''),
      auth: auth(f.auth, `${where}.auth`, defaultAuth),
      insecureSkipVerify: skip === true,
      skipVerifyRaw: skip,
      secretRef: secretRefOf(f.secretRef, `${where}.secretRef`, entryRef),
    });
  });
  return Object.freeze({ mode, fabrics: Object.freeze(fabrics), hostMapping, nvlink });
}
