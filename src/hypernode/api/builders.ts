// Object builders the discoverers use to describe desired HyperNodes.
// Mirrors pkg/controllers/hypernode/utils/utils.go (BuildHyperNode,
// BuildHyperNodeWithTierName, BuildMembers); see 03-controller §5.6.

import type { HyperNode, MemberSpec, MemberType } from './types.ts';

/**
 * Byte-order comparison (Go's sort.Strings), never locale order. UTF-8 byte
 * order equals code-point order, which differs from JavaScript's UTF-16
 * code-unit order only when astral characters meet U+E000–U+FFFF.
 */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

/** A HyperNode with no namespace, no tierName and an empty status. */
export function build(name: string, tier: number, members: MemberSpec[], labels: Record<string, string>): HyperNode {
  return { metadata: { name, labels: { ...labels } }, spec: { tier, members } };
}

export function buildWithTierName(
  name: string,
  tier: number,
  tierName: string,
  members: MemberSpec[],
  labels: Record<string, string>,
): HyperNode {
  const hn = build(name, tier, members, labels);
  hn.spec.tierName = tierName;
  return hn;
}

/**
 * One exact-match member per name, sorted by byte order. Unlike Go the input
 * is not sorted in place; duplicates are kept, as in Go.
 */
export function buildMembers(names: readonly string[], type: MemberType): MemberSpec[] {
  return [...names].sort(compareBytes).map((name) => ({ type, selector: { exactMatch: { name } } }));
}
