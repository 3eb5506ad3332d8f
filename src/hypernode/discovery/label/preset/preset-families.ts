// The label families behind `preset: <name>`: which keys other systems write
// on Nodes to describe network locality (NVIDIA Topograph in its generations
// of keys, AWS EKS network-node layers, GCP GKE block/sub-block/host, OCI
// RDMA locality, Nebius GPU cluster and InfiniBand tiers, CoreWeave
// InfiniBand fabric/superpod/leaf group/rack, the Kubernetes region and zone,
// the NVIDIA GPU clique), in what order, and which NVLink key each vendor
// writes. Only data: preset-stack.ts turns a family into tiers.

import { GPU_CLIQUE_LABEL, type DomainTake } from '../../../model/nvlink.ts';

/** One label a level reads; the first source a Node carries gives the level's value. */
export interface LevelSource {
  readonly key: string;
  /** How the domain is taken from the value (model/nvlink.ts); whole by default. */
  readonly take?: DomainTake;
}

/** One level of a family. */
export interface FamilyLevel {
  readonly sources: readonly LevelSource[];
  readonly tierName: string;
  /** Every well-labelled Node of the family carries it; a Node without it is left out as mislabelled. */
  readonly required: boolean;
  /**
   * The vendor's values are unique only under the parent (CoreWeave's numbered
   * superpods, leaf groups and racks; Nebius' tiers): the domain is keyed by
   * the values above it too, so rack 3 of two superpods is two HyperNodes.
   */
  readonly scoped: boolean;
}

/** The NVLink level `nvlink: domain` or `nvlink: partition` adds below a family's lowest level. */
export interface NvlinkLevels {
  readonly domain: readonly LevelSource[];
  readonly partition: readonly LevelSource[];
}

export interface Family {
  /** Fixed levels, closest to the Node first (tier order). */
  readonly levels: readonly FamilyLevel[];
  /**
   * Numbered keys `<prefix>tier-<N>` without a fixed depth (Topograph writes
   * as many tiers as it found): tier-0 is the switch nearest the Node. Such a
   * family has no fixed `levels`, and nothing can sit above it.
   */
  readonly numbered?: { readonly prefix: string; readonly tierNames: readonly string[] };
  /** Where the vendor's own NVLink key sits beside `nvidia.com/gpu.clique`. */
  readonly nvlink: NvlinkLevels;
}

const clique = {
  domain: { key: GPU_CLIQUE_LABEL, take: 'cluster-uuid' },
  partition: { key: GPU_CLIQUE_LABEL },
} as const;
/** A vendor NVLink key that names the physical domain: it comes first, the clique's ClusterUUID after. */
const vendorDomain = (key: string): NvlinkLevels => ({
  domain: [{ key }, clique.domain],
  partition: [clique.partition],
});
/** Topograph's accelerator key holds a clique value where the clique is known, so the clique comes first. */
const topographAccelerator = (key: string): NvlinkLevels => ({
  domain: [clique.domain, { key, take: 'cluster-uuid-or-whole' }],
  partition: [clique.partition, { key }],
});
const cliqueOnly: NvlinkLevels = { domain: [clique.domain], partition: [clique.partition] };

/** Levels closest first from `[key, tierName, required, scoped?]`. */
const levels = (
  rows: readonly (readonly [key: string, tierName: string, required: boolean, scoped?: boolean])[],
): FamilyLevel[] =>
  rows.map(([key, tierName, required, scoped]) => ({
    sources: [{ key }],
    tierName,
    required,
    scoped: scoped ?? false,
  }));

const FABRIC_TIER_NAMES = ['leaf', 'spine', 'core', 'super-core'];
const NVIDIA = 'network.topology.nvidia.com/';
const OLD_ACCELERATOR = `${NVIDIA}accelerator`;
const GKE = 'cloud.google.com/gce-topology-';
const AWS = 'topology.k8s.aws/network-node-layer-';
const NEBIUS = 'topology.nebius.com/';
const OCI = 'oci.oraclecloud.com/rdma.';

export const K8S_ZONE_PRESET = 'k8s-zone';
export const NVLINK_PRESET = 'nvlink';

export const FAMILIES: Readonly<Record<string, Family>> = {
  // Topograph v1.0 and later: any number of tiers.
  topograph: {
    levels: [],
    numbered: { prefix: 'fabric.topograph.run/', tierNames: FABRIC_TIER_NAMES },
    nvlink: topographAccelerator('accelerator.topograph.run/domain'),
  },
  // Topograph v1.0's accelerator keys alone: the sub-domain (e.g. an OCI rack) inside the domain.
  'topograph-accel': {
    levels: [
      {
        sources: [{ key: 'accelerator.topograph.run/sub-domain' }],
        tierName: 'nvl-sub-domain',
        required: false,
        scoped: false,
      },
      { sources: [{ key: 'accelerator.topograph.run/domain' }], tierName: 'nvl-domain', required: true, scoped: false },
    ],
    nvlink: cliqueOnly,
  },
  // Topograph between its leaf/spine/core keys and v1.0.
  'topograph-tier-n': {
    levels: [],
    numbered: { prefix: NVIDIA, tierNames: FABRIC_TIER_NAMES },
    nvlink: topographAccelerator(OLD_ACCELERATOR),
  },
  // Topograph v0.3 to v0.5.
  'topograph-v0.5': {
    levels: levels([
      [`${NVIDIA}leaf`, 'leaf', true],
      [`${NVIDIA}spine`, 'spine', false],
      [`${NVIDIA}core`, 'core', false],
    ]),
    nvlink: topographAccelerator(OLD_ACCELERATOR),
  },
  // Topograph v0.1 and v0.2.
  'topograph-v0.1': {
    levels: levels([
      [`${NVIDIA}block`, 'leaf', true],
      [`${NVIDIA}spine`, 'spine', false],
      [`${NVIDIA}datacenter`, 'core', false],
    ]),
    nvlink: topographAccelerator(OLD_ACCELERATOR),
  },
  // Instances attach at layer 3 (most types) or layer 4 (p6-b200, p6-b300); layer 1 is the top.
  aws: {
    levels: levels([
      [`${AWS}4`, 'aws-layer-4', false],
      [`${AWS}3`, 'aws-layer-3', true],
      [`${AWS}2`, 'aws-layer-2', true],
      [`${AWS}1`, 'aws-layer-1', true],
    ]),
    nvlink: vendorDomain('topology.k8s.aws/ultraserver-id'),
  },
  gke: {
    levels: levels([
      [`${GKE}subblock`, 'sub-block', true],
      [`${GKE}block`, 'block', true],
    ]),
    nvlink: cliqueOnly,
  },
  'gke-host': {
    levels: levels([
      [`${GKE}host`, 'host', true],
      [`${GKE}subblock`, 'sub-block', true],
      [`${GKE}block`, 'block', true],
    ]),
    nvlink: cliqueOnly,
  },
  oci: {
    levels: levels([
      [`${OCI}local_block_id`, 'local-block', true],
      [`${OCI}network_block_id`, 'network-block', true],
      [`${OCI}hpc_island_id`, 'hpc-island', true],
    ]),
    nvlink: vendorDomain('oci.oraclecloud.com/host.gpu_memory_fabric_id'),
  },
  // The GPU cluster (one InfiniBand fabric), tier-2 above tier-1; Nebius does not promise tier values unique across
  // parents.
  nebius: {
    levels: levels([
      [`${NEBIUS}tier-1`, 'leaf', true, true],
      [`${NEBIUS}tier-2`, 'spine', true, true],
      [`${NEBIUS}gpu-cluster-id`, 'gpu-cluster', true],
    ]),
    nvlink: vendorDomain(`${NEBIUS}tier-0`),
  },
  // Superpod, leaf group and rack are numbers, unique only within their parent.
  coreweave: {
    levels: levels([
      ['node.coreweave.cloud/rack', 'rack', false, true],
      ['ib.coreweave.cloud/leafgroup', 'leaf-group', true, true],
      ['ib.coreweave.cloud/superpod', 'superpod', true, true],
      ['ib.coreweave.cloud/fabric', 'fabric', true],
    ]),
    nvlink: vendorDomain('ds.coreweave.com/nvlink.domain'),
  },
  // Failure domains, not fabric locality: keeps a job inside one zone; may sit above another preset.
  [K8S_ZONE_PRESET]: {
    levels: levels([
      ['topology.kubernetes.io/zone', 'zone', true],
      ['topology.kubernetes.io/region', 'region', true],
    ]),
    nvlink: cliqueOnly,
  },
};

export const PRESET_NAMES = [...Object.keys(FAMILIES), NVLINK_PRESET].sort();
