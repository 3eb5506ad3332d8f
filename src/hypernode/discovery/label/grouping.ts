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
import { labelValue } from '../../labels.ts';
import { LABEL_SOURCE, NameBook } from './naming.ts';
import type { TopologyType } from './tiers.ts';
import { carriesTierOne, explicitOwner, ProfileTrees, type Group, type NamedProfile } from './profile-grouping.ts';

/**
 * Builds the complete desired set of label HyperNodes. Throws on a naming
 * error and on every fail-closed condition of the profiles.
 */
export function discoverSnapshot(nodes: readonly NodeMeta[], types: readonly TopologyType[], hyperNodes: Lister<HyperNode>): Snapshot {
  const names = new NameBook(hyperNodes);
  const groups = new Map<string, Group>();
  const profiles: NamedProfile[] = types.flatMap((t) => (t.profile ? [{ name: t.name, profile: t.profile }] : []));
  const trees = new ProfileTrees(groups, names, hyperNodes);
  // (label key, value) → HyperNode name, shared by all legacy types within the run (as in Go).
  const byLabel = new Map<string, string>();
  const sortedNodes = [...nodes].sort((a, b) => compareBytes(a.metadata.name, b.metadata.name));
  for (const node of sortedNodes) {
    const owner = explicitOwner(node, profiles);
    for (const type of types) {
      if (type.profile) {
        const named = { name: type.name, profile: type.profile };
        if (owner ? owner.name === type.name : !type.profile.explicit && carriesTierOne(node, type.profile)) trees.add(node, named);
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
      }
    }
  }
  return [...groups.keys()].sort(compareBytes).map((name) => toHyperNode(name, groups.get(name)!));
}

function toHyperNode(name: string, g: Group): DiscoveredHyperNode {
  const members = buildMembers([...g.members], g.tier === 1 ? 'Node' : 'HyperNode');
  return buildWithTierName(name, g.tier, g.tierName, members, { [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE, ...g.labels });
}
