// What the Node labels of one source's topology are: for every Node in the
// snapshot, one label per tier, `<prefix>/<tier key>` = a value naming the
// HyperNode that holds the Node at that tier; and how the controller records
// which labels it wrote (one annotation per source listing the keys), so that
// it only ever removes labels it wrote itself. Pure; ours, no Go counterpart.

import { compareBytes } from '../../../util/compare-bytes.ts';
import { isLabelValue, isQualifiedName, LABEL_VALUE_MAX_LENGTH } from '../../../kube/name-validation.ts';
import { createHash } from 'node:crypto';
import type { DiscoveredHyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { labelValue } from '../../model/label-reads.ts';
import { OWNED_LABELS_ANNOTATION } from '../../model/hypernode-labels.ts';
import { membersOf, resolveMembers } from '../../model/member-selector.ts';

export const ownershipAnnotation = (source: string) => `${OWNED_LABELS_ANNOTATION}${source}`;

/** True for the label export's ownership records. */
export const isOwnershipAnnotation = (key: string) => key.startsWith(OWNED_LABELS_ANNOTATION);

/** Desired labels per Node name: key → value. */
export type NodeLabels = Map<string, Map<string, string>>;

/** The label keys `source` wrote on the Node, from its annotation (none when absent). */
export function ownedKeys(node: NodeMeta, source: string): string[] {
  const raw = labelValue(node.metadata.annotations, ownershipAnnotation(source));
  return raw ? raw.split(',').filter((k) => k !== '') : [];
}

/** Every source that has an ownership annotation on the Node. */
export function ownersOf(node: NodeMeta): string[] {
  return Object.keys(node.metadata.annotations ?? {})
    .filter(isOwnershipAnnotation)
    .map((k) => k.slice(OWNED_LABELS_ANNOTATION.length));
}

/**
 * The name part of a tier's label key: its tierName, or the part after the
 * last `/` when the tierName is a label key (the label source names tiers
 * after the Node label they come from: `topology.kubernetes.io/zone` gives
 * `zone`); `tier<N>` when that is no valid name.
 */
export function tierKey(hn: DiscoveredHyperNode): string {
  const name = (hn.spec.tierName ?? '').split('/').pop()!;
  return name !== '' && isQualifiedName(name) ? name : `tier${hn.spec.tier}`;
}

const HASH_CHARS = 10;

/**
 * The label value naming a HyperNode: its name when that is a valid label
 * value (HyperNode names of up to 63 characters are), else its first
 * characters and a hash of the whole name, so the value stays the same for
 * as long as the HyperNode keeps its name and differs between HyperNodes.
 */
export function domainValue(name: string): string {
  if (isLabelValue(name) && name !== '') return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, HASH_CHARS);
  const head = name
    .slice(0, LABEL_VALUE_MAX_LENGTH - HASH_CHARS - 1)
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/[^A-Za-z0-9]+$/, '');
  return head === '' ? hash : `${head}-${hash}`;
}

/**
 * The labels a source's snapshot gives the Nodes of the cache: for each
 * HyperNode, every Node below it (through child HyperNodes) gets
 * `<prefix>/<tierKey>` = domainValue(name). A Node below two HyperNodes of
 * one tier key keeps the byte-smallest name, so the choice is stable.
 * Members that name no Node of the cache are skipped (nothing to label).
 */
export function desiredNodeLabels(
  prefix: string,
  snapshot: readonly DiscoveredHyperNode[],
  nodes: readonly NodeMeta[],
): NodeLabels {
  const byName = new Map(snapshot.map((hn) => [hn.metadata.name, hn]));
  const known = new Set(nodes.map((n) => n.metadata.name));
  const below = new Map<string, ReadonlySet<string>>();
  const nodesBelow = (hn: DiscoveredHyperNode, path: Set<string>): ReadonlySet<string> => {
    const done = below.get(hn.metadata.name);
    if (done) return done;
    const out = new Set<string>();
    path.add(hn.metadata.name);
    for (const m of membersOf(hn)) {
      if (m.type === 'Node') {
        for (const n of resolveMembers(m.selector, nodes)) if (known.has(n)) out.add(n);
      } else if (m.type === 'HyperNode') {
        const childName = m.selector?.exactMatch?.name;
        const child = childName === undefined ? undefined : byName.get(childName);
        // Snapshots are checked acyclic before anything is exported; the path check only keeps a bad one finite.
        if (child && !path.has(child.metadata.name)) for (const n of nodesBelow(child, path)) out.add(n);
      }
    }
    path.delete(hn.metadata.name);
    below.set(hn.metadata.name, out);
    return out;
  };
  const labels: NodeLabels = new Map();
  const sorted = [...snapshot].sort((a, b) => compareBytes(a.metadata.name, b.metadata.name));
  for (const hn of sorted) {
    const key = `${prefix}/${tierKey(hn)}`;
    const value = domainValue(hn.metadata.name);
    for (const node of nodesBelow(hn, new Set())) {
      let own = labels.get(node);
      if (!own) labels.set(node, (own = new Map()));
      if (!own.has(key)) own.set(key, value);
    }
  }
  return labels;
}
