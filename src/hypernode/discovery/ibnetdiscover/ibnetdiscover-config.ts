// The ibnetdiscover entry's `config` (docs/configuration.md, `ibnetdiscover`),
// decoded once into a frozen value, the fabrics through the decoder every
// fabric source shares (fabric/fabric-config.ts). A source of ours, so an
// unknown key is an error; and a command that asks ibnetdiscover for another
// format than the one this source reads is refused here, naming the flag,
// rather than at the first run.

import type { RE2JS } from 're2js';
import type { DiscoveryEntry } from '../../model/contracts.ts';
import { compileNodeNamePattern } from '../../model/node-name-pattern.ts';
import { unknownKeysProblem } from '../../config/unknown-keys.ts';
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
import { parseHostGuids, type HostGuids } from './host-guids.ts';
import type { NodeNames } from './ib-node-name-map.ts';

export const DEFAULT_FABRIC_NAME = 'ib';
export const DEFAULT_COMMAND: readonly string[] = Object.freeze(['ibnetdiscover']);
/** A fabric of 65,536 CAs takes ibnetdiscover well under a minute; a hung run (no SM port, a stuck MAD) ends here. */
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/**
 * 65,536 CAs and 2,048 switches print about 26 MiB (scripts/bench-ibnetdiscover.ts); more than 256 MiB is garbage or a
 * loop.
 */
export const DEFAULT_MAX_OUTPUT_MIB = 256;

export const CONFIG_KEYS = [
  'command',
  'file',
  'maxAge',
  'fabric',
  'fabrics',
  'hcas',
  'hostMapping',
  'hostGuids',
  'nodeNameMap',
  'minSharedHosts',
  'timeout',
  'maxOutputMiB',
  NVLINK_KEY,
];
const FABRIC_KEYS = ['name', 'command', 'file', 'maxAge', 'hcas'];

const SOURCE = 'ibnetdiscover source';
const FABRIC_LIST: FabricListForm = {
  source: SOURCE,
  defaultName: DEFAULT_FABRIC_NAME,
  singleKeys: ['fabric', 'command', 'file', 'maxAge'],
  itemKeys: FABRIC_KEYS,
  itemShape: '{name, command or file}',
};

/** Short options of ibnetdiscover that print another format than the default one. */
const FORMAT_FLAGS: Readonly<Record<string, string>> = {
  p: 'the ports report',
  g: 'the grouping',
  l: 'a node list',
  H: 'a node list',
  S: 'a node list',
  R: 'a node list',
};
const LONG_FORMAT_FLAGS: Readonly<Record<string, string>> = {
  '--ports': 'p',
  '--grouping': 'g',
  '--list': 'l',
  '--Hca_list': 'H',
  '--Switch_list': 'S',
  '--Router_list': 'R',
};
/** Short options that take a value (the rest of the word, or the next argument). */
const VALUE_FLAGS = new Set(['C', 'P', 't', 'y', 'o', 'z']);
/** Long options that take the next argument as their value. */
const LONG_VALUE_FLAGS = new Set([
  '--Ca',
  '--Port',
  '--timeout',
  '--m_key',
  '--outstanding_smps',
  '--config',
  '--node-name-map',
  '--cache',
  '--load-cache',
  '--diff',
  '--diffcheck',
]);

/** Where a fabric's output comes from. */
export type IbOutputSource =
  | { readonly kind: 'command'; readonly argv: readonly string[] }
  | { readonly kind: 'file'; readonly path: string; readonly maxAgeMs?: number };

export interface IbFabric {
  readonly name: string;
  readonly output: IbOutputSource;
  /** Only CAs whose device word matches count as host HCAs (undefined: every CA). */
  readonly hcas?: RE2JS;
}

export interface IbnetdiscoverConfig {
  readonly fabrics: readonly IbFabric[];
  readonly hostMapping: HostMapping;
  readonly hostGuids: HostGuids;
  /** Names standing for node descriptions, from hostGuids' lines in the node-name-map's form. */
  readonly nodeNames: NodeNames;
  /** A node-name-map file, read at every poll (ib-node-name-map.ts); hostGuids' names win over its. */
  readonly nodeNameMap?: string;
  readonly minSharedHosts: number;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly nvlink?: NvlinkConfig;
}

const fail = (message: string): never => {
  throw new Error(`${SOURCE}: ${message}`);
};

const positiveInt = (raw: unknown, where: string, fallback: number) => wholeNumber(raw, where, fallback, fail);
const duration = (raw: unknown, where: string) => positiveDuration(raw, where, '90s or 5m', fail);

/** Refuses an argument list that makes ibnetdiscover print another format, naming the flag. */
function refuseFormatFlags(argv: readonly string[], where: string): void {
  const refuse = (flag: string, letter: string) =>
    fail(
      `${where} asks for ${FORMAT_FLAGS[letter]} (${flag}); this source reads ibnetdiscover's default topology format: drop ${flag}`,
    );
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return;
    if (arg.startsWith('--')) {
      const name = arg.split('=')[0]!;
      const letter = LONG_FORMAT_FLAGS[name];
      if (letter) refuse(name, letter);
      if (LONG_VALUE_FLAGS.has(name) && !arg.includes('=')) i++;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') continue;
    // A cluster of short options, as getopt reads it: `-sp`, `-Cmlx5_0`.
    for (let j = 1; j < arg.length; j++) {
      const letter = arg[j]!;
      if (FORMAT_FLAGS[letter]) refuse(`-${letter}`, letter);
      if (VALUE_FLAGS.has(letter)) {
        if (j === arg.length - 1) i++;
        break;
      }
    }
  }
}

function commandOf(raw: unknown, where: string): readonly string[] {
  const want = `${where} must be a list of arguments, e.g. [ibnetdiscover, -C, mlx5_0, -P, "1"] (it runs without a shell)`;
  if (!Array.isArray(raw) || raw.length === 0) return fail(`${want}, got ${JSON.stringify(raw)}`);
  const argv = raw.map((a, i) => {
    // YAML reads `-P 1`'s 1 as a number; an argument is text either way.
    if (typeof a === 'number' && Number.isFinite(a)) return String(a);
    if (typeof a !== 'string' || (i === 0 && a === '')) return fail(`${want}; argument ${i} is ${JSON.stringify(a)}`);
    return a;
  });
  refuseFormatFlags(argv, where);
  return Object.freeze(argv);
}

/** The fabric's output source from its `command`, `file` and `maxAge` (keys under `prefix`). */
function outputOf(f: Readonly<Record<string, unknown>>, prefix: string): IbOutputSource {
  if (f.command !== undefined && f.file !== undefined)
    fail(`set either ${prefix}command (run ibnetdiscover) or ${prefix}file (read its saved output), not both`);
  const maxAgeMs = duration(f.maxAge, `${prefix}maxAge`);
  if (f.file === undefined || f.file === null) {
    if (maxAgeMs !== undefined) fail(`${prefix}maxAge is for ${prefix}file (how old a saved output may be)`);
    return Object.freeze({
      kind: 'command',
      argv: f.command === undefined || f.command === null ? DEFAULT_COMMAND : commandOf(f.command, `${prefix}command`),
    });
  }
  if (typeof f.file !== 'string' || !f.file.startsWith('/'))
    fail(`${prefix}file must be an absolute path, got ${JSON.stringify(f.file)}`);
  return Object.freeze({ kind: 'file', path: f.file as string, ...(maxAgeMs === undefined ? {} : { maxAgeMs }) });
}

function hcasOf(raw: unknown, where: string, fallback: RE2JS | undefined): RE2JS | undefined {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'string' || raw === '')
    return fail(`${where} must be an RE2 pattern over the HCA's device word, e.g. "^mlx5_[0-7]$"`);
  const compiled = compileNodeNamePattern(raw);
  if (!compiled.ok) return fail(`${where} ${JSON.stringify(raw)} is not a usable RE2 pattern: ${compiled.detail}`);
  return compiled.re;
}

const isAbsolutePath = (raw: unknown): raw is string => typeof raw === 'string' && raw.startsWith('/');

/** Validates the entry's config; throws naming the key. */
export function parseIbnetdiscoverConfig(entry: DiscoveryEntry): IbnetdiscoverConfig {
  const c = entry.config;
  const unknown = unknownKeysProblem(c, CONFIG_KEYS, 'config');
  if (unknown) fail(unknown);
  if (entry.credentials !== undefined)
    fail("credentials are not used: ibnetdiscover reads the fabric through the host's HCA, with no Secret");
  const hcas = hcasOf(c.hcas, 'config.hcas', undefined);
  const fabrics = fabricsOf(entry, FABRIC_LIST, ({ name, raw, where, listed }) => ({
    name,
    output: outputOf(raw, `${where}.`),
    hcas: listed ? hcasOf(raw.hcas, `${where}.hcas`, hcas) : hcas,
  }));
  const { hostMapping, nvlink } = hostsAndNvlink(c, SOURCE);
  let hostGuids: ReturnType<typeof parseHostGuids>;
  try {
    hostGuids = parseHostGuids(c.hostGuids, 'config.hostGuids');
  } catch (err) {
    return fail((err as Error).message);
  }
  if (c.nodeNameMap !== undefined && c.nodeNameMap !== null && !isAbsolutePath(c.nodeNameMap))
    fail(
      `config.nodeNameMap must be the absolute path of a node-name-map (e.g. /etc/rdma/ib-node-name-map), got ${JSON.stringify(c.nodeNameMap)}`,
    );
  return Object.freeze({
    fabrics: Object.freeze(fabrics.map((f) => Object.freeze(f))),
    hostMapping,
    hostGuids: hostGuids.nodes,
    nodeNames: hostGuids.names,
    ...(typeof c.nodeNameMap === 'string' ? { nodeNameMap: c.nodeNameMap } : {}),
    minSharedHosts: positiveInt(c.minSharedHosts, 'config.minSharedHosts', DEFAULT_MIN_SHARED_HOSTS),
    timeoutMs: duration(c.timeout, 'config.timeout') ?? DEFAULT_TIMEOUT_MS,
    maxOutputBytes: positiveInt(c.maxOutputMiB, 'config.maxOutputMiB', DEFAULT_MAX_OUTPUT_MIB) * 2 ** 20,
    nvlink,
  });
}
