// Object builders the discoverers use to describe desired HyperNodes.
// Mirrors pkg/controllers/hypernode/utils/utils.go (BuildHyperNode,
// BuildHyperNodeWithTierName, BuildMembers).

import type { DiscoveredHyperNode, DiscoveredMember, MemberType } from './hypernode-types.ts';

/**
 * Byte-order comparison (Go's sort.Strings), never locale order. UTF-8 byte
 * order equals code-point order; JavaScript's UTF-16 code-unit order differs
 * from it only where a surrogate (an astral character) meets U+E000–U+FFFF.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x < y ? -1 : 1;
    return xs ? 1 : -1; // the astral side has the larger code point
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** A HyperNode with no namespace, no tierName and an empty status. */
export function build(name: string, tier: number, members: DiscoveredMember[], labels: Record<string, string>): DiscoveredHyperNode {
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
