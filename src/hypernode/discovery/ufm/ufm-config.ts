// The ufm entry's `config` (docs/configuration.md, `ufm`), decoded once into a
// frozen value: legacy mode with Volcano's one endpoint, or fabric mode with
// one or several fabrics through the decoder every fabric source shares
// (fabric/fabric-config.ts). Volcano's keys keep Go's leniency: an unknown
// key is warned about (ufm-discoverer.ts), not refused. An endpoint that
// leads to a loopback, link-local or metadata address the operator did not
// allow is refused (remote/allowed-addresses.ts), as the graph source's URL is.

import type { DiscoveryEntry } from '../../model/contracts.ts';
import { AUTH_SCHEMES, type AuthScheme } from '../remote/credentials.ts';
import type { SecretRef } from '../remote/secret-grant.ts';
import { fabricsOf, hostsAndNvlink, type FabricListForm } from '../fabric/fabric-config.ts';
import type { HostMapping } from '../fabric/host-mapping.ts';
import { NVLINK_KEY, type NvlinkConfig } from '../fabric/nvlink-config.ts';
import { UrlAddressPolicy } from '../remote/allowed-addresses.ts';
import { DEFAULT_INPUT_POLICY, type InputPolicy } from '../../model/input-policy.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

export type UfmMode = 'legacy' | 'fabric';
export const DEFAULT_FABRIC_NAME = 'ufm';
/** The keys of the ufm source's `config`; anything else is a typo worth naming. */
export const CONFIG_KEYS = [
  'endpoint',
  'insecureSkipVerify',
  'mode',
  'auth',
  'fabric',
  'fabrics',
  'hostMapping',
  NVLINK_KEY,
];
const FABRIC_KEYS = ['name', 'endpoint', 'auth', 'insecureSkipVerify', 'secretRef'];
const SOURCE = 'ufm source';
const FABRIC_LIST: FabricListForm = {
  source: SOURCE,
  defaultName: DEFAULT_FABRIC_NAME,
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
  if (!AUTH_SCHEMES.includes(raw as AuthScheme))
    throw new Error(`ufm source: ${where} must be one of ${AUTH_SCHEMES.join(', ')}, got ${quoteInput(raw)}`);
  return raw as AuthScheme;
}

/** `endpoint` as the base of every URL: the scheme defaults to https and trailing slashes go (Go's URL building). */
export function endpointBase(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.startsWith('http://') || base.startsWith('https://') ? base : `https://${base}`;
}

function endpointOf(raw: unknown, where: string, typo: string, addresses: UrlAddressPolicy): string {
  if (typeof raw !== 'string') {
    throw new Error(
      `ufm source: ${where} must be a string with the UFM address (e.g. "https://ufm.example.com"), got ${quoteInput(raw)}${typo}`,
    );
  }
  // An endpoint that is no URL fails at the first request, with Go's text; one that leads where the operator did not
  // allow is refused now.
  let host: string | undefined;
  try {
    host = raw === '' ? undefined : new URL(endpointBase(raw)).hostname;
  } catch {
    host = undefined;
  }
  const refused = host === undefined ? undefined : addresses.refusedHost(host);
  if (refused) throw new Error(`ufm source: ${where} is refused: ${refused}`);
  return raw;
}

/**
 * Validates the entry's config; `unknown` are the top-level keys that are not CONFIG_KEYS (named in the endpoint
 * error).
 */
export function parseUfmConfig(
  entry: DiscoveryEntry,
  unknown: readonly string[],
  policy: InputPolicy = DEFAULT_INPUT_POLICY,
): UfmConfig {
  const c = entry.config;
  const addresses = new UrlAddressPolicy(policy.urlCidrs);
  const mode = c.mode ?? 'legacy';
  if (mode !== 'legacy' && mode !== 'fabric')
    throw new Error(`ufm source: config.mode must be legacy or fabric, got ${quoteInput(mode)}`);
  const defaultAuth = auth(c.auth, 'config.auth', 'basic');
  const typo =
    unknown.length > 0 ? ` (the config has ${unknown.map((k) => quoteInput(k)).join(', ')}; misspelled?)` : '';
  const { hostMapping, nvlink } = hostsAndNvlink(c, SOURCE);
  if (mode === 'legacy') {
    for (const key of ['fabrics', 'fabric', 'hostMapping']) {
      if (c[key] !== undefined)
        throw new Error(
          `ufm source: config.${key} needs config.mode: fabric (legacy mode reads one endpoint and builds Volcano's leaf-hn-N/spine-hn)`,
        );
    }
  }
  const fabrics = fabricsOf(entry, FABRIC_LIST, ({ name, raw: f, where, listed, secretRef }) => {
    // A fabric of the list falls back on the top-level auth and insecureSkipVerify.
    const skip = f.insecureSkipVerify ?? c.insecureSkipVerify;
    return Object.freeze({
      name,
      endpoint: endpointOf(f.endpoint, `${where}.endpoint`, listed ? '' : typo, addresses),
      auth: auth(f.auth, `${where}.auth`, defaultAuth),
      insecureSkipVerify: skip === true,
      skipVerifyRaw: skip,
      secretRef,
    });
  });
  return Object.freeze({ mode, fabrics: Object.freeze(fabrics), hostMapping, nvlink });
}
