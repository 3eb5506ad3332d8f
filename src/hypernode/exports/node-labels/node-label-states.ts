// Which sources' Node labels are decided in a round, and how: from the
// discovery configuration and the snapshots received, shared by the label
// worker and `plan`. Ours, no Go counterpart.

import type { DiscoveredHyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { exportingEntry, type DiscoveryConfig } from '../../config/loader.ts';
import type { SourceLabelState } from './node-label-changes.ts';
import { desiredNodeLabels, ownersOf } from './node-label-values.ts';

/**
 * Every source's state this pass, from the configuration and the snapshots
 * received: `desired` for a source with labels on and a snapshot; `off` for
 * one whose entry is disabled, removed or has no exports.nodeLabels; and no
 * state (labels left alone) for a broken entry, a source with no snapshot
 * yet, a prefix another source already uses, or a configuration that cannot
 * be loaded. Shared with `plan`.
 */
export function sourceLabelStates(
  config: DiscoveryConfig | undefined,
  snapshots: ReadonlyMap<string, readonly DiscoveredHyperNode[]>,
  nodes: readonly NodeMeta[],
  warn: (message: string) => void,
): Map<string, SourceLabelState> {
  const states = new Map<string, SourceLabelState>();
  if (!config) return states;
  const sources = new Set(snapshots.keys());
  for (const node of nodes) for (const s of ownersOf(node)) sources.add(s);
  const prefixes = new Map<string, string>();
  for (const source of [...sources].sort()) {
    const entry = exportingEntry(config, source);
    if (entry === 'broken') continue;
    const exported = entry === 'off' ? undefined : entry.exports?.nodeLabels;
    if (entry === 'off' || !exported) {
      states.set(source, { kind: 'off' });
      continue;
    }
    const other = prefixes.get(exported.prefix);
    if (other !== undefined) {
      warn(
        `sources "${other}" and "${source}" both set exports.nodeLabels.prefix ${exported.prefix}; the labels of "${source}" are left as they are until the prefixes differ`,
      );
      continue;
    }
    prefixes.set(exported.prefix, source);
    const snapshot = snapshots.get(source);
    if (!snapshot) continue;
    states.set(source, {
      kind: 'desired',
      labels: desiredNodeLabels(exported.prefix, snapshot, nodes),
      maxDeletePercent: entry.maxDeletePercent,
    });
  }
  return states;
}
