// One label discovery run: Nodes → groups → the snapshot of HyperNodes
// (docs/design.md §2.1 step 3). Mirrors discoverHyperNodes / buildHyperNodes of
// pkg/controllers/hypernode/discovery/label/label.go. Nodes and types are
// walked in sorted order so the result does not depend on cache order.
// Legacy list types group as Volcano's released controller does; profiles
// (profile-grouping.ts) keep their own domains, and a Node an explicit
// profile selects belongs to that profile alone.

import type { Lister } from '../../../kube/types.ts';
import { buildMembers, buildWithTierName, compareBytes } from '../../api/builders.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode, type HyperNode, type NodeMeta } from '../../api/types.ts';
import type { Snapshot } from '../../api/interface.ts';
import { hasLabel, labelValue } from '../../labels.ts';
import { LABEL_SOURCE, NameBook } from './label-naming.ts';
import type { TopologyType } from './label-config.ts';
import { explicitOwner, ProfileTrees, type Group, type NamedProfile } from './profile/profile-grouping.ts';

/** A Node the configuration meant to place that is in no label HyperNode, and why. */
export interface UncoveredNode {
  readonly name: string;
  readonly why: string;
}

/** One run's result: the snapshot, and the Nodes it leaves out although they carry level labels. */
export interface LabelTopology {
  readonly snapshot: Snapshot;
  /** In Node name order. */
  readonly uncovered: readonly UncoveredNode[];
}

/**
 * Builds the complete desired set of label HyperNodes. Throws on a naming
 * error and on every fail-closed condition of the profiles.
 */
export function discoverSnapshot(nodes: readonly NodeMeta[], types: readonly TopologyType[], hyperNodes: Lister<HyperNode>): Snapshot {
  return discoverTopology(nodes, types, hyperNodes).snapshot;
}

/** discoverSnapshot, plus the Nodes that carry some level label of a type yet end up in no HyperNode. */
export function discoverTopology(nodes: readonly NodeMeta[], types: readonly TopologyType[], hyperNodes: Lister<HyperNode>): LabelTopology {
  const names = new NameBook(hyperNodes);
  const groups = new Map<string, Group>();
  const profiles: NamedProfile[] = types.flatMap((t) => (t.profile ? [{ name: t.name, profile: t.profile }] : []));
  const trees = new ProfileTrees(groups, names, hyperNodes);
  // (label key, value) → HyperNode name, shared by all legacy types within the run (as in Go).
  const byLabel = new Map<string, string>();
  const uncovered: UncoveredNode[] = [];
  const sortedNodes = [...nodes].sort((a, b) => compareBytes(a.metadata.name, b.metadata.name));
  for (const node of sortedNodes) {
    const owner = explicitOwner(node, profiles);
    let covered = false;
    // Why the first type that could have taken the Node did not.
    let why: string | undefined;
    for (const type of types) {
      if (type.profile) {
        // A Node an explicit profile selects belongs to it alone; selector-less profiles take the others.
        if (owner ? owner.name !== type.name : type.profile.explicit) continue;
        if (trees.add(node, { name: type.name, profile: type.profile })) covered = true;
        else why ??= whyNotTaken(node, type);
        continue;
      }
      if (owner) continue;
      let child = node.metadata.name;
      for (const [i, key] of type.tiers.entries()) {
        const value = labelValue(node.metadata.labels, key);
        if (value === undefined) break;
        const labelId = JSON.stringify([key, value]);
        const tier = i + 1;
        const name = byLabel.get(labelId) ?? names.choose(groups, type.name, key, value, tier);
        let group = groups.get(name);
        if (!group) {
          group = { tier, tierName: key, members: new Set(), labels: { [key]: value } };
          groups.set(name, group);
        }
        group.members.add(child);
        byLabel.set(labelId, name);
        child = name;
        covered = true;
      }
      if (!covered) why ??= whyNotTaken(node, type);
    }
    if (!covered && why !== undefined) uncovered.push({ name: node.metadata.name, why });
  }
  const snapshot = [...groups.keys()].sort(compareBytes).map((name) => toHyperNode(name, groups.get(name)!));
  return { snapshot, uncovered };
}

/**
 * Why a type did not take the Node into its tier 1, or undefined when the Node
 * carries none of the type's level labels: then it is simply not part of that
 * topology. Only a profile's valuePattern can reject a tier-1 value that is present.
 */
function whyNotTaken(node: NodeMeta, type: TopologyType): string | undefined {
  const labels = node.metadata.labels;
  if (!type.tiers.some((key) => hasLabel(labels, key))) return undefined;
  const key = type.tiers[0]!;
  const raw = labelValue(labels, key);
  if (raw === undefined) return `missing level label ${key} of topology type ${type.name}`;
  return `value ${JSON.stringify(raw)} of ${key} gives no domain through valuePattern ${JSON.stringify(type.profile?.levels[0]?.valuePattern)} of topology profile ${type.name}`;
}

function toHyperNode(name: string, g: Group): DiscoveredHyperNode {
  const members = buildMembers([...g.members], g.tier === 1 ? 'Node' : 'HyperNode');
  return buildWithTierName(name, g.tier, g.tierName, members, { [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE, ...g.labels });
}
