// Grouping for the profile form, as proposed for Volcano's
// pkg/controllers/hypernode/discovery/label/label.go: which profiles a Node
// belongs to, domains scoped to their profile (the same label value in two
// profiles makes two HyperNodes), names adopted from existing objects or
// derived from a hash, and the fail-closed rules — a Node in two explicit
// profiles, a Node of an explicit profile missing a level, a domain under two
// parents, a name held by another domain: the run throws and nothing is
// published, so the cluster keeps the HyperNodes it has.

import type { Lister } from '../../../../kube/types.ts';
import type { HyperNode, NodeMeta } from '../../../model/hypernode-types.ts';
import { labelValue } from '../../../model/label-reads.ts';
import { namePrefix, profileHyperNodeName, type NameBook } from '../name-book.ts';
import type { Profile } from './profile-config.ts';
import { NETWORK_TOPOLOGY_PROFILE_LABEL } from '../../../model/hypernode-labels.ts';
import type { Group } from '../label-group.ts';
import { quoteInput } from '../../../../util/input-fragment.ts';

export interface NamedProfile {
  readonly name: string;
  readonly profile: Profile;
}

/** A profile or preset that may claim Nodes for itself alone. */
export interface Claimant {
  readonly name: string;
  /** Has a nodeSelector (presets always): owns the Nodes it selects. */
  readonly explicit: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** A preset profile: two of them overlapping get a hint on how to combine them. */
  readonly preset?: boolean;
}

/** The explicit profile whose selector picks the Node, if any; throws when two do. */
export function explicitOwner<C extends Claimant>(node: NodeMeta, claimants: readonly C[]): C | undefined {
  let owner: C | undefined;
  for (const p of claimants) {
    if (!p.explicit || !p.matches(node.metadata.labels)) continue;
    if (owner) {
      const hint =
        owner.preset && p.preset
          ? '; a Node belongs to one preset profile: stack zones above a vendor preset with preset: [k8s-zone, <preset>], or narrow the nodeSelectors'
          : '';
      throw new Error(
        `node ${node.metadata.name} matches multiple topology profiles: ${owner.name} and ${p.name}${hint}`,
      );
    }
    owner = p;
  }
  return owner;
}

/** The domain a level gives the Node, or undefined when the Node lacks it. */
function domainOf(node: NodeMeta, level: Profile['levels'][number]): string | undefined {
  const raw = labelValue(node.metadata.labels, level.nodeLabel);
  return raw === undefined ? undefined : level.domainOf(raw);
}

/** The profile trees of one run; adds into the run's shared group table. */
export class ProfileTrees {
  /** JSON [profile, key, valuePattern, value] → HyperNode name. */
  private readonly domains = new Map<string, string>();
  /** Child HyperNode → parent HyperNode. */
  private readonly parents = new Map<
    string,
    { readonly parent: string; readonly label: string; readonly node: string }
  >();

  constructor(
    private readonly groups: Map<string, Group>,
    private readonly names: NameBook,
    private readonly hyperNodes: Lister<HyperNode>,
  ) {}

  /**
   * Walks the Node up the profile's levels; true when it became a member. A
   * selector-less profile takes a Node only when the Node has its tier-1
   * domain (as a legacy list does), and stops at the first level it lacks.
   * Throws on a fail-closed condition.
   */
  add(node: NodeMeta, { name: profileName, profile }: NamedProfile): boolean {
    let child = node.metadata.name;
    // `key=value` of the child's level, to name the labels behind a conflict.
    let childLabel = '';
    for (const [i, level] of profile.levels.entries()) {
      const value = domainOf(node, level);
      if (value === undefined) {
        if (!profile.explicit) return i > 0; // a partial chain, as a legacy list allows
        const raw = labelValue(node.metadata.labels, level.nodeLabel);
        const why =
          raw === undefined
            ? ''
            : `: its value ${JSON.stringify(raw)} does not match valuePattern ${quoteInput(level.valuePattern)}`;
        throw new Error(
          `node ${node.metadata.name} selected by topology profile ${profileName} is missing level label ${level.nodeLabel}${why}`,
        );
      }
      const tier = i + 1;
      const id = JSON.stringify([profileName, level.nodeLabel, level.valuePattern, value]);
      let name = this.domains.get(id);
      if (name === undefined) {
        name = this.choose(profileName, profile, level.nodeLabel, value, tier, node.metadata.name);
        this.domains.set(id, name);
        this.groups.set(name, {
          tier,
          tierName: level.tierName,
          members: new Set(),
          labels: { [NETWORK_TOPOLOGY_PROFILE_LABEL]: profile.labelValue, [level.nodeLabel]: value },
        });
      }
      if (tier > 1) {
        const earlier = this.parents.get(child);
        const label = `${level.nodeLabel}=${value}`;
        if (earlier !== undefined && earlier.parent !== name) {
          // Volcano's text, then the Nodes and labels: the hash names were never published, so only the labels lead to
          // the fix.
          throw new Error(
            `HyperNode ${child} in profile ${profileName} belongs to multiple parents: ${earlier.parent} and ${name} (node ${node.metadata.name} puts ${childLabel} under ${label}, node ${earlier.node} under ${earlier.label})`,
          );
        }
        if (earlier === undefined) this.parents.set(child, { parent: name, label, node: node.metadata.name });
      }
      this.groups.get(name)!.members.add(child);
      child = name;
      childLabel = `${level.nodeLabel}=${value}`;
    }
    return true;
  }

  /**
   * An existing label HyperNode of this domain (its label, this profile's
   * name prefix, no profile label or this profile's), else the hash name,
   * which must be free in the cache and in this run.
   */
  private choose(
    profileName: string,
    profile: Profile,
    key: string,
    value: string,
    tier: number,
    nodeName: string,
  ): string {
    const fail = (why: string) => new Error(`build HyperNode for profile ${profileName}: ${why}`);
    const prefix = namePrefix(profileName, tier);
    for (const candidate of this.names.labelled(key, value)) {
      if (!candidate.startsWith(prefix) || this.groups.has(candidate)) continue;
      const owner = labelValue(this.hyperNodes.get(candidate)?.metadata.labels, NETWORK_TOPOLOGY_PROFILE_LABEL);
      if (owner === undefined || owner === profile.labelValue) return candidate;
    }
    const name = profileHyperNodeName(profileName, key, value, tier);
    // Volcano's texts, then the Node and label the domain comes from.
    const from = ` (node ${nodeName}, ${key}=${value})`;
    if (this.groups.has(name)) throw fail(`deterministic HyperNode name collision for ${name}${from}`);
    if (this.hyperNodes.get(name) !== undefined)
      throw fail(`deterministic HyperNode name ${name} is already used by a different topology domain${from}`);
    return name;
  }
}
