// Presets: `preset: <name>` in a profile stands for the selectors and levels
// of a label family that another system writes on Nodes (NVIDIA Topograph in
// its three generations of keys, AWS EKS network-node layers, GCP GKE
// topology block/sub-block/host, OCI RDMA locality, Nebius GPU cluster and
// InfiniBand tiers, the Kubernetes region and zone, the NVIDIA GPU clique).
//
// A family's depth varies from Node to Node (AWS instance types have three or
// four layers; Topograph writes only the tiers it found), and a profile has one
// depth, so a preset expands into one explicit profile per depth, `<name>-<d>`:
// it selects the Nodes whose deepest key of the family is the d-th, so every
// Node carrying the family's labels lands in exactly one of them. With
// `nvlink: domain` or `nvlink: partition` each depth splits again: Nodes with
// `nvidia.com/gpu.clique` get an extra lowest tier (`<name>-<d>n`), Nodes
// without it (no NVLink fabric, or a fabric manager not finished yet) keep the
// plain profile. A `nodeSelector` written beside the preset narrows every
// expanded profile.

import type { NodeSelectorSpec, SelectorRequirement } from './node-selector.ts';
import { HOSTNAME_LABEL, type LevelSpec, type ProfileSpec } from './profiles.ts';

/** One key of a family with the tier name its HyperNodes get. */
interface FamilyKey {
  readonly nodeLabel: string;
  readonly tierName: string;
  readonly valuePattern?: string;
}

/**
 * `keys` in the order in which a Node's tree deepens: for a closest-first
 * family (Topograph: tier-0 is the switch nearest the Node) the nearest key
 * first; for a top-first family (AWS layer-1 is the top) the top key first.
 */
interface Family {
  readonly order: 'closest-first' | 'top-first';
  readonly keys: readonly FamilyKey[];
}

/** `[label suffix, tierName]`, one key of a family whose labels share a prefix. */
type KeySuffix = readonly [suffix: string, tierName: string];

/** A family from the parts in which families differ: the order, the common label prefix and each key's suffix and tier name. */
const family = (order: Family['order'], prefix: string, keys: readonly KeySuffix[]): Family => ({ order, keys: keys.map(([suffix, tierName]) => ({ nodeLabel: `${prefix}${suffix}`, tierName })) });

/** Topograph's numbered keys: `tier-0` is the leaf, and so on up. */
const numberedTiers: KeySuffix[] = ['leaf', 'spine', 'core', 'super-core'].map((tierName, n): KeySuffix => [`tier-${n}`, tierName]);
const NVIDIA_PREFIX = 'network.topology.nvidia.com/';
const GKE_PREFIX = 'cloud.google.com/gce-topology-';
const GKE_BLOCKS: KeySuffix[] = [
  ['block', 'block'],
  ['subblock', 'sub-block'],
];

export const GPU_CLIQUE_LABEL = 'nvidia.com/gpu.clique';
/** `<ClusterUUID>.<CliqueID>` → the ClusterUUID: one NVLink domain (e.g. a GB200 NVL72 rack). */
export const CLIQUE_DOMAIN_PATTERN = '^(.+)\\.[0-9]+$';

/** The NVLink tier a clique gives: the physical domain, or the fabric manager's partition (the whole value). */
const NVLINK_LEVELS: Readonly<Record<string, FamilyKey>> = {
  domain: { nodeLabel: GPU_CLIQUE_LABEL, tierName: 'nvl-domain', valuePattern: CLIQUE_DOMAIN_PATTERN },
  partition: { nodeLabel: GPU_CLIQUE_LABEL, tierName: 'nvl-partition' },
};

/** The tier names of NVLink domains (what Slurm's block plugin calls blocks). */
export const NVLINK_TIER_NAMES: readonly string[] = Object.freeze(Object.values(NVLINK_LEVELS).map((l) => l.tierName));

const FAMILIES: Readonly<Record<string, Family>> = {
  // Topograph v1.0 and later.
  topograph: family('closest-first', 'fabric.topograph.run/', numberedTiers),
  // Topograph between its leaf/spine/core keys and v1.0.
  'topograph-tier-n': family('closest-first', NVIDIA_PREFIX, numberedTiers),
  // Topograph v0.3 to v0.5.
  'topograph-v0.5': family('closest-first', NVIDIA_PREFIX, [
    ['leaf', 'leaf'],
    ['spine', 'spine'],
    ['core', 'core'],
  ]),
  // Topograph v0.1 and v0.2.
  'topograph-v0.1': family('closest-first', NVIDIA_PREFIX, [
    ['block', 'leaf'],
    ['spine', 'spine'],
    ['datacenter', 'core'],
  ]),
  aws: family('top-first', 'topology.k8s.aws/', [1, 2, 3, 4].map((n): KeySuffix => [`network-node-layer-${n}`, `aws-layer-${n}`])),
  gke: family('top-first', GKE_PREFIX, GKE_BLOCKS),
  'gke-host': family('top-first', GKE_PREFIX, [...GKE_BLOCKS, ['host', 'host']]),
  // Nebius GPU nodes: the GPU cluster (one InfiniBand fabric), then tier-2 above tier-1.
  nebius: family('top-first', 'topology.nebius.com/', [
    ['gpu-cluster-id', 'gpu-cluster'],
    ['tier-2', 'spine'],
    ['tier-1', 'leaf'],
  ]),
  // Failure domains, not fabric locality: for keeping a job inside one zone of a multi-zone cluster.
  'k8s-zone': family('top-first', 'topology.kubernetes.io/', [
    ['region', 'region'],
    ['zone', 'zone'],
  ]),
  oci: family('top-first', 'oci.oraclecloud.com/rdma.', [
    ['hpc_island_id', 'hpc-island'],
    ['network_block_id', 'network-block'],
    ['local_block_id', 'local-block'],
  ]),
};

/** The NVLink-only preset: one tier from the clique label. */
const NVLINK_PRESET = 'nvlink';

export const PRESET_NAMES = [...Object.keys(FAMILIES), NVLINK_PRESET].sort();

const exists = (key: string): SelectorRequirement => ({ key, operator: 'Exists', values: [] });
const absent = (key: string): SelectorRequirement => ({ key, operator: 'DoesNotExist', values: [] });
const level = (k: FamilyKey): LevelSpec => ({ nodeLabel: k.nodeLabel, tierName: k.tierName, valuePattern: k.valuePattern ?? '' });

function profile(base: ProfileSpec, name: string, requirements: readonly SelectorRequirement[], keys: readonly FamilyKey[]): ProfileSpec {
  const user = base.nodeSelector;
  const nodeSelector: NodeSelectorSpec = { matchLabels: user?.matchLabels ?? {}, matchExpressions: [...(user?.matchExpressions ?? []), ...requirements] };
  return { name, nodeSelector, levels: [...keys.map(level), { nodeLabel: HOSTNAME_LABEL, tierName: '', valuePattern: '' }], preset: '', nvlink: '' };
}

/** The profiles `spec.preset` stands for, or why it cannot be expanded. */
export function expandPreset(spec: ProfileSpec): ProfileSpec[] | string {
  const nvlink = spec.nvlink === '' ? undefined : NVLINK_LEVELS[spec.nvlink];
  if (spec.nvlink !== '' && !nvlink) return `nvlink ${JSON.stringify(spec.nvlink)} is none of ${Object.keys(NVLINK_LEVELS).join(', ')}`;
  if (spec.preset === NVLINK_PRESET) return [profile(spec, spec.name, [exists(GPU_CLIQUE_LABEL)], [nvlink ?? NVLINK_LEVELS.domain!])];
  const family = FAMILIES[spec.preset];
  if (!family) return `unknown preset ${JSON.stringify(spec.preset)} (known presets: ${PRESET_NAMES.join(', ')})`;
  const out: ProfileSpec[] = [];
  const keys = family.keys;
  for (let depth = 1; depth <= keys.length; depth++) {
    const requirements = [exists(keys[depth - 1]!.nodeLabel), ...(depth < keys.length ? [absent(keys[depth]!.nodeLabel)] : [])];
    const used = keys.slice(0, depth);
    const topFirst = family.order === 'top-first' ? used : [...used].reverse();
    if (!nvlink) {
      out.push(profile(spec, `${spec.name}-${depth}`, requirements, topFirst));
      continue;
    }
    out.push(profile(spec, `${spec.name}-${depth}`, [...requirements, absent(GPU_CLIQUE_LABEL)], topFirst));
    out.push(profile(spec, `${spec.name}-${depth}n`, [...requirements, exists(GPU_CLIQUE_LABEL)], [...topFirst, nvlink]));
  }
  return out;
}
