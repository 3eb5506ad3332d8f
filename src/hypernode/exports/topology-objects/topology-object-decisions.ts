// What one pass decides for one kind of Topology object: the version written,
// the changes per source, and which of them wait until they can be made at
// once. Reads only, so the writer (topology-object-sync.ts) and `plan` decide
// alike. Ours, no Go counterpart.

import type { TopologyObject, TopologyObjectClient } from '../../model/contracts.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, sourceOf } from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import { isForbidden } from '../../../kube/errors.ts';
import { desiredNodeLabels } from '../node-labels/node-label-values.ts';
import {
  desiredTopologies,
  TOPOLOGY_KIND,
  TOPOLOGY_RESOURCE,
  topologyChanges,
  type TopologyChange,
  type TopologyKind,
  type TopologyWait,
} from './topology-object-specs.ts';
import { topologyExportStates, type TopologyExportState } from './topology-export-states.ts';
import { servedLevels } from './topology-served-schema.ts';

export interface SourceTopologyDecision {
  readonly source: string;
  /** Each with `waits` set when it cannot be made now. */
  readonly changes: readonly TopologyChange[];
  /** Trees of the source that get no object, one sentence each. */
  readonly errors: readonly string[];
  /**
   * Nodes of the source's topology whose labels are not yet what it asks for; a create or replace waits until none is.
   */
  readonly labelsPending: number;
}

/** The version written and what its served schema takes. */
export interface TopologyTarget {
  readonly version: string;
  readonly maxLevels: number;
  /** Levels carry their tierName as alias. */
  readonly alias: boolean;
  /**
   * False when the server published no schema to read: the limit is the version's known one, and no alias is written.
   */
  readonly schemaRead: boolean;
}

export type TopologyDecision =
  | ({
      readonly served: true;
      readonly ours: readonly TopologyObject[];
      readonly sources: readonly SourceTopologyDecision[];
    } & TopologyTarget)
  /** The CRD is not served; `wanted` when a source asks for the objects (worth saying). */
  | { readonly served: false; readonly wanted: boolean; readonly message: string };

/**
 * What the decision knows of each source's snapshots besides the accepted ones: those whose latest was rejected, with
 * why.
 */
export interface SnapshotOutcomes {
  readonly rejected: ReadonlyMap<string, string>;
}

/** Every source's latest snapshot accepted (plan: a rejected one fails the plan before it gets here). */
export const ALL_ACCEPTED: SnapshotOutcomes = { rejected: new Map() };

export async function decideTopologyObjects(
  kind: TopologyKind,
  config: DiscoveryConfig,
  snapshots: ReadonlyMap<string, readonly DiscoveredHyperNode[]>,
  client: Pick<TopologyObjectClient, 'servedVersions' | 'servedSchema' | 'list'>,
  nodes: readonly NodeMeta[],
  outcomes: SnapshotOutcomes = ALL_ACCEPTED,
): Promise<TopologyDecision> {
  const wanted = [...topologyExportStates(kind, config, snapshots).values()].some((s) => s.kind === 'desired');
  const target = await targetVersion(kind, client);
  if (target === undefined) {
    const versions = kind.versions.map((v) => v.version).join(', ');
    return {
      served: false,
      wanted,
      message: `The ${kind.title} CRD (${kind.group}, versions ${versions}) is not served; no ${kind.title} is written until it is`,
    };
  }
  let ours: TopologyObject[];
  try {
    ours = await client.list(kind.group, target.version, NETWORK_TOPOLOGY_SOURCE_LABEL);
  } catch (err) {
    // plan's user may lack `list` on topologies while no source wants the objects: nothing to do, nothing to say.
    if (isForbidden(err) && !wanted) return { served: true, ...target, ours: [], sources: [] };
    throw err;
  }
  const bySource = new Map<string, TopologyObject[]>();
  for (const o of ours) {
    const source = sourceOf(o) ?? '';
    bySource.set(source, [...(bySource.get(source) ?? []), o]);
  }
  const levelTarget = {
    holder: `${kind.title} ${kind.group}/${target.version}`,
    maxLevels: target.maxLevels,
    alias: target.alias,
  };
  const sources: SourceTopologyDecision[] = [];
  for (const [source, state] of topologyExportStates(kind, config, snapshots, bySource.keys())) {
    const desired =
      state.kind === 'desired' ? desiredTopologies(source, state.prefix, state.snapshot, levelTarget) : undefined;
    const changes = topologyChanges(bySource.get(source) ?? [], desired?.levels, desired?.refused, target.alias);
    const creating = changes.some((c) => c.action === 'create' || c.action === 'replace');
    const labelsPending =
      creating && state.kind === 'desired' ? nodesLackingLabels(state.prefix, state.snapshot, nodes) : 0;
    const held = heldBySnapshot(source, state, snapshots, outcomes);
    sources.push({
      source,
      changes: changes.map((c) => withWait(c, held, labelsPending)),
      errors: [...(desired?.refused.values() ?? []), ...(desired?.errors ?? [])],
      labelsPending,
    });
  }
  return { served: true, ...target, ours, sources };
}

/**
 * The newest version served in the shape written (its published schema has
 * spec.levels[].nodeLabel: Kueue 0.11.0 to 0.11.2 served a `v1beta1`
 * Topology of another shape), with what that schema takes; the version's
 * known limit where the server publishes no schema.
 */
async function targetVersion(
  kind: TopologyKind,
  client: Pick<TopologyObjectClient, 'servedVersions' | 'servedSchema'>,
): Promise<TopologyTarget | undefined> {
  const served = await client.servedVersions(kind.group, TOPOLOGY_RESOURCE);
  for (const { version, maxLevels } of kind.versions) {
    if (!served.includes(version)) continue;
    const schema = servedLevels(await client.servedSchema(kind.group, version, TOPOLOGY_KIND));
    if (schema && !schema.fits) continue;
    return {
      version,
      maxLevels: schema?.maxLevels ?? maxLevels,
      alias: schema?.alias ?? false,
      schemaRead: schema !== undefined,
    };
  }
  return undefined;
}

/** Why nothing of the source may change now, whatever the change: its snapshots say nothing that may be acted on. */
function heldBySnapshot(
  source: string,
  state: TopologyExportState,
  snapshots: ReadonlyMap<string, readonly DiscoveredHyperNode[]>,
  outcomes: SnapshotOutcomes,
): TopologyWait | undefined {
  const violations = outcomes.rejected.get(source);
  // A source whose entry is disabled or removed produces no snapshot any more: turning it off is the change.
  if (state.kind === 'off' && !state.running) return undefined;
  if (violations !== undefined) return { cause: 'rejected', violations };
  if (state.kind === 'off' && !snapshots.has(source)) return { cause: 'no-snapshot' };
  return undefined;
}

function withWait(change: TopologyChange, held: TopologyWait | undefined, labelsPending: number): TopologyChange {
  if (change.action === 'held') return change;
  if (held) return { ...change, waits: held };
  if ((change.action === 'create' || change.action === 'replace') && labelsPending > 0)
    return { ...change, waits: { cause: 'labels', nodes: labelsPending } };
  return change;
}

/** Nodes whose labels differ from what the snapshot gives them (node-label-values.ts). */
function nodesLackingLabels(
  prefix: string,
  snapshot: readonly DiscoveredHyperNode[],
  nodes: readonly NodeMeta[],
): number {
  const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
  let lacking = 0;
  for (const [name, labels] of desiredNodeLabels(prefix, snapshot, nodes)) {
    const current = byName.get(name)?.metadata.labels;
    if ([...labels].some(([k, v]) => labelValue(current, k) !== v)) lacking++;
  }
  return lacking;
}
