// The NVLink vocabulary every wing shares: the label NVIDIA's GPU feature
// discovery writes on a Node of a multi-node NVLink system, the two levels
// read from it and their tierNames, and the one rule that turns a label value
// into a domain. The label presets (discovery/label/preset/), the fabric
// sources' NVLink tier (discovery/fabric/) and the Slurm blocks all read it
// here, so `nvl-domain` means the same thing wherever it appears.

import { isLabelValue } from '../../kube/name-validation.ts';

/**
 * `<ClusterUUID>.<CliqueID>`: the ClusterUUID is the NVLink domain (one NVL72 rack), the whole value the fabric
 * manager's partition.
 */
export const GPU_CLIQUE_LABEL = 'nvidia.com/gpu.clique';

/** `domain`: the physical NVLink domain; `partition`: the fabric manager's partition inside it. */
export const NVLINK_LEVELS = ['domain', 'partition'] as const;
export type NvlinkLevel = (typeof NVLINK_LEVELS)[number];

export const NVLINK_TIER_NAMES: Readonly<Record<NvlinkLevel, string>> = Object.freeze({
  domain: 'nvl-domain',
  partition: 'nvl-partition',
});

/** Whether HyperNodes of `tierName` are NVLink domains or partitions. */
export function isNvlinkTierName(tierName: string | undefined): boolean {
  return tierName !== undefined && Object.values(NVLINK_TIER_NAMES).includes(tierName);
}

/**
 * How a domain is taken from a label value: `whole` (the value itself);
 * `cluster-uuid`, the part before the last `.<digits>` of a clique value,
 * which must have that form; `cluster-uuid-or-whole`, the same when the value
 * has that form and else the whole value (Topograph's accelerator domain is a
 * clique value on InfiniBand but a capacity block id on AWS).
 */
export type DomainTake = 'whole' | 'cluster-uuid' | 'cluster-uuid-or-whole';

const CLIQUE_VALUE = /^(.+)\.[0-9]+$/;

/** The domain `raw` gives under `take`, or undefined when it gives none a HyperNode label could hold. */
export function domainOfValue(raw: string, take: DomainTake = 'whole'): string | undefined {
  if (take === 'whole') return raw;
  const m = CLIQUE_VALUE.exec(raw);
  if (m) return isLabelValue(m[1]!) ? m[1] : undefined;
  return take === 'cluster-uuid-or-whole' ? raw : undefined;
}

/**
 * A label value that gives `domain` under `gives` (a source's value → domain
 * rule: domainOfValue with its take, a profile's valuePattern), for the label
 * memory to put back after a restart, when only the HyperNode's value (the
 * domain) is known: the domain itself, or a clique value of it
 * (`<domain>.0`). Undefined when neither gives it.
 */
export function valueGivingDomain(domain: string, gives: (raw: string) => string | undefined): string | undefined {
  for (const candidate of [domain, `${domain}.0`]) if (gives(candidate) === domain) return candidate;
  return undefined;
}
