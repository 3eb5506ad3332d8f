// Why a Node sits where it does: every HyperNode that contains it, directly
// (a member selector picks it) or through a child HyperNode, each with the
// reasons a person can check — the selector that picks it, the label values
// it shares with a label-discovered group, the label profile, the fabric
// (UFM, LLDP, InfiniBand) whose switches its ports are linked to, the NVLink domain a fabric
// source put inside a leaf group — and the source that owns it.
// `kubectl hypernode why NODE` prints this. Go has no equivalent.

import { compareBytes } from '../../../util/compare-bytes.ts';
import type { HyperNode, MemberSelector, NodeMeta } from '../../model/hypernode-types.ts';
import {
  fabricOf,
  LABEL_SOURCE,
  NETWORK_TOPOLOGY_PROFILE_LABEL,
  OWNERSHIP_LABELS,
  sourceOf,
  UFM_SOURCE,
} from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';
import { membersOf, resolveMembers } from '../../model/member-selector.ts';
import { isNvlinkTierName } from '../../model/nvlink.ts';

export interface Membership {
  readonly hyperNode: string;
  readonly tier: number;
  readonly tierName?: string;
  readonly source?: string;
  /** The child HyperNode through which it holds the Node; absent when a member selects the Node itself. */
  readonly through?: string;
  /** For a direct container: how the Node got in, one reason a line. */
  readonly reasons: readonly string[];
}

/** Every HyperNode holding `node`, lowest tier first (then by name); empty when none does. */
export function nodeMemberships(node: NodeMeta, hyperNodes: readonly HyperNode[]): Membership[] {
  const found = new Map<string, Membership>();
  const direct: HyperNode[] = [];
  for (const hn of hyperNodes) {
    const selectors = membersOf(hn)
      .filter((m) => m.type === 'Node' && resolveMembers(m.selector, [node]).has(node.metadata.name))
      .map((m) => m.selector!);
    if (selectors.length === 0) continue;
    direct.push(hn);
    found.set(hn.metadata.name, {
      ...describe(hn),
      reasons: [...selectors.map(selectorReason), ...groupingReasons(hn, node)],
    });
  }
  // Up through the HyperNodes that list a holder as a member, breadth first so each says its nearest child.
  let level = direct.map((hn) => hn.metadata.name);
  while (level.length > 0) {
    const next: string[] = [];
    for (const hn of hyperNodes) {
      if (found.has(hn.metadata.name)) continue;
      const child = membersOf(hn).find(
        (m) => m.type === 'HyperNode' && level.includes(m.selector?.exactMatch?.name ?? ''),
      )?.selector?.exactMatch?.name;
      if (child === undefined) continue;
      found.set(hn.metadata.name, { ...describe(hn), through: child, reasons: [] });
      next.push(hn.metadata.name);
    }
    level = next;
  }
  return [...found.values()].sort((a, b) => a.tier - b.tier || compareBytes(a.hyperNode, b.hyperNode));
}

function describe(hn: HyperNode): Omit<Membership, 'reasons'> {
  const source = sourceOf(hn);
  return {
    hyperNode: hn.metadata.name,
    tier: hn.spec?.tier ?? 0,
    ...(hn.spec?.tierName ? { tierName: hn.spec.tierName } : {}),
    ...(source ? { source } : {}),
  };
}

function selectorReason(selector: MemberSelector): string {
  if (selector.exactMatch) return `member by name (exactMatch ${selector.exactMatch.name})`;
  if (selector.regexMatch) return `its name matches regexMatch ${JSON.stringify(selector.regexMatch.pattern)}`;
  return `its labels match labelMatch ${JSON.stringify(selector.labelMatch)}`;
}

/** What grouped the Node here: shared label values, the profile, a fabric source's fabric. */
function groupingReasons(hn: HyperNode, node: NodeMeta): string[] {
  const labels = hn.metadata.labels ?? {};
  const reasons: string[] = [];
  for (const key of Object.keys(labels).sort(compareBytes)) {
    if (OWNERSHIP_LABELS.has(key)) continue;
    const value = labelValue(node.metadata.labels, key);
    if (value === labels[key]) reasons.push(`label ${key}=${value} (the Node's value)`);
    else if (value !== undefined) reasons.push(`label ${key}=${value} (grouped as ${labels[key]})`);
    else reasons.push(`label ${key}=${labels[key]} (missing on the Node)`);
  }
  const profile = labelValue(labels, NETWORK_TOPOLOGY_PROFILE_LABEL);
  if (profile) reasons.push(`label profile ${profile}`);
  const fabric = fabricOf(hn);
  const system = fabric
    ? `${fabric.label.system} fabric ${fabric.fabric}`
    : sourceOf(hn) === UFM_SOURCE
      ? 'UFM'
      : undefined;
  // A fabric source's NVLink domain holds no switch: its Nodes share the domain and the leaf group above it.
  if (isNvlinkTierName(hn.spec?.tierName) && sourceOf(hn) !== LABEL_SOURCE) {
    reasons.push(
      `NVLink ${hn.spec!.tierName} inside a leaf group of ${system ?? `the ${sourceOf(hn)} fabric`}: its Nodes share the domain and that group's switches`,
    );
  } else if (fabric) reasons.push(`${system}: the Node's host ports link to the switches of this group`);
  else if (system) reasons.push("UFM: the Node's host ports link to the leaf switches of this group");
  return reasons;
}
