// The `exports` key of a `networkTopologyDiscovery` entry: what the
// controller publishes from that source's topology besides HyperNodes:
// `nodeLabels`, the opt-in Node labels (node-labels/), and `kueueTopology` /
// `kaiTopology`, Topology objects whose levels are those label keys
// (topology-objects/). Ours, no Go counterpart (docs/configuration.md,
// "Node labels", "Kueue and KAI Topology objects").

import { isQualifiedName } from '../../kube/name-validation.ts';
import type { EntryExports } from '../model/contracts.ts';
import { refuseUnknownKeys } from './unknown-keys.ts';
import { isMapping } from '../../util/is-mapping.ts';
import { quoteInput } from '../../util/input-fragment.ts';

export const EXPORTS_KEYS = ['nodeLabels', 'kueueTopology', 'kaiTopology'];
const TOPOLOGY_KEYS = ['kueueTopology', 'kaiTopology'] as const;
const NODE_LABELS_KEYS = ['prefix'];

/** Where the labels go when `prefix` is not given: one prefix per source, so two sources never write the same key. */
export const defaultLabelPrefix = (source: string) => `${source}.topology.volcano.sh`;

/**
 * Domains whose label keys belong to Kubernetes (KEP-2586 and the well-known labels): kubelet, kube-scheduler and
 * kubectl read meaning into them, so `node-role.kubernetes.io/control-plane` written on every Node would make every
 * Node a control plane, and `node.kubernetes.io/exclude-from-external-load-balancers` takes Nodes out of Services.
 */
const RESERVED_PREFIX_DOMAINS = ['kubernetes.io', 'k8s.io'];

/** The reserved domain `prefix` is, or is under; undefined for a prefix of another domain. */
function reservedDomain(prefix: string): string | undefined {
  const p = prefix.toLowerCase();
  return RESERVED_PREFIX_DOMAINS.find((d) => p === d || p.endsWith(`.${d}`));
}

/** Validates an entry's `exports` (absent or null: nothing exported); throws naming the field. */
export function parseExports(raw: unknown, source: string): EntryExports {
  if (raw === undefined || raw === null) return {};
  if (!isMapping(raw)) throw new Error(`exports must be a mapping (keys: ${EXPORTS_KEYS.join(', ')})`);
  refuseUnknownKeys(raw, EXPORTS_KEYS, 'exports');
  const topologies: { kueueTopology?: true; kaiTopology?: true } = {};
  for (const key of TOPOLOGY_KEYS) {
    const v = raw[key];
    if (v !== undefined && v !== null && typeof v !== 'boolean')
      throw new Error(`exports.${key} must be true or false, got ${quoteInput(v)}`);
    if (v === true) topologies[key] = true;
  }
  const nl = raw.nodeLabels;
  if (nl === undefined || nl === null || nl === false) {
    const wanted = TOPOLOGY_KEYS.filter((k) => topologies[k]);
    // The Topology levels are the Node label keys: without the labels they would name labels no Node has.
    if (wanted.length > 0)
      throw new Error(
        `exports.${wanted[0]} needs exports.nodeLabels: its levels are the Node label keys (add nodeLabels: {} for the default prefix)`,
      );
    return {};
  }
  if (nl !== true && !isMapping(nl))
    throw new Error(
      'exports.nodeLabels must be a mapping such as {prefix: example.com/topology} or {} for the default prefix',
    );
  const spec = isMapping(nl) ? nl : {};
  refuseUnknownKeys(spec, NODE_LABELS_KEYS, 'exports.nodeLabels');
  const prefix = spec.prefix ?? defaultLabelPrefix(source);
  // A prefix is valid when `<prefix>/x` is a valid label key.
  if (typeof prefix !== 'string' || !isQualifiedName(`${prefix}/x`)) {
    throw new Error(
      `exports.nodeLabels.prefix ${JSON.stringify(prefix)} is not a DNS subdomain usable as a label key prefix (e.g. "topology.example.com")`,
    );
  }
  const reserved = reservedDomain(prefix);
  if (reserved !== undefined)
    throw new Error(
      `exports.nodeLabels.prefix ${JSON.stringify(prefix)} is under ${reserved}, which Kubernetes reserves for its own labels (kubelet and the scheduler read meaning into them); use a domain you own, e.g. "topology.example.com", or nodeLabels: {} for the default "${defaultLabelPrefix(source)}"`,
    );
  return { nodeLabels: { prefix }, ...topologies };
}
