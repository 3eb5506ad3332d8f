// What one pass decides for one kind of Topology object, shared by the writer
// (topology-object-sync.ts) and `plan`: the newest version at which the
// server serves the kind's `topologies` (or none: the CRD is absent), the
// objects this controller owns (listed by the source label, which finds those
// of sources no longer configured, and those being deleted), and per source
// the changes, the trees that cannot be written, and how many Nodes still
// lack the labels the levels name (creates wait for them: labels first).
// Reads only. Ours, no Go counterpart.

import type { TopologyObject, TopologyObjectClient } from '../../model/contracts.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode, type NodeMeta } from '../../model/hypernode-types.ts';
import { sourceOf } from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import { isForbidden } from '../../../kube/errors.ts';
import { desiredNodeLabels } from '../node-labels/node-label-values.ts';
import { desiredTopologies, TOPOLOGY_RESOURCE, topologyChanges, type TopologyChange, type TopologyKind } from './topology-object-specs.ts';
import { topologyExportStates } from './topology-export-states.ts';

export interface SourceTopologyDecision {
  readonly source: string;
  readonly changes: readonly TopologyChange[];
  /** Trees of the source that get no object, one sentence each. */
  readonly errors: readonly string[];
  /** Nodes of the source's topology whose labels are not yet what it asks for; a create waits until none is. */
  readonly labelsPending: number;
}

export type TopologyDecision =
  | { readonly served: true; readonly version: string; readonly ours: readonly TopologyObject[]; readonly sources: readonly SourceTopologyDecision[] }
  /** The CRD is not served; `wanted` when a source asks for the objects (worth saying). */
  | { readonly served: false; readonly wanted: boolean; readonly message: string };

export async function decideTopologyObjects(
  kind: TopologyKind,
  config: DiscoveryConfig,
  snapshots: ReadonlyMap<string, readonly DiscoveredHyperNode[]>,
  client: Pick<TopologyObjectClient, 'servedVersions' | 'list'>,
  nodes: readonly NodeMeta[],
): Promise<TopologyDecision> {
  const served = await client.servedVersions(kind.group, TOPOLOGY_RESOURCE);
  const target = kind.versions.find((v) => served.includes(v.version));
  const wanted = [...topologyExportStates(kind, config, snapshots).values()].some((s) => s.kind === 'desired');
  if (target === undefined) {
    const versions = kind.versions.map((v) => v.version).join(', ');
    return { served: false, wanted, message: `The ${kind.title} CRD (${kind.group}, versions ${versions}) is not served; no ${kind.title} is written until it is` };
  }
  const { version, maxLevels } = target;
  let ours: TopologyObject[];
  try {
    ours = await client.list(kind.group, version, NETWORK_TOPOLOGY_SOURCE_LABEL);
  } catch (err) {
    // plan's user may lack `list` on topologies while no source wants the objects: nothing to do, nothing to say.
    if (isForbidden(err) && !wanted) return { served: true, version, ours: [], sources: [] };
    throw err;
  }
  const bySource = new Map<string, TopologyObject[]>();
  for (const o of ours) {
    const source = sourceOf(o) ?? '';
    bySource.set(source, [...(bySource.get(source) ?? []), o]);
  }
  const limit = { holder: `${kind.title} ${kind.group}/${version}`, maxLevels };
  const sources: SourceTopologyDecision[] = [];
  for (const [source, state] of topologyExportStates(kind, config, snapshots, bySource.keys())) {
    const desired = state.kind === 'desired' ? desiredTopologies(source, state.prefix, state.snapshot, limit) : undefined;
    const changes = topologyChanges(bySource.get(source) ?? [], desired?.levels);
    const creating = changes.some((c) => c.levels !== undefined);
    sources.push({
      source,
      changes,
      errors: desired?.errors ?? [],
      labelsPending: creating && state.kind === 'desired' ? nodesLackingLabels(state.prefix, state.snapshot, nodes) : 0,
    });
  }
  return { served: true, version, ours, sources };
}

/** Nodes whose labels differ from what the snapshot gives them (node-label-values.ts). */
function nodesLackingLabels(prefix: string, snapshot: readonly DiscoveredHyperNode[], nodes: readonly NodeMeta[]): number {
  const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
  let lacking = 0;
  for (const [name, labels] of desiredNodeLabels(prefix, snapshot, nodes)) {
    const current = byName.get(name)?.metadata.labels;
    if ([...labels].some(([k, v]) => labelValue(current, k) !== v)) lacking++;
  }
  return lacking;
}
