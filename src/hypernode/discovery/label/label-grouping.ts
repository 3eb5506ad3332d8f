// One label discovery run: Nodes → groups → the snapshot of HyperNodes
// (docs/design.md §2.1 step 3). Mirrors discoverHyperNodes / buildHyperNodes of
// pkg/controllers/hypernode/discovery/label/label.go. Nodes and types are
// walked in sorted order so the result does not depend on cache order.
// Legacy list types group as Volcano's released controller does; profiles
// (profile/profile-grouping.ts) keep their own domains, presets
// (preset/preset-grouping.ts) leave mislabelled Nodes out instead of failing,
// and a Node an explicit profile or a preset selects belongs to it alone.

import type { Lister } from '../../../kube/types.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { buildMembers, buildWithTierName } from '../../model/hypernode-builders.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import type { Snapshot } from '../../model/contracts.ts';
import { hasLabel, labelValue } from '../../model/label-reads.ts';
import { NameBook } from './name-book.ts';
import type { TopologyType } from './label-config.ts';
import { explicitOwner, ProfileTrees, type Claimant } from './profile/profile-grouping.ts';
import type { Group } from './label-group.ts';
import { PresetTrees } from './preset/preset-grouping.ts';
import { addToList } from './list/list-grouping.ts';
import {
  LABEL_SOURCE,
  NETWORK_TOPOLOGY_PROFILE_LABEL,
  NETWORK_TOPOLOGY_SOURCE_LABEL,
} from '../../model/hypernode-labels.ts';
import type { LeftOutReason } from './preset/preset-stack.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

/** A Node the configuration meant to place that is in no label HyperNode, and why. */
export interface UncoveredNode {
  readonly name: string;
  /** The kind of problem: the reason label of hypernode_uncovered_nodes. */
  readonly reason: LeftOutReason;
  /** What is wrong, naming the labels and values. */
  readonly why: string;
  /** A preset profile left it out (a Warning Event names it); absent for list types and hand-written profiles. */
  readonly preset?: true;
}

/** A tierName the snapshot gives at more than one tier number. */
export interface AmbiguousTierName {
  readonly tierName: string;
  /** Ascending. */
  readonly tiers: readonly number[];
  /** The profile label values of the groups giving it (`the list form` for list types), sorted. */
  readonly types: readonly string[];
}

/** One run's result: the snapshot, and the Nodes it leaves out although they carry level labels. */
export interface LabelTopology {
  readonly snapshot: Snapshot;
  /** In Node name order. */
  readonly uncovered: readonly UncoveredNode[];
  /** In tierName order. */
  readonly ambiguous: readonly AmbiguousTierName[];
}

/**
 * Builds the complete desired set of label HyperNodes. Throws on a naming
 * error and on every fail-closed condition of the profiles.
 */
export function discoverSnapshot(
  nodes: readonly NodeMeta[],
  types: readonly TopologyType[],
  hyperNodes: Lister<HyperNode>,
): Snapshot {
  return discoverTopology(nodes, types, hyperNodes).snapshot;
}

/** discoverSnapshot, plus the Nodes that carry some level label of a type yet end up in no HyperNode. */
export function discoverTopology(
  nodes: readonly NodeMeta[],
  types: readonly TopologyType[],
  hyperNodes: Lister<HyperNode>,
): LabelTopology {
  const names = new NameBook(hyperNodes);
  const groups = new Map<string, Group>();
  const claimants: (Claimant & { type: TopologyType })[] = types.flatMap((type) => {
    if (type.profile)
      return [{ name: type.name, explicit: type.profile.explicit, matches: type.profile.matches, type }];
    if (type.preset) {
      const stack = type.preset.stack;
      return [
        {
          name: type.name,
          explicit: true,
          matches: (labels: Readonly<Record<string, string>> | undefined) => stack.picks(labels),
          preset: true,
          type,
        },
      ];
    }
    return [];
  });
  const trees = new ProfileTrees(groups, names, hyperNodes);
  const presets = new PresetTrees(groups, hyperNodes);
  // (label key, value) → HyperNode name, shared by all legacy types within the run (as in Go).
  const byLabel = new Map<string, string>();
  const uncovered: UncoveredNode[] = [];
  const sortedNodes = [...nodes].sort((a, b) => compareBytes(a.metadata.name, b.metadata.name));
  for (const node of sortedNodes) {
    const owner = explicitOwner(node, claimants);
    let covered = false;
    // Why the first type that could have taken the Node did not.
    let why: Omit<UncoveredNode, 'name'> | undefined;
    for (const type of types) {
      if (type.preset) {
        // A preset takes only the Nodes it selects, and they are its alone.
        if (owner?.name !== type.name) continue;
        const placed = presets.add(node, {
          name: type.name,
          labelValue: type.preset.labelValue,
          stack: type.preset.stack,
        });
        if (placed === 'placed') covered = true;
        else if (placed !== 'out')
          why ??= { reason: placed.reason, why: `${placed.why} (preset profile ${type.name})`, preset: true };
      } else if (type.profile) {
        // A Node an explicit profile selects belongs to it alone; selector-less profiles take the others.
        if (owner ? owner.name !== type.name : type.profile.explicit) continue;
        if (trees.add(node, { name: type.name, profile: type.profile })) covered = true;
        else why ??= whyNotTaken(node, type);
      } else {
        if (owner) continue;
        if (addToList(node, type, groups, byLabel, names)) covered = true;
        else why ??= whyNotTaken(node, type);
      }
    }
    if (!covered && why !== undefined) uncovered.push({ name: node.metadata.name, ...why });
  }
  const snapshot = [...groups.keys()].sort(compareBytes).map((name) => toHyperNode(name, groups.get(name)!));
  return { snapshot, uncovered, ambiguous: ambiguousTierNames(groups) };
}

/**
 * The tierNames the run's groups give at more than one tier number. Released
 * Volcano schedulers keep one tierName → tier map and keep whichever they saw
 * last, so `highestTierName` means either tier at random.
 */
function ambiguousTierNames(groups: ReadonlyMap<string, Group>): AmbiguousTierName[] {
  const seen = new Map<string, { tiers: Set<number>; types: Set<string> }>();
  for (const g of groups.values()) {
    let entry = seen.get(g.tierName);
    if (!entry) seen.set(g.tierName, (entry = { tiers: new Set(), types: new Set() }));
    entry.tiers.add(g.tier);
    entry.types.add(g.labels[NETWORK_TOPOLOGY_PROFILE_LABEL] ?? 'the list form');
  }
  return [...seen]
    .filter(([, e]) => e.tiers.size > 1)
    .sort(([a], [b]) => compareBytes(a, b))
    .map(([tierName, e]) => ({
      tierName,
      tiers: [...e.tiers].sort((a, b) => a - b),
      types: [...e.types].sort(compareBytes),
    }));
}

/**
 * Why a type did not take the Node into its tier 1, or undefined when the Node
 * carries none of the type's level labels: then it is simply not part of that
 * topology. Only a profile's valuePattern can reject a tier-1 value that is present.
 */
function whyNotTaken(node: NodeMeta, type: TopologyType): Omit<UncoveredNode, 'name'> | undefined {
  const labels = node.metadata.labels;
  if (!type.tiers.some((key) => hasLabel(labels, key))) return undefined;
  const key = type.tiers[0]!;
  const raw = labelValue(labels, key);
  if (raw === undefined)
    return { reason: 'missing-level', why: `missing level label ${key} of topology type ${type.name}` };
  return {
    reason: 'bad-value',
    why: `value ${JSON.stringify(raw)} of ${key} gives no domain through valuePattern ${quoteInput(type.profile?.levels[0]?.valuePattern)} of topology profile ${type.name}`,
  };
}

function toHyperNode(name: string, g: Group): DiscoveredHyperNode {
  const members = g.nodes
    ? [
        ...buildMembers([...g.nodes], 'Node'),
        ...buildMembers(
          [...g.members].filter((m) => !g.nodes!.has(m)),
          'HyperNode',
        ),
      ].sort((a, b) => compareBytes(a.selector!.exactMatch!.name, b.selector!.exactMatch!.name))
    : buildMembers([...g.members], g.tier === 1 ? 'Node' : 'HyperNode');
  return buildWithTierName(name, g.tier, g.tierName, members, {
    [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE,
    ...g.labels,
  });
}
