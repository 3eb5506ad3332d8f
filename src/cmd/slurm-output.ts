// `render -o slurm-topology-yaml|slurm-topology-conf`: the previewed
// HyperNodes as Slurm's topology files, with their two flags. Kept out of
// render.ts so each output format stays in its own module.

import { stringArrayKind } from '../app/flags/flag-kinds.ts';
import { flag } from '../app/flags/flag-set.ts';
import type { HyperNode, NodeMeta } from '../hypernode/api/types.ts';
import type { DiscoveryConfig } from '../hypernode/config/loader.ts';
import { NVLINK_TIER_NAMES } from '../hypernode/discovery/label/presets.ts';
import { SLURM_PLUGINS, slurmTopologyConf, slurmTopologyYaml, type SlurmPlugin } from '../hypernode/exports/slurm-files.ts';
import { slurmHostNames } from '../hypernode/exports/slurm-host-names.ts';
import { slurmTopology } from '../hypernode/exports/slurm-topology.ts';
import { choiceKind } from './choice-flag.ts';

export const SLURM_FORMATS = ['slurm-topology-yaml', 'slurm-topology-conf'] as const;
export type SlurmFormat = (typeof SLURM_FORMATS)[number];

export const SLURM_FLAGS = {
  'slurm-plugin': flag(choiceKind<SlurmPlugin>(SLURM_PLUGINS), 'tree', 'For -o slurm-topology-conf: the topology plugin the file is for, tree (SwitchName= lines) or block (BlockName= lines). topology.yaml holds both.'),
  'slurm-block-tier': flag(stringArrayKind, [], `For the Slurm outputs: a tierName whose HyperNodes are Slurm blocks. Repeatable; default ${NVLINK_TIER_NAMES.join(', ')} (NVLink domains).`),
};

export interface SlurmOutputInput {
  readonly hyperNodes: readonly HyperNode[];
  readonly nodes: readonly NodeMeta[];
  readonly config: DiscoveryConfig;
  readonly plugin: SlurmPlugin;
  readonly blockTiers: readonly string[];
}

export function isSlurmFormat(format: string): format is SlurmFormat {
  return (SLURM_FORMATS as readonly string[]).includes(format);
}

/** The file's text; throws when the HyperNodes cannot be written for Slurm. */
export function slurmOutput(format: SlurmFormat, input: SlurmOutputInput): string {
  const topology = slurmTopology(input.hyperNodes, input.nodes, {
    blockTiers: input.blockTiers.length > 0 ? input.blockTiers : NVLINK_TIER_NAMES,
    hostName: slurmHostNames(input.config, input.nodes),
  });
  return format === 'slurm-topology-yaml' ? slurmTopologyYaml(topology) : slurmTopologyConf(topology, input.plugin);
}
