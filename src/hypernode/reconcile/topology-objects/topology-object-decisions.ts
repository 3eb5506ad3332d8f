// What one pass decides for one kind of Topology object, shared by the writer
// (topology-object-sync.ts) and `plan`: the newest served version (or none:
// the CRD is absent), the objects this controller owns (listed by the source
// label, which finds those of sources no longer configured), and per source
// the changes and the trees that cannot be written. Reads only. Ours, no Go
// counterpart.

import type { TopologyObject, TopologyObjectClient } from '../../model/contracts.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode } from '../../model/hypernode-types.ts';
import { sourceOf } from '../../model/hypernode-labels.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import { isForbidden } from '../../../kube/errors.ts';
import { topologyChanges, type TopologyChange, type TopologyKind } from './topology-object-specs.ts';
import { topologyExportStates } from './topology-export-states.ts';

export interface SourceTopologyDecision {
  readonly source: string;
  readonly changes: readonly TopologyChange[];
  /** Trees of the source that get no object, one sentence each. */
  readonly errors: readonly string[];
}

export type TopologyDecision =
  | { readonly served: true; readonly version: string; readonly sources: readonly SourceTopologyDecision[] }
  /** The CRD is not served; `wanted` when a source asks for the objects (worth saying). */
  | { readonly served: false; readonly wanted: boolean; readonly message: string };

export async function decideTopologyObjects(
  kind: TopologyKind,
  config: DiscoveryConfig,
  snapshots: ReadonlyMap<string, readonly DiscoveredHyperNode[]>,
  client: Pick<TopologyObjectClient, 'servedVersions' | 'list'>,
): Promise<TopologyDecision> {
  const served = await client.servedVersions(kind.group);
  const version = kind.versions.find((v) => served.includes(v));
  const wanted = [...topologyExportStates(kind, config, snapshots).values()].some((s) => s.kind === 'desired');
  if (version === undefined) {
    return { served: false, wanted, message: `The ${kind.title} CRD (${kind.group}, versions ${kind.versions.join(', ')}) is not served; no ${kind.title} is written until it is` };
  }
  let ours: TopologyObject[];
  try {
    ours = await client.list(kind.group, version, NETWORK_TOPOLOGY_SOURCE_LABEL);
  } catch (err) {
    // Kueue or KAI installed but the opt-in RBAC not applied, and no source wants the objects: nothing to do, nothing to say.
    if (isForbidden(err) && !wanted) return { served: true, version, sources: [] };
    throw err;
  }
  const bySource = new Map<string, TopologyObject[]>();
  for (const o of ours) {
    const source = sourceOf(o) ?? '';
    bySource.set(source, [...(bySource.get(source) ?? []), o]);
  }
  const sources: SourceTopologyDecision[] = [];
  for (const [source, state] of topologyExportStates(kind, config, snapshots, bySource.keys())) {
    sources.push({
      source,
      changes: topologyChanges(bySource.get(source) ?? [], state.kind === 'desired' ? state.levels : undefined),
      errors: state.kind === 'desired' ? state.errors : [],
    });
  }
  return { served: true, version, sources };
}
