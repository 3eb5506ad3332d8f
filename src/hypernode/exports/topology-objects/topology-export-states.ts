// Which sources' Topology objects of one kind are decided in a pass, and how,
// from the discovery configuration and the snapshots received; shared by the
// writer and `plan`. The same rules as the Node labels (node-label-states.ts):
// `desired` for a source with the export on and a snapshot, `off` for one
// whose entry is disabled, removed or has the export off (its objects are
// deleted; `running` when its entry is still enabled, so that its snapshots
// decide when), and no state (objects left alone) for a broken entry or a
// source with no snapshot yet. Ours, no Go counterpart.

import type { DiscoveredHyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { exportingEntry, type DiscoveryConfig } from '../../config/loader.ts';
import { ownersOf } from '../node-labels/node-label-values.ts';
import type { TopologyKind } from './topology-object-specs.ts';

export type TopologyExportState =
  | { readonly kind: 'desired'; readonly prefix: string; readonly snapshot: readonly DiscoveredHyperNode[] }
  /** `running`: the entry is enabled and only the export is off; the source still produces snapshots. */
  | { readonly kind: 'off'; readonly running: boolean };

/**
 * Every source to decide for `kind`: those configured or with a snapshot,
 * and `known`, the sources whose objects exist (a source removed from the
 * configuration is found only there).
 */
export function topologyExportStates(
  kind: TopologyKind,
  config: DiscoveryConfig,
  snapshots: ReadonlyMap<string, readonly DiscoveredHyperNode[]>,
  known: Iterable<string> = [],
): Map<string, TopologyExportState> {
  const states = new Map<string, TopologyExportState>();
  const sources = new Set(
    [...snapshots.keys(), ...known, ...config.entries.map((r) => r.source)].filter((s) => s !== ''),
  );
  for (const source of [...sources].sort()) {
    const entry = exportingEntry(config, source);
    if (entry === 'broken') continue;
    const exported = entry === 'off' ? undefined : entry.exports;
    if (!exported?.[kind.exportKey] || !exported.nodeLabels) {
      states.set(source, { kind: 'off', running: entry !== 'off' });
      continue;
    }
    const snapshot = snapshots.get(source);
    if (!snapshot) continue;
    states.set(source, { kind: 'desired', prefix: exported.nodeLabels.prefix, snapshot });
  }
  return states;
}

/** True when an enabled entry of the configuration turns `kind` on. */
export function kindExported(kind: TopologyKind, config: DiscoveryConfig): boolean {
  return config.entries.some((r) => 'entry' in r && r.entry.enabled && r.entry.exports?.[kind.exportKey] === true);
}

/**
 * Whether objects of ours of a kind nobody exports may still exist, so that
 * they are worth listing (to delete them): only where this controller could
 * have written them. It writes Topology objects only with Node labels on,
 * under the opt-in RBAC that also grants `topologies`; so while no entry
 * has exports.nodeLabels and no Node carries a label of ours, none exists,
 * and asking (refused, 403, under the chart's RBAC) is not done at all.
 */
export function oursMayExist(config: DiscoveryConfig, nodes: readonly NodeMeta[]): boolean {
  return (
    config.entries.some((r) => 'entry' in r && r.entry.exports?.nodeLabels !== undefined) ||
    nodes.some((n) => ownersOf(n).length > 0)
  );
}
