// Object builders the discoverers use to describe desired HyperNodes.
// Mirrors pkg/controllers/hypernode/utils/utils.go (BuildHyperNode,
// BuildHyperNodeWithTierName, BuildMembers).

import type { DiscoveredHyperNode, DiscoveredMember, MemberType } from './hypernode-types.ts';
import { compareBytes } from '../../util/compare-bytes.ts';

/** A HyperNode with no namespace, no tierName and an empty status. */
export function build(
  name: string,
  tier: number,
  members: DiscoveredMember[],
  labels: Record<string, string>,
): DiscoveredHyperNode {
  return { metadata: { name, labels: { ...labels } }, spec: { tier, members } };
}

export function buildWithTierName(
  name: string,
  tier: number,
  tierName: string,
  members: DiscoveredMember[],
  labels: Record<string, string>,
): DiscoveredHyperNode {
  const hn = build(name, tier, members, labels);
  hn.spec.tierName = tierName;
  return hn;
}

/**
 * One exact-match member per name, sorted by byte order. Unlike Go the input
 * is not sorted in place; duplicates are kept, as in Go.
 */
export function buildMembers(names: readonly string[], type: MemberType): DiscoveredMember[] {
  return [...names].sort(compareBytes).map((name) => ({ type, selector: { exactMatch: { name } } }));
}
