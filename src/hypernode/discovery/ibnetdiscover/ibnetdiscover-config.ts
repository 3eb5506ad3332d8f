// The ibnetdiscover entry's `config` (docs/configuration.md, `ibnetdiscover`),
// decoded once into a frozen value, the fabrics through the decoder every
// fabric source shares (fabric/fabric-config.ts). A source of ours, so an
// unknown key is an error. The ConfigMap never chooses the program: the first
// word of `command` must be `ibnetdiscover`, which stands for the operator's
// --ibnetdiscover-command, and the words after it pass the allowlist of
// ibnetdiscover-args.ts (a format flag, a file option or an unknown argument is
// refused here, naming it, rather than at the first run). Every path, `file`
// and a `--node-name-map`, passes the operator's file rule (remote/allowed-files.ts).

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
import { DEFAULT_INPUT_POLICY, IBNETDISCOVER_COMMAND_FLAG, type InputPolicy } from '../../model/input-policy.ts';
import { checkConfiguredPath } from '../remote/allowed-files.ts';
import { quoteInput } from '../../../util/input-fragment.ts';
import {
  checkIbnetdiscoverArgs,
  IBNETDISCOVER_WORD,
  NODE_NAME_MAP_OPTION,
  type IbnetdiscoverArgs,
} from './ibnetdiscover-args.ts';

export const DEFAULT_FABRIC_NAME = 'ib';
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

/** Where a fabric's output comes from. */
export type IbOutputSource =
  | ({ readonly kind: 'command' } & IbnetdiscoverArgs)
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

/** Plain `ibnetdiscover`: the operator's program with no argument of the ConfigMap's. */
const NO_ARGS: IbnetdiscoverArgs = Object.freeze({ args: Object.freeze([]) });

/** A path the ConfigMap names, under the operator's file rule. */
function pathOf(raw: unknown, key: string, policy: InputPolicy): string {
  try {
    return checkConfiguredPath(raw, key, policy);
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** The ConfigMap's `command`: the word ibnetdiscover, then allowlisted arguments. */
function commandOf(raw: unknown, where: string, policy: InputPolicy): IbnetdiscoverArgs {
  const want = `${where} must be a list of arguments, e.g. [ibnetdiscover, -C, mlx5_0, -P, "1"] (it runs without a shell)`;
  if (!Array.isArray(raw) || raw.length === 0) return fail(`${want}, got ${quoteInput(raw)}`);
  const words = raw.map((a, i) => {
    // YAML reads `-P 1`'s 1 as a number; an argument is text either way.
    if (typeof a === 'number' && Number.isFinite(a)) return String(a);
    if (typeof a !== 'string' || (i === 0 && a === '')) return fail(`${want}; argument ${i} is ${quoteInput(a)}`);
    return a;
  });
  if (words[0] !== IBNETDISCOVER_WORD)
    fail(
      `${where} starts with ${quoteInput(words[0])}, but the program is not the ConfigMap's to choose: write ${IBNETDISCOVER_WORD} first and only its arguments after it, e.g. [ibnetdiscover, -C, mlx5_0, -P, "1"]; what runs for it is the operator's --${IBNETDISCOVER_COMMAND_FLAG} (now ${policy.ibnetdiscoverCommand.join(' ')})`,
    );
  const args = checkIbnetdiscoverArgs(words.slice(1), where, fail);
  if (args.nodeNameMap !== undefined) pathOf(args.nodeNameMap, `${where} ${NODE_NAME_MAP_OPTION}`, policy);
  return args;
}

/** The fabric's output source from its `command`, `file` and `maxAge` (keys under `prefix`). */
function outputOf(f: Readonly<Record<string, unknown>>, prefix: string, policy: InputPolicy): IbOutputSource {
  if (f.command !== undefined && f.file !== undefined)
    fail(`set either ${prefix}command (run ibnetdiscover) or ${prefix}file (read its saved output), not both`);
  const maxAgeMs = duration(f.maxAge, `${prefix}maxAge`);
  if (f.file === undefined || f.file === null) {
    if (maxAgeMs !== undefined) fail(`${prefix}maxAge is for ${prefix}file (how old a saved output may be)`);
    const args =
      f.command === undefined || f.command === null ? NO_ARGS : commandOf(f.command, `${prefix}command`, policy);
    return Object.freeze({ kind: 'command', ...args });
  }
  const path = pathOf(f.file, `${prefix}file`, policy);
  return Object.freeze({ kind: 'file', path, ...(maxAgeMs === undefined ? {} : { maxAgeMs }) });
}

function hcasOf(raw: unknown, where: string, fallback: RE2JS | undefined): RE2JS | undefined {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'string' || raw === '')
    return fail(`${where} must be an RE2 pattern over the HCA's device word, e.g. "^mlx5_[0-7]$"`);
  const compiled = compileNodeNamePattern(raw);
  if (!compiled.ok) return fail(`${where} ${quoteInput(raw)} is not a usable RE2 pattern: ${compiled.detail}`);
  return compiled.re;
}

/** Validates the entry's config within what the operator allows; throws naming the key. */
export function parseIbnetdiscoverConfig(
  entry: DiscoveryEntry,
  policy: InputPolicy = DEFAULT_INPUT_POLICY,
): IbnetdiscoverConfig {
  const c = entry.config;
  const unknown = unknownKeysProblem(c, CONFIG_KEYS, 'config');
  if (unknown) fail(unknown);
  if (entry.credentials !== undefined)
    fail("credentials are not used: ibnetdiscover reads the fabric through the host's HCA, with no Secret");
  const hcas = hcasOf(c.hcas, 'config.hcas', undefined);
  const fabrics = fabricsOf(entry, FABRIC_LIST, ({ name, raw, where, listed }) => ({
    name,
    output: outputOf(raw, `${where}.`, policy),
    hcas: listed ? hcasOf(raw.hcas, `${where}.hcas`, hcas) : hcas,
  }));
  const { hostMapping, nvlink } = hostsAndNvlink(c, SOURCE);
  let hostGuids: ReturnType<typeof parseHostGuids>;
  try {
    hostGuids = parseHostGuids(c.hostGuids, 'config.hostGuids');
  } catch (err) {
    return fail((err as Error).message);
  }
  // A site's map (/etc/rdma/ib-node-name-map) is read under the same file rule as `file`.
  const nodeNameMap =
    c.nodeNameMap === undefined || c.nodeNameMap === null
      ? undefined
      : pathOf(c.nodeNameMap, 'config.nodeNameMap', policy);
  return Object.freeze({
    fabrics: Object.freeze(fabrics.map((f) => Object.freeze(f))),
    hostMapping,
    hostGuids: hostGuids.nodes,
    nodeNames: hostGuids.names,
    ...(nodeNameMap === undefined ? {} : { nodeNameMap }),
    minSharedHosts: positiveInt(c.minSharedHosts, 'config.minSharedHosts', DEFAULT_MIN_SHARED_HOSTS),
    timeoutMs: duration(c.timeout, 'config.timeout') ?? DEFAULT_TIMEOUT_MS,
    maxOutputBytes: positiveInt(c.maxOutputMiB, 'config.maxOutputMiB', DEFAULT_MAX_OUTPUT_MIB) * 2 ** 20,
    nvlink,
  });
}
