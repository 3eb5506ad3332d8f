// What a write changes on one HyperNode, field by field, for people: members
// added and removed, tier, tierName, labels and nodeCount, plus a note for any
// other difference (member order or type, annotations, other spec fields).
// Shared by `plan` (which prints it) and the dry-run write sink (which logs it),
// so both describe a change the same way. Go has no equivalent.

import { compareBytes } from '../../util/compare-bytes.ts';
import type { HyperNode, MemberSpec } from '../model/hypernode-types.ts';

export interface Change<T> {
  /** Absent: the object (or the field) did not exist before. */
  readonly from?: T;
  /** Absent: the object (or the field) is gone after. */
  readonly to?: T;
}

export interface LabelsDiff {
  readonly added: Readonly<Record<string, string>>;
  readonly removed: Readonly<Record<string, string>>;
  readonly changed: Readonly<Record<string, { from: string; to: string }>>;
}

/** Only the fields that differ are present; `{}` means no difference. */
export interface HyperNodeDiff {
  readonly tier?: Change<number>;
  readonly tierName?: Change<string>;
  /** Members as `describeMember` writes them, byte-sorted. */
  readonly members?: { readonly added: readonly string[]; readonly removed: readonly string[] };
  readonly labels?: LabelsDiff;
  /** status.nodeCount; absent counts as 0. */
  readonly nodeCount?: { readonly from: number; readonly to: number };
  /** Differences none of the fields above shows, e.g. `member order or types`. */
  readonly other?: readonly string[];
}

/** A member in one short word: the name for exactMatch, else the selector kind and its argument. */
export function describeMember(m: MemberSpec): string {
  const s = m.selector ?? {};
  if (s.exactMatch) return s.exactMatch.name;
  if (s.regexMatch) return `regex:${s.regexMatch.pattern}`;
  if (s.labelMatch) return `labels:${JSON.stringify(s.labelMatch)}`;
  return JSON.stringify(s);
}

/** The difference between `before` and `after`; either may be absent (a create or a delete). */
export function diffHyperNodes(before: HyperNode | undefined, after: HyperNode | undefined): HyperNodeDiff {
  const diff: { -readonly [K in keyof HyperNodeDiff]: HyperNodeDiff[K] } = {};
  const tier = change(before?.spec?.tier, after?.spec?.tier);
  if (tier) diff.tier = tier;
  const tierName = change(before?.spec?.tierName, after?.spec?.tierName);
  if (tierName) diff.tierName = tierName;

  const beforeMembers = (before?.spec?.members ?? []).map(describeMember);
  const afterMembers = (after?.spec?.members ?? []).map(describeMember);
  const added = setMinus(afterMembers, beforeMembers);
  const removed = setMinus(beforeMembers, afterMembers);
  if (added.length > 0 || removed.length > 0) diff.members = { added, removed };

  const labels = diffLabels(before?.metadata.labels ?? {}, after?.metadata.labels ?? {});
  if (labels) diff.labels = labels;
  const fromCount = before?.status?.nodeCount ?? 0;
  const toCount = after?.status?.nodeCount ?? 0;
  if (fromCount !== toCount) diff.nodeCount = { from: fromCount, to: toCount };

  const other: string[] = [];
  if (before && after) {
    if (added.length === 0 && removed.length === 0 && !sameJson(before.spec?.members ?? [], after.spec?.members ?? []))
      other.push('member order or types');
    const { tier: _t1, tierName: _n1, members: _m1, ...restBefore } = before.spec ?? {};
    const { tier: _t2, tierName: _n2, members: _m2, ...restAfter } = after.spec ?? {};
    for (const key of [...new Set([...Object.keys(restBefore), ...Object.keys(restAfter)])].sort(compareBytes)) {
      if (!sameJson((restBefore as Record<string, unknown>)[key], (restAfter as Record<string, unknown>)[key]))
        other.push(`spec.${key}`);
    }
    if (!sameJson(before.metadata.annotations ?? {}, after.metadata.annotations ?? {})) other.push('annotations');
  }
  if (other.length > 0) diff.other = other;
  return diff;
}

export function isEmptyDiff(diff: HyperNodeDiff): boolean {
  return Object.keys(diff).length === 0;
}

/**
 * The diff as `field: value` parts, in a fixed order:
 * `tier: 1 → 2`, `members: +node4 -node3`, `labels: +k=v ~k=a→b -k=v`, `nodeCount: 2 → 3`.
 */
export function describeDiff(diff: HyperNodeDiff): string[] {
  const parts: string[] = [];
  const value = (v: unknown) => (v === undefined ? '(none)' : String(v));
  if (diff.tier) parts.push(`tier: ${value(diff.tier.from)} → ${value(diff.tier.to)}`);
  if (diff.tierName) parts.push(`tierName: ${value(diff.tierName.from)} → ${value(diff.tierName.to)}`);
  if (diff.members)
    parts.push(
      `members: ${[...diff.members.added.map((m) => `+${m}`), ...diff.members.removed.map((m) => `-${m}`)].join(' ')}`,
    );
  if (diff.labels) {
    const { added, changed, removed } = diff.labels;
    const words = [
      ...Object.entries(added).map(([k, v]) => `+${k}=${v}`),
      ...Object.entries(changed).map(([k, c]) => `~${k}=${c.from}→${c.to}`),
      ...Object.entries(removed).map(([k, v]) => `-${k}=${v}`),
    ];
    parts.push(`labels: ${words.join(' ')}`);
  }
  if (diff.nodeCount) parts.push(`nodeCount: ${diff.nodeCount.from} → ${diff.nodeCount.to}`);
  if (diff.other) parts.push(`also changed: ${diff.other.join(', ')}`);
  return parts;
}

function change<T>(from: T | undefined, to: T | undefined): Change<T> | undefined {
  if (from === to) return undefined;
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

function setMinus(a: readonly string[], b: readonly string[]): string[] {
  const drop = new Set(b);
  return [...new Set(a.filter((x) => !drop.has(x)))].sort(compareBytes);
}

function diffLabels(before: Record<string, string>, after: Record<string, string>): LabelsDiff | undefined {
  const added: Record<string, string> = {};
  const removed: Record<string, string> = {};
  const changed: Record<string, { from: string; to: string }> = {};
  for (const key of Object.keys(after).sort(compareBytes)) {
    if (!Object.hasOwn(before, key)) added[key] = after[key]!;
    else if (before[key] !== after[key]) changed[key] = { from: before[key]!, to: after[key]! };
  }
  for (const key of Object.keys(before).sort(compareBytes)) if (!Object.hasOwn(after, key)) removed[key] = before[key]!;
  const none = (o: object) => Object.keys(o).length === 0;
  return none(added) && none(removed) && none(changed) ? undefined : { added, removed, changed };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
