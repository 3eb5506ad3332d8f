// Grouping for preset profiles: each Node's chain of domains (preset-stack.ts)
// joins the run's HyperNodes one Node at a time, and a Node that does not fit
// — labels with a gap or an empty value, a domain its labels put under a
// second parent, a name held by an object of another domain — is left out
// with the reason, naming its labels and values, while every other Node is
// still placed: one mislabelled Node must not stop topology updates for the
// cluster. A Node joins its lowest domain directly, whatever that domain's
// tier, so Nodes with and without a deeper label (an NVLink clique not
// published yet, a 3- beside a 4-layer AWS instance) share one HyperNode of
// the level they have in common.

import type { Lister } from '../../../../kube/types.ts';
import type { HyperNode, NodeMeta } from '../../../model/hypernode-types.ts';
import { labelValue } from '../../../model/label-reads.ts';
import { presetHyperNodeName } from '../name-book.ts';
import type { Group } from '../label-group.ts';
import { isOwnedBy, LABEL_SOURCE, NETWORK_TOPOLOGY_PROFILE_LABEL } from '../../../model/hypernode-labels.ts';
import type { ChainLink, LeftOutReason, PresetStack } from './preset-stack.ts';

export interface NamedPreset {
  readonly name: string;
  /** Value of NETWORK_TOPOLOGY_PROFILE_LABEL on its HyperNodes. */
  readonly labelValue: string;
  readonly stack: PresetStack;
}

/** What became of one Node. */
export type PresetPlacement = 'out' | 'placed' | { readonly reason: LeftOutReason; readonly why: string };

/** Where a domain was put under its parent, so a contradicting Node can be told which Node said otherwise. */
interface ParentRecord {
  readonly parent: string;
  readonly parentLink: ChainLink;
  readonly node: string;
}

const shown = (l: ChainLink) => `${l.key}=${l.value}`;
const keyValue = (l: ChainLink): [string, string] => [l.key, l.value];

/** The preset trees of one run; adds into the run's shared group table. */
export class PresetTrees {
  /** Child HyperNode → where it was put. */
  private readonly parents = new Map<string, ParentRecord>();
  /**
   * HyperNode name → identity of its domain (profile, tier, keys and values), to tell a hash collision from the same
   * domain.
   */
  private readonly identities = new Map<string, string>();
  /** Domain identity → hash name, so a domain's name is hashed once per run, not once per Node. */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly groups: Map<string, Group>,
    private readonly hyperNodes: Lister<HyperNode>,
  ) {}

  /** Places a Node the preset picks (its owner in this run), or says why not. */
  add(node: NodeMeta, preset: NamedPreset): PresetPlacement {
    const fit = preset.stack.fit(node.metadata.labels);
    if (fit.kind === 'out') return 'out';
    if (fit.kind === 'bad') return { reason: fit.reason, why: fit.why };
    const links = fit.links;
    const names: string[] = [];
    const identities: string[] = [];
    for (let i = 0; i < links.length; i++) {
      const link = links[i]!;
      // A domain unique only under its parent is keyed by every label above it.
      const path = link.scoped ? links.slice(i) : [link];
      let identity = `${preset.name}\0${link.tier}`;
      for (const l of path) identity += `\0${l.key}\0${l.value}`;
      let name = this.names.get(identity);
      if (name === undefined)
        this.names.set(identity, (name = presetHyperNodeName(preset.name, path.map(keyValue), link.tier)));
      const taken = this.takenBy(name, identity, link, preset);
      if (taken) return { reason: 'name-taken', why: `the HyperNode name ${name} for its ${shown(link)} ${taken}` };
      names.push(name);
      identities.push(identity);
    }
    for (let i = 0; i + 1 < links.length; i++) {
      const earlier = this.parents.get(names[i]!);
      if (earlier && earlier.parent !== names[i + 1]) {
        return {
          reason: 'conflicting-parent',
          why: `its ${shown(links[i]!)} is under ${shown(links[i + 1]!)}, but Node ${earlier.node} puts it under ${shown(earlier.parentLink)}`,
        };
      }
    }
    for (let i = 0; i < links.length; i++) {
      const link = links[i]!;
      const name = names[i]!;
      let group = this.groups.get(name);
      if (!group) {
        group = {
          tier: link.tier,
          tierName: link.tierName,
          members: new Set(),
          nodes: new Set(),
          labels: { [NETWORK_TOPOLOGY_PROFILE_LABEL]: preset.labelValue, [link.key]: link.value },
        };
        this.groups.set(name, group);
        this.identities.set(name, identities[i]!);
      }
      if (i === 0) {
        group.members.add(node.metadata.name);
        group.nodes!.add(node.metadata.name);
      } else group.members.add(names[i - 1]!);
      if (i + 1 < links.length && !this.parents.has(name))
        this.parents.set(name, { parent: names[i + 1]!, parentLink: links[i + 1]!, node: node.metadata.name });
    }
    return 'placed';
  }

  /** Why `name` cannot be this domain's, or undefined when it can. */
  private takenBy(name: string, identity: string, link: ChainLink, preset: NamedPreset): string | undefined {
    const mine = this.identities.get(name);
    if (mine !== undefined) return mine === identity ? undefined : 'collides with another domain of this run';
    if (this.groups.has(name)) return 'is already produced by another topology type';
    const existing = this.hyperNodes.get(name);
    if (!existing) return undefined;
    const labels = existing.metadata.labels;
    const ours =
      isOwnedBy(existing, LABEL_SOURCE) &&
      labelValue(labels, NETWORK_TOPOLOGY_PROFILE_LABEL) === preset.labelValue &&
      labelValue(labels, link.key) === link.value;
    return ours ? undefined : 'is held by an existing HyperNode of another domain; delete or relabel that object';
  }
}
