// The Kueue and KAI Topology objects one source's snapshot asks for
// (exports.kueueTopology / kaiTopology): one per tree of the snapshot (a tree
// per label type or fabric), its levels the Node label keys of that tree's
// tiers (node-label-values.ts) from the highest tier down, then
// kubernetes.io/hostname; and the changes that bring the cluster's objects
// there. Levels cannot change in Kueue (nor in KAI), so a change of levels is
// a delete and a create of the same name; an object of ours being deleted
// (a finalizer holds it) is waited for. Pure, shared by the writer and
// `plan`. Ours, no Go counterpart (docs/configuration.md, "Kueue and KAI
// Topology objects").

import { compareBytes } from '../../../util/compare-bytes.ts';
import { isDNS1123Subdomain } from '../../../kube/name-validation.ts';
import type { TopologyObject } from '../../model/contracts.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode } from '../../model/hypernode-types.ts';
import { HOSTNAME_LABEL, sourceOf } from '../../model/hypernode-labels.ts';
import { membersOf } from '../../model/member-selector.ts';
import { tierKey } from '../node-labels/node-label-values.ts';

/** A version this controller writes, with the most levels its published CRD accepts (spec.levels maxItems). */
export interface TopologyVersion {
  readonly version: string;
  readonly maxLevels: number;
}

export interface TopologyKind {
  /** The exports key that turns it on. */
  readonly exportKey: 'kueueTopology' | 'kaiTopology';
  /** For log lines and plan: `Kueue Topology`. */
  readonly title: string;
  readonly group: string;
  /** Versions this controller writes, newest first: the newest at which the server serves `topologies` is used. */
  readonly versions: readonly TopologyVersion[];
}

export const TOPOLOGY_RESOURCE = 'topologies';

// Limits from the published CRDs (docs/compatibility.md): Kueue v1beta2 (0.15 and later) and KAI v1alpha1
// take 16 levels, Kueue v1alpha1 (0.9 to 0.13) 8; v1beta1 (0.14) is held to 8 as well.
export const TOPOLOGY_KINDS: readonly TopologyKind[] = [
  {
    exportKey: 'kueueTopology',
    title: 'Kueue Topology',
    group: 'kueue.x-k8s.io',
    versions: [
      { version: 'v1beta2', maxLevels: 16 },
      { version: 'v1beta1', maxLevels: 8 },
      { version: 'v1alpha1', maxLevels: 8 },
    ],
  },
  { exportKey: 'kaiTopology', title: 'KAI Topology', group: 'kai.scheduler', versions: [{ version: 'v1alpha1', maxLevels: 16 }] },
];

/** Where levels are written: the kind at its served version, which bounds their number. */
export interface LevelLimit {
  /** `Kueue Topology kueue.x-k8s.io/v1alpha1`, for the message. */
  readonly holder: string;
  readonly maxLevels: number;
}

/** The Topology objects' names and levels for one source, and the trees that cannot be written. */
export interface DesiredTopologies {
  /** Name → levels (label keys, highest first, hostname last). */
  readonly levels: ReadonlyMap<string, readonly string[]>;
  /** Why a tree gets no object (too many levels), one sentence each. */
  readonly errors: readonly string[];
}

/**
 * The objects a source's snapshot asks for: `hypernode-<source>` when its
 * trees all have the same levels, else one per distinct set of levels,
 * `hypernode-<source>-<its tier keys>` (the profile or fabric the tree is).
 */
export function desiredTopologies(source: string, prefix: string, snapshot: readonly DiscoveredHyperNode[], limit: LevelLimit): DesiredTopologies {
  const byName = new Map(snapshot.map((hn) => [hn.metadata.name, hn]));
  const children = new Set(snapshot.flatMap((hn) => membersOf(hn).flatMap((m) => (m.type === 'HyperNode' && m.selector?.exactMatch ? [m.selector.exactMatch.name] : []))));
  const trees = new Map<string, { keys: string[]; tiers: string[] }>();
  for (const root of snapshot.filter((hn) => !children.has(hn.metadata.name)).sort((a, b) => compareBytes(a.metadata.name, b.metadata.name))) {
    // tier key → highest tier it appears at in this tree; a key is one level however many HyperNodes carry it.
    const tiers = new Map<string, number>();
    const walk = (hn: DiscoveredHyperNode, path: Set<string>) => {
      const key = tierKey(hn);
      tiers.set(key, Math.max(tiers.get(key) ?? 0, hn.spec.tier));
      path.add(hn.metadata.name);
      for (const m of membersOf(hn)) {
        const child = m.type === 'HyperNode' && m.selector?.exactMatch ? byName.get(m.selector.exactMatch.name) : undefined;
        if (child && !path.has(child.metadata.name)) walk(child, path);
      }
      path.delete(hn.metadata.name);
    };
    walk(root, new Set());
    const ordered = [...tiers].sort(([ka, ta], [kb, tb]) => tb - ta || compareBytes(ka, kb)).map(([k]) => k);
    trees.set(ordered.join('/'), { keys: ordered.map((k) => `${prefix}/${k}`), tiers: ordered });
  }
  const levels = new Map<string, readonly string[]>();
  const errors: string[] = [];
  const single = trees.size === 1;
  for (const { keys, tiers } of trees.values()) {
    const name = single ? `hypernode-${source}` : objectName(source, tiers);
    const all = [...keys, HOSTNAME_LABEL];
    if (all.length > limit.maxLevels) {
      errors.push(
        `the tree of tiers ${tiers.join(', ')} of discovery source "${source}" needs ${all.length} Topology levels (with ${HOSTNAME_LABEL}), more than the ${limit.maxLevels} a ${limit.holder} holds; no Topology ${name} is written (turn off the export on the "${source}" entry, use fewer tiers, or upgrade to a version that takes more levels)`,
      );
      continue;
    }
    if (levels.has(name)) {
      errors.push(`two trees of discovery source "${source}" would both be Topology ${name}; only the first is written`);
      continue;
    }
    levels.set(name, all);
  }
  return { levels, errors };
}

/** `hypernode-<source>-<tier keys>`, lowercased and cut to a valid name (readable rather than hashed; a clash is reported). */
function objectName(source: string, tiers: readonly string[]): string {
  const raw = `hypernode-${source}-${tiers.join('-')}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, 253)
    .replace(/[^a-z0-9]+$/, '');
  return isDNS1123Subdomain(raw) ? raw : `hypernode-${source}`;
}

/** The object for `name` with `levels`, owned by `source` through the network-topology-source label. */
export function topologyObject(kind: TopologyKind, version: string, source: string, name: string, levels: readonly string[]): TopologyObject {
  return {
    apiVersion: `${kind.group}/${version}`,
    kind: 'Topology',
    metadata: { name, labels: { [NETWORK_TOPOLOGY_SOURCE_LABEL]: source } },
    spec: { levels: levels.map((nodeLabel) => ({ nodeLabel })) },
  };
}

export interface TopologyChange {
  /**
   * `held`: an object of ours being deleted that a finalizer still holds; it
   * is waited for, and with `levels` created anew once it is gone.
   */
  readonly action: 'create' | 'replace' | 'delete' | 'held';
  readonly name: string;
  /** The levels after the change (absent for a delete). */
  readonly levels?: readonly string[];
  /** The levels before (absent for a create). */
  readonly previous?: readonly string[];
  /** The existing object's uid, for the delete's precondition. */
  readonly uid?: string;
  /** Who holds the existing object (its finalizers): a delete of it waits for them. */
  readonly finalizers?: readonly string[];
}

export const levelsOf = (o: TopologyObject) => o.spec.levels.map((l) => l.nodeLabel);

/**
 * Per source, the Node label keys that `objects` (Topology objects of ours)
 * name as levels, the hostname aside: the labels the label worker keeps
 * while those objects live. Shared by the writer and `plan`.
 */
export function levelLabelKeysBySource(objects: Iterable<TopologyObject>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const o of objects) {
    const source = sourceOf(o) ?? '';
    const keys = out.get(source) ?? new Set<string>();
    for (const k of levelsOf(o)) if (k !== HOSTNAME_LABEL) keys.add(k);
    out.set(source, keys);
  }
  return out;
}

/**
 * From the source's existing objects (those carrying its label) to `desired`:
 * creates, replaces where the levels differ, deletes of objects no longer
 * asked for, and waits for objects already being deleted. `desired`
 * undefined means the export is off: delete them all.
 */
export function topologyChanges(existing: readonly TopologyObject[], desired: ReadonlyMap<string, readonly string[]> | undefined): TopologyChange[] {
  const have = new Map(existing.map((o) => [o.metadata.name, o]));
  const out: TopologyChange[] = [];
  const about = (o: TopologyObject) => ({
    previous: levelsOf(o),
    ...(o.metadata.uid ? { uid: o.metadata.uid } : {}),
    ...(o.metadata.finalizers?.length ? { finalizers: o.metadata.finalizers } : {}),
  });
  for (const [name, levels] of desired ?? []) {
    const current = have.get(name);
    if (!current) out.push({ action: 'create', name, levels });
    else if (current.metadata.deletionTimestamp !== undefined) out.push({ action: 'held', name, levels, ...about(current) });
    else if (levelsOf(current).join('\n') !== levels.join('\n')) out.push({ action: 'replace', name, levels, ...about(current) });
  }
  for (const [name, o] of have) {
    if (desired?.has(name)) continue;
    out.push({ action: o.metadata.deletionTimestamp !== undefined ? 'held' : 'delete', name, ...about(o) });
  }
  return out.sort((a, b) => compareBytes(a.name, b.name));
}
