// The graph entry's `config` (docs/configuration.md, `graph`), decoded once
// into a frozen value: where the document is read from, the fabric it names,
// and the keys every fabric source shares (fabric/fabric-config.ts). A source
// of ours, so an unknown key is an error. A `file` passes the operator's file
// rule and a `url` the address rule (discovery/remote/) here, at load, naming
// the key and the flag; both are checked again where they are read.

import type { DiscoveryEntry } from '../../model/contracts.ts';
import {
  DEFAULT_MIN_SHARED_HOSTS_STATED_CABLING,
  configuredFabricName,
  hostsAndNvlink,
  wholeNumber,
} from '../fabric/fabric-config.ts';
import type { HostMapping } from '../fabric/host-mapping.ts';
import { NVLINK_KEY, type NvlinkConfig } from '../fabric/nvlink-config.ts';
import type { SecretRef } from '../remote/secret-grant.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { redactUrl } from '../../../util/redact-url.ts';
import { unknownKeysProblem } from '../../config/unknown-keys.ts';
import { DEFAULT_INPUT_POLICY, type InputPolicy } from '../../model/input-policy.ts';
import { checkConfiguredPath } from '../remote/allowed-files.ts';
import { UrlAddressPolicy } from '../remote/allowed-addresses.ts';
import { LOCATION_MAX_BYTES, quoteInput } from '../../../util/input-fragment.ts';

const DEFAULT_GRAPH_FABRIC = 'graph';
const GRAPH_CONFIG_KEYS = ['fabric', 'configMap', 'file', 'url', 'hostMapping', 'minSharedHosts', NVLINK_KEY];
const CONFIG_MAP_KEYS = ['namespace', 'name', 'key'];
const LOCATION_KEYS = ['configMap', 'file', 'url'] as const;

export type GraphLocation =
  | { readonly kind: 'configMap'; readonly namespace: string; readonly name: string; readonly key: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'url'; readonly url: string };

export interface GraphConfig {
  readonly fabric: string;
  readonly location: GraphLocation;
  /** The Secret with the URL's `token` (sent as a bearer token) and optional `ca.crt`. */
  readonly secretRef?: SecretRef;
  readonly hostMapping: HostMapping;
  readonly minSharedHosts: number;
  readonly nvlink?: NvlinkConfig;
}

/** Where the graph comes from, as messages name it (a URL without the credentials it may carry). */
export function describeLocation(l: GraphLocation): string {
  if (l.kind === 'configMap') return `ConfigMap ${l.namespace}/${l.name} key ${l.key}`;
  return l.kind === 'file' ? `file ${l.path}` : redactUrl(l.url);
}

/** What every message of the graph source's configuration starts with. */
const SOURCE = 'graph source';
const fail = (what: string) => new Error(`${SOURCE}: ${what}`);

function configMapOf(raw: unknown): GraphLocation {
  const want = 'config.configMap must be {namespace, name, key}: the ConfigMap and its data key holding the graph';
  if (!isMapping(raw)) throw fail(want);
  const m = raw;
  const extra = unknownKeysProblem(m, CONFIG_MAP_KEYS, 'config.configMap');
  if (extra) throw fail(extra);
  for (const k of CONFIG_MAP_KEYS)
    if (typeof m[k] !== 'string' || m[k] === '')
      throw fail(`config.configMap.${k} must be a non-empty string (${want.slice(want.indexOf(': ') + 2)})`);
  return { kind: 'configMap', namespace: m.namespace as string, name: m.name as string, key: m.key as string };
}

const quoteUrl = (raw: unknown) => quoteInput(raw, LOCATION_MAX_BYTES);

function location(c: Readonly<Record<string, unknown>>, policy: InputPolicy): GraphLocation {
  if (LOCATION_KEYS.filter((k) => c[k] !== undefined).length !== 1) {
    throw fail(
      'set exactly one of config.configMap ({namespace, name, key}), config.file (a path) or config.url (https://…) to say where the fabric graph is',
    );
  }
  if (c.configMap !== undefined) return configMapOf(c.configMap);
  if (c.file !== undefined) {
    try {
      return { kind: 'file', path: checkConfiguredPath(c.file, 'config.file', policy) };
    } catch (err) {
      throw fail((err as Error).message);
    }
  }
  let url: URL;
  try {
    url = new URL(String(c.url));
  } catch {
    throw fail(`config.url ${quoteUrl(c.url)} is not a URL (want https://host/path)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fail(`config.url ${quoteUrl(c.url)} must be an https:// (or http://) URL`);
  const refused = new UrlAddressPolicy(policy.urlCidrs).refusedHost(url.hostname);
  if (refused) throw fail(`config.url is refused: ${refused}`);
  return { kind: 'url', url: url.href };
}

/** Validates the entry's config within what the operator allows; throws naming the field. */
export function parseGraphConfig(entry: DiscoveryEntry, policy: InputPolicy = DEFAULT_INPUT_POLICY): GraphConfig {
  const c = entry.config;
  const unknown = unknownKeysProblem(c, GRAPH_CONFIG_KEYS, 'config');
  if (unknown) throw fail(unknown);
  const fabric =
    c.fabric === undefined || c.fabric === null
      ? DEFAULT_GRAPH_FABRIC
      : configuredFabricName(c.fabric, 'config.fabric', SOURCE);
  const minShared = wholeNumber(
    c.minSharedHosts,
    'config.minSharedHosts',
    DEFAULT_MIN_SHARED_HOSTS_STATED_CABLING,
    (message) => {
      throw fail(message);
    },
  );
  const where = location(c, policy);
  const secretRef = entry.credentials?.secretRef;
  if (secretRef && where.kind !== 'url')
    throw fail(`credentials.secretRef is for config.url (a token and a CA); config.${where.kind} needs none`);
  const { hostMapping, nvlink } = hostsAndNvlink(c, SOURCE);
  return Object.freeze({ fabric, location: where, secretRef, hostMapping, minSharedHosts: minShared, nvlink });
}
