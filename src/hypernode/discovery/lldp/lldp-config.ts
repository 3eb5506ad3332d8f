// The lldp entry's `config` (docs/configuration.md, `lldp`), decoded once into
// a frozen value: SNMP settings and limits, the crawl, how hosts are
// identified, and the fabrics through the decoder every fabric source shares
// (fabric/fabric-config.ts). A source of ours with no Go configuration to stay
// compatible with, so an unknown key is an error.

import type { RE2JS } from 're2js';
import type { DiscoveryEntry } from '../../model/contracts.ts';
import { compileNodeNamePattern } from '../../model/node-name-pattern.ts';
import type { FabricListForm } from '../fabric/fabric-config.ts';
import {
  DEFAULT_MIN_SHARED_HOSTS,
  fabricsOf,
  hostsAndNvlink,
  positiveDuration,
  wholeNumber,
} from '../fabric/fabric-config.ts';
import type { HostMapping } from '../fabric/host-mapping.ts';
import { NVLINK_KEY, type NvlinkConfig } from '../fabric/nvlink-config.ts';
import type { SecretRef } from '../remote/secret-grant.ts';
import { parseNetwork, type IpNetwork } from '../../../util/ip-networks.ts';
import { parseHostMacs, type HostMacs } from './host-macs.ts';
import { SNMP_VERSIONS, type SnmpVersion } from './snmp-credentials.ts';
import type { SwitchAddress, WalkLimits } from './snmp-walker.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { unknownKeysProblem } from '../../config/unknown-keys.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

export const DEFAULT_FABRIC_NAME = 'lldp';
export const SNMP_PORT = 161;
export const CONFIG_KEYS = [
  'snmp',
  'staleAfter',
  'managementPorts',
  'minSharedHosts',
  'hostMapping',
  'hostMacs',
  'fabric',
  'switches',
  'seeds',
  'maxSwitches',
  'allow',
  'fabrics',
  NVLINK_KEY,
];
const SNMP_KEYS = ['version', 'timeout', 'retries', 'maxRepetitions', 'maxVarbinds', 'concurrency'];
const FABRIC_KEYS = ['name', 'switches', 'seeds', 'maxSwitches', 'allow', 'secretRef'];
/** Switches a crawl from seeds may walk per fabric before the fabric fails (raise it with maxSwitches). */
export const DEFAULT_MAX_SWITCHES = 2_048;

export const DEFAULT_SNMP_TIMEOUT_MS = 2_000;
export const DEFAULT_SNMP_RETRIES = 1;
/**
 * Varbinds asked for per GETBULK: a 160-port leaf's ~1,600 in 16 round trips; an answer is
 * ~4 KB, and an agent whose message size is smaller returns fewer (RFC 3416 §4.2.3). Every
 * answer costs the client a request, a timer and a message to decode besides its varbinds:
 * walking scripts/bench-lldp.ts' 1,280 switches under the executable's V8 flags took
 * 9.5-10.3 s of CPU at 50, 8.9 at 100 and 7.7-8.4 at 200 (a loaded 2-core machine, so
 * rough); 100 keeps most of that gain while an answer still fits a jumbo frame.
 */
export const DEFAULT_MAX_REPETITIONS = 100;
/** A 128-port switch's LLDP-MIB is ~5,000 varbinds; 20× that is garbage or a loop. */
export const DEFAULT_MAX_VARBINDS = 100_000;
/** Switches walked at once: 1,024 switches at ~50 ms each poll in ~2 s. */
export const DEFAULT_CONCURRENCY = 32;
/** A silent switch's last table stands in for it this long; then its fabric publishes nothing new. */
export const DEFAULT_STALE_AFTER_MS = 30 * 60_000;

/** Following neighbours' management addresses from seed switches (lldpRemManAddrTable). */
export interface LldpCrawl {
  readonly seeds: readonly SwitchAddress[];
  /** Only management addresses in these networks are walked. */
  readonly allow: readonly IpNetwork[];
  /** More switches than this fails the fabric (it keeps its HyperNodes) rather than publishing part of it. */
  readonly maxSwitches: number;
}

export interface LldpFabric {
  readonly name: string;
  /** Walked every poll; with a crawl, the crawl starts from these and the seeds. */
  readonly switches: readonly SwitchAddress[];
  readonly crawl?: LldpCrawl;
  readonly secretRef?: SecretRef;
}

export interface LldpConfig {
  readonly version: SnmpVersion;
  readonly limits: WalkLimits;
  readonly concurrency: number;
  readonly staleAfterMs: number;
  readonly minSharedHosts: number;
  readonly managementPorts?: RE2JS;
  readonly hostMapping: HostMapping;
  readonly hostMacs: HostMacs;
  readonly fabrics: readonly LldpFabric[];
  readonly nvlink?: NvlinkConfig;
}

const SOURCE = 'lldp source';
/** What a config without a fabric list and without switches lacks. */
const NO_SWITCHES =
  'config needs switches (a list of "host" or "host:port"), seeds (to crawl from), or fabrics (a list of {name, switches})';
const fail = (message: string): never => {
  throw new Error(`${SOURCE}: ${message}`);
};
const FABRIC_LIST: FabricListForm = {
  source: SOURCE,
  defaultName: DEFAULT_FABRIC_NAME,
  singleKeys: ['switches', 'fabric', 'seeds', 'allow', 'maxSwitches'],
  itemKeys: FABRIC_KEYS,
  itemShape: '{name, switches}',
};

function checkKeys(obj: Record<string, unknown>, known: readonly string[], where: string): void {
  const problem = unknownKeysProblem(obj, known, where);
  if (problem) fail(problem);
}

function mapping(raw: unknown, where: string): Record<string, unknown> {
  return isMapping(raw) ? raw : fail(`${where} must be a mapping`);
}

function positiveInt(raw: unknown, where: string, fallback: number, min = 1): number {
  return wholeNumber(raw, where, fallback, fail, min);
}

function duration(raw: unknown, where: string, fallback: number): number {
  return positiveDuration(raw, where, '2s or 30m', fail) ?? fallback;
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`. */
export function parseSwitchAddress(raw: unknown, where: string): SwitchAddress {
  if (typeof raw !== 'string' || raw.trim() === '')
    return fail(`${where} must be a switch address "host" or "host:port", got ${quoteInput(raw)}`);
  const text = raw.trim();
  const m =
    /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(text) ??
    /^([^:\s]+)(?::(\d+))?$/.exec(text) ??
    (/^[0-9a-fA-F:]+$/.test(text) ? [text, text, undefined] : null);
  if (!m)
    return fail(
      `${where} ${quoteInput(raw)} is not "host" or "host:port" (write an IPv6 address with a port as [addr]:port)`,
    );
  const port = m[2] === undefined ? SNMP_PORT : Number(m[2]);
  if (!(port >= 1 && port <= 65535)) fail(`${where} ${quoteInput(raw)} has port ${m[2]} outside 1-65535`);
  return { host: m[1]!, port };
}

function switchList(raw: unknown, where: string): SwitchAddress[] {
  if (!Array.isArray(raw) || raw.length === 0)
    return fail(`${where} must be a non-empty list of switch addresses ("host" or "host:port")`);
  const seen = new Set<string>();
  return raw.map((r, i) => {
    const a = parseSwitchAddress(r, `${where}[${i}]`);
    const key = `${a.host}:${a.port}`;
    if (seen.has(key)) fail(`${where}[${i}] ${quoteInput(r)} is listed twice`);
    seen.add(key);
    return Object.freeze(a);
  });
}

function crawlOf(f: Record<string, unknown>, where: string): LldpCrawl | undefined {
  if (f.seeds === undefined || f.seeds === null) {
    for (const key of ['allow', 'maxSwitches'])
      if (f[key] !== undefined) fail(`${where}${key} needs ${where}seeds (the crawl it bounds)`);
    return undefined;
  }
  const seeds = switchList(f.seeds, `${where}seeds`);
  if (!Array.isArray(f.allow) || f.allow.length === 0)
    fail(
      `${where}allow must list the IPv4 networks the crawl may walk (e.g. ["10.0.0.0/16"]): seeds without an allow-list could walk any management network`,
    );
  const allow = (f.allow as unknown[]).map((raw, i) => {
    const network = typeof raw === 'string' && raw.includes('/') ? parseNetwork(raw) : undefined;
    if (network?.family !== 4)
      fail(`${where}allow[${i}] must be an IPv4 network like "10.0.0.0/16", got ${quoteInput(raw)}`);
    return Object.freeze(network!);
  });
  return Object.freeze({
    seeds: Object.freeze(seeds),
    allow: Object.freeze(allow),
    maxSwitches: positiveInt(f.maxSwitches, `${where}maxSwitches`, DEFAULT_MAX_SWITCHES),
  });
}

function hostMacsOf(raw: unknown): HostMacs {
  try {
    return parseHostMacs(raw, 'config.hostMacs');
  } catch (err) {
    return fail((err as Error).message);
  }
}

export function parseLldpConfig(entry: DiscoveryEntry): LldpConfig {
  const c = entry.config;
  checkKeys(c, CONFIG_KEYS, 'config');
  const snmp = c.snmp === undefined || c.snmp === null ? {} : mapping(c.snmp, 'config.snmp');
  checkKeys(snmp, SNMP_KEYS, 'config.snmp');
  const version = snmp.version === undefined ? '2c' : String(snmp.version);
  if (!(SNMP_VERSIONS as readonly string[]).includes(version))
    fail(`config.snmp.version must be "2c" or "3" (SNMPv1 is not supported), got ${quoteInput(snmp.version)}`);
  const limits: WalkLimits = Object.freeze({
    timeoutMs: duration(snmp.timeout, 'config.snmp.timeout', DEFAULT_SNMP_TIMEOUT_MS),
    retries: positiveInt(snmp.retries, 'config.snmp.retries', DEFAULT_SNMP_RETRIES, 0),
    maxRepetitions: positiveInt(snmp.maxRepetitions, 'config.snmp.maxRepetitions', DEFAULT_MAX_REPETITIONS),
    maxVarbinds: positiveInt(snmp.maxVarbinds, 'config.snmp.maxVarbinds', DEFAULT_MAX_VARBINDS),
  });
  let managementPorts: RE2JS | undefined;
  if (c.managementPorts !== undefined && c.managementPorts !== null) {
    if (typeof c.managementPorts !== 'string' || c.managementPorts === '')
      fail('config.managementPorts must be an RE2 pattern over local port names, e.g. "^(mgmt|eth0)$"');
    const compiled = compileNodeNamePattern(c.managementPorts as string);
    if (!compiled.ok)
      fail(`config.managementPorts ${quoteInput(c.managementPorts)} is not a usable RE2 pattern: ${compiled.detail}`);
    else managementPorts = compiled.re;
  }
  const { hostMapping, nvlink } = hostsAndNvlink(c, SOURCE);
  const fabrics: LldpFabric[] = fabricsOf(entry, FABRIC_LIST, ({ name, raw: f, where, listed, secretRef }) => {
    const walksNothing = f.switches === undefined && f.seeds === undefined;
    if (walksNothing) fail(listed ? `${where} needs switches or seeds` : NO_SWITCHES);
    const switches = f.switches === undefined ? [] : switchList(f.switches, `${where}.switches`);
    return { name, switches, crawl: crawlOf(f, `${where}.`), secretRef };
  });
  for (const f of fabrics) {
    if (!f.secretRef)
      fail(
        `fabric ${f.name} has no credentials: set the entry's credentials.secretRef (a Secret with ${version === '2c' ? '"community"' : '"username", "authKey", "privKey"'})${c.fabrics ? " or the fabric's secretRef" : ''}`,
      );
  }
  return Object.freeze({
    version: version as SnmpVersion,
    limits,
    concurrency: positiveInt(snmp.concurrency, 'config.snmp.concurrency', DEFAULT_CONCURRENCY),
    staleAfterMs: duration(c.staleAfter, 'config.staleAfter', DEFAULT_STALE_AFTER_MS),
    minSharedHosts: positiveInt(c.minSharedHosts, 'config.minSharedHosts', DEFAULT_MIN_SHARED_HOSTS),
    managementPorts,
    hostMapping,
    hostMacs: hostMacsOf(c.hostMacs),
    fabrics: Object.freeze(fabrics.map((f) => Object.freeze({ ...f, switches: Object.freeze(f.switches) }))),
    nvlink,
  });
}
