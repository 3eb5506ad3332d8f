// `render -o slurm-topology-yaml|slurm-topology-conf` (and `kubectl hypernode
// tree`): the sources' trees as kept, as Slurm's topology files, with their
// flags. Kept out of render.ts so each output format stays in its own module;
// here the configuration is read for what the export needs of a source (the
// ufm host names), so the export itself knows none.

import { intKind, stringArrayKind } from '../app/flags/flag-kinds.ts';
import { flag } from '../app/flags/flag-set.ts';
import type { NodeMeta } from '../hypernode/model/hypernode-types.ts';
import type { KeptTopology } from '../hypernode/reconcile/kept-topology.ts';
import type { DiscoveryConfig } from '../hypernode/config/loader.ts';
import { NVLINK_TIER_NAMES } from '../hypernode/model/nvlink.ts';
import {
  SLURM_PLUGINS,
  slurmTopologyConf,
  slurmTopologyYaml,
  type SlurmPlugin,
} from '../hypernode/exports/slurm/slurm-files.ts';
import { slurmHostNames } from '../hypernode/exports/slurm/slurm-host-names.ts';
import { slurmTopology } from '../hypernode/exports/slurm/slurm-topology.ts';
import { hostNameLabels } from '../hypernode/discovery/host-name-labels.ts';
import { compareBytes } from '../util/compare-bytes.ts';
import { firstFew } from '../util/first-few.ts';
import { choiceKind } from './choice-flag.ts';

/** The tierNames of NVLink domains, which Slurm's block plugin reads as blocks. */
const NVLINK_BLOCK_TIERS: readonly string[] = Object.values(NVLINK_TIER_NAMES);

export const SLURM_FORMATS = ['slurm-topology-yaml', 'slurm-topology-conf'] as const;
export type SlurmFormat = (typeof SLURM_FORMATS)[number];

export const SLURM_FLAGS = {
  'slurm-plugin': flag(
    choiceKind<SlurmPlugin>(SLURM_PLUGINS),
    'tree',
    'For -o slurm-topology-conf: the topology plugin the file is for, tree (SwitchName= lines) or block (BlockName= lines). topology.yaml holds both.',
  ),
  'slurm-block-tier': flag(
    stringArrayKind,
    [],
    `For the Slurm outputs: a tierName whose HyperNodes are Slurm blocks. Repeatable; default ${NVLINK_BLOCK_TIERS.join(', ')} (NVLink domains).`,
  ),
  'slurm-block-size': flag(
    intKind,
    0n,
    "For the Slurm outputs: Nodes per NVLink domain (e.g. 18 for GB200 NVL72), written as the base of BlockSizes / block_sizes; a block with fewer Nodes fails the command, as Slurm would not start. 0: the smallest block's Node count.",
  ),
};

/** The values of SLURM_FLAGS, as the commands that spread them into their flag sets parse them. */
export interface SlurmFlagValues {
  readonly 'slurm-plugin': SlurmPlugin;
  readonly 'slurm-block-tier': readonly string[];
  /** 0 when not stated. */
  readonly 'slurm-block-size': bigint;
}

export interface SlurmOutputInput {
  /** Each source's tree as the controller keeps it (render), or as the cluster holds it (kubectl hypernode tree). */
  readonly trees: readonly KeptTopology[];
  readonly nodes: readonly NodeMeta[];
  readonly config: DiscoveryConfig;
  readonly flags: SlurmFlagValues;
  /** Told what the file gets right only in part (Nodes written under their Node name though host labels are set). */
  readonly warn: (warning: string) => void;
}

/** Nodes named in the warning about Nodes without a host-name label; the count says how many there are. */
const NAMED_IN_WARNING = 10;

export function isSlurmFormat(format: string): format is SlurmFormat {
  return (SLURM_FORMATS as readonly string[]).includes(format);
}

/** The file's text; throws when the HyperNodes cannot be written for Slurm. */
export function slurmOutput(format: SlurmFormat, input: SlurmOutputInput): string {
  const { flags } = input;
  const labels = hostNameLabels(input.config);
  const hostOf = slurmHostNames(labels, input.nodes);
  const byNodeName = new Set<string>();
  const topology = slurmTopology(input.trees, input.nodes, {
    blockTiers: flags['slurm-block-tier'].length > 0 ? flags['slurm-block-tier'] : NVLINK_BLOCK_TIERS,
    blockSize: flags['slurm-block-size'] === 0n ? undefined : Number(flags['slurm-block-size']),
    hostName: (node) => {
      const host = hostOf(node);
      if (host !== undefined) return host;
      byNodeName.add(node);
      return node;
    },
  });
  // A host mapping by label says the Node names are not the host names: a Node without the label is one slurmctld may
  // not know.
  if (labels.length > 0 && byNodeName.size > 0)
    input.warn(
      `${byNodeName.size} Node(s) carry none of the host-name labels ${labels.join(', ')} (hostMapping.nodeLabel) and are written under their Node names, which Slurm may not know: ${firstFew([...byNodeName].sort(compareBytes), NAMED_IN_WARNING)}; label them with their host names`,
    );
  return format === 'slurm-topology-yaml'
    ? slurmTopologyYaml(topology)
    : slurmTopologyConf(topology, flags['slurm-plugin']);
}
