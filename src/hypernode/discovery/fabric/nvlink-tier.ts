// The NVLink tier inside a fabric tree: one fabric's HyperNodes (from the
// fabric layer, or a source's own grouping of leaves) and the NVLink label of
// each Node in; the same tree with an NVLink domain HyperNode between the
// Nodes and their leaf group out. Pure: the source keeps the fabric's last
// tree and places it again when a Node's label changes, without a poll.
//
// - Every HyperNode of the fabric moves up one tier and keeps its name,
//   tierName and labels, so turning the tier on or off updates objects in
//   place and a domain appearing later changes members, never tiers.
// - A domain is tier 1 (`nvl-domain` / `nvl-partition`), named
//   `<fabric>-<tierName>-<12 hex of the SHA-256 of the domain value>` and
//   labelled `<the NVLink label>: <domain>` beside the fabric's own labels.
// - A Node without a domain (no label yet, or a value that gives none) stays
//   directly under its leaf group.
// - A domain whose Nodes sit under several leaf groups (a rack miscabled or
//   split over units) becomes one HyperNode per leaf group, each named from
//   the domain and its leaf group's name: every HyperNode then still claims
//   only what holds for all its Nodes, one NVLink domain and one leaf group,
//   and the tree stays a tree. Moving all of them under the group holding
//   most would claim leaf-group locality the cables do not give, and would
//   move Nodes between groups as that count changes. The caller reports it.

import { createHash } from 'node:crypto';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';
import type { Snapshot } from '../../model/contracts.ts';
import { buildMembers, buildWithTierName } from '../../model/hypernode-builders.ts';
import type { DiscoveredHyperNode, DiscoveredMember } from '../../model/hypernode-types.ts';
import { domainOfValue } from '../../model/nvlink.ts';
import type { NvlinkConfig } from './nvlink-config.ts';

/** Hex digits of a domain's name hash: 48 bits, as the label presets' names. */
const NAME_HASH_HEX = 12;

export interface NvlinkTierInput {
  /** One fabric's HyperNodes without the NVLink tier; the HyperNodes with Node members are its leaf groups. */
  readonly base: Snapshot;
  /** Prefix of the domains' names. */
  readonly fabric: string;
  readonly config: NvlinkConfig;
  /** A Node's value of the NVLink label, undefined when it has none. */
  readonly labelOf: (node: string) => string | undefined;
  /** The labels every HyperNode of the fabric carries (source, fabric); the domains get them too. */
  readonly labels: Readonly<Record<string, string>>;
}

/** A domain under several leaf groups, with its Nodes in each. */
export interface SplitDomain {
  readonly domain: string;
  readonly parts: readonly { readonly leafGroup: string; readonly nodes: readonly string[] }[];
}

export interface NvlinkTier {
  readonly snapshot: Snapshot;
  /** Domain HyperNodes made (a split domain counts each part). */
  readonly domains: number;
  readonly splits: readonly SplitDomain[];
  /**
   * Nodes whose label value gives no domain (a clique value without `.<CliqueID>`): they stay under their leaf group.
   */
  readonly unreadable: readonly { readonly node: string; readonly value: string }[];
}

/** `<fabric>-<tierName>-<hash>` of a domain, or of one leaf group's part of a split domain. */
export function nvlinkHyperNodeName(fabric: string, tierName: string, domain: string, leafGroup?: string): string {
  // A label value never starts with `[`, so a part's hash input cannot be a whole domain's.
  const identity = leafGroup === undefined ? domain : JSON.stringify([domain, leafGroup]);
  return `${fabric}-${tierName}-${createHash('sha256').update(identity).digest('hex').slice(0, NAME_HASH_HEX)}`;
}

const exactName = (m: DiscoveredMember) => m.selector.exactMatch?.name;

/**
 * The fabric's tree with the NVLink tier below its leaf groups. Throws when two domains would share a name (a hash
 * collision).
 */
export const nvlinkTier = (input: NvlinkTierInput): NvlinkTier => runWhole(nvlinkTierSteps(input));

/** nvlinkTier as sliced work (util/sliced-work.ts): a step per HyperNode of the fabric and per domain. */
export function* nvlinkTierSteps(input: NvlinkTierInput): SlicedWork<NvlinkTier> {
  const { config } = input;
  /** domain → leaf group → its Nodes in that domain. */
  const domains = new Map<string, Map<string, string[]>>();
  const unreadable: { node: string; value: string }[] = [];
  for (const hn of input.base) {
    for (const m of hn.spec.members) {
      const node = m.type === 'Node' ? exactName(m) : undefined;
      const raw = node === undefined ? undefined : input.labelOf(node);
      if (node === undefined || raw === undefined) continue;
      const domain = domainOfValue(raw, config.take);
      if (domain === undefined) {
        unreadable.push({ node, value: raw });
        continue;
      }
      let groups = domains.get(domain);
      if (!groups) domains.set(domain, (groups = new Map()));
      const nodes = groups.get(hn.metadata.name);
      if (nodes) nodes.push(node);
      else groups.set(hn.metadata.name, [node]);
    }
    yield;
  }
  const taken = new Map<string, string>(
    input.base.map((hn) => [hn.metadata.name, `the fabric HyperNode ${hn.metadata.name}`]),
  );
  const placed = new Map<string, string>();
  const children = new Map<string, string[]>();
  const domainHyperNodes: DiscoveredHyperNode[] = [];
  const splits: SplitDomain[] = [];
  for (const domain of [...domains.keys()].sort(compareBytes)) {
    const groups = domains.get(domain)!;
    const split = groups.size > 1;
    if (split)
      splits.push({
        domain,
        parts: [...groups].map(([leafGroup, nodes]) => ({ leafGroup, nodes: [...nodes].sort(compareBytes) })),
      });
    for (const [leafGroup, nodes] of groups) {
      const name = nvlinkHyperNodeName(input.fabric, config.tierName, domain, split ? leafGroup : undefined);
      const holder = taken.get(name);
      if (holder !== undefined)
        throw new Error(`the NVLink ${config.level} ${domain} would be named ${name}, which is already ${holder}`);
      taken.set(name, `the name of NVLink ${config.level} ${domain}`);
      for (const n of nodes) placed.set(n, name);
      const below = children.get(leafGroup);
      if (below) below.push(name);
      else children.set(leafGroup, [name]);
      domainHyperNodes.push(
        buildWithTierName(name, 1, config.tierName, buildMembers(nodes, 'Node'), {
          ...input.labels,
          [config.label]: domain,
        }),
      );
    }
    yield;
  }
  const raised: DiscoveredHyperNode[] = [];
  for (const hn of input.base) {
    const below = children.get(hn.metadata.name);
    const own: readonly DiscoveredMember[] = hn.spec.members;
    const members = below
      ? [
          ...own.filter((m) => m.type !== 'Node' || !placed.has(exactName(m) ?? '')),
          ...buildMembers(below, 'HyperNode'),
        ]
      : hn.spec.members;
    raised.push({ metadata: hn.metadata, spec: { ...hn.spec, tier: hn.spec.tier + 1, members } });
    yield;
  }
  return { snapshot: [...domainHyperNodes, ...raised], domains: domainHyperNodes.length, splits, unreadable };
}
