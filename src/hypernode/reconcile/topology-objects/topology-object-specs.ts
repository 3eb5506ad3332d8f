// The Kueue and KAI Topology objects one source's snapshot asks for
// (exports.kueueTopology / kaiTopology): one per tree of the snapshot (a tree
// per label type or fabric), its levels the Node label keys of that tree's
// tiers (node-label-values.ts) from the highest tier down, then
// kubernetes.io/hostname; and the changes that bring the cluster's objects
// there. Levels cannot change in Kueue (nor in KAI), so a change of levels is
// a delete and a create. Pure, shared by the writer and `plan`. Ours, no Go
// counterpart (docs/configuration.md, "Kueue and KAI Topology objects").

import { compareBytes } from '../../../util/compare-bytes.ts';
import { isDNS1123Subdomain } from '../../../kube/name-validation.ts';
import type { TopologyObject } from '../../model/contracts.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode } from '../../model/hypernode-types.ts';
import { HOSTNAME_LABEL } from '../../model/hypernode-labels.ts';
import { membersOf } from '../../model/member-selector.ts';
import { tierKey } from '../node-labels/node-label-values.ts';

/** The Node label every Topology ends with: the Node itself. */
/** Levels a Topology may hold: Kueue's smallest limit among the versions written (v1beta1 and older take 8). */
export const MAX_TOPOLOGY_LEVELS = 8;

export interface TopologyKind {
  /** The exports key that turns it on. */
  readonly exportKey: 'kueueTopology' | 'kaiTopology';
  /** For log lines and plan: `Kueue Topology`. */
  readonly title: string;
  readonly group: string;
  /** Versions this controller writes, newest first: the newest the server serves is used. */
  readonly versions: readonly string[];
}

export const TOPOLOGY_KINDS: readonly TopologyKind[] = [
  { exportKey: 'kueueTopology', title: 'Kueue Topology', group: 'kueue.x-k8s.io', versions: ['v1beta2', 'v1beta1', 'v1alpha1'] },
  { exportKey: 'kaiTopology', title: 'KAI Topology', group: 'kai.scheduler', versions: ['v1alpha1'] },
];

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
export function desiredTopologies(source: string, prefix: string, snapshot: readonly DiscoveredHyperNode[]): DesiredTopologies {
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
    if (all.length > MAX_TOPOLOGY_LEVELS) {
      errors.push(
        `the tree of tiers ${tiers.join(', ')} of discovery source "${source}" needs ${all.length} Topology levels (with ${HOSTNAME_LABEL}), more than the ${MAX_TOPOLOGY_LEVELS} a Kueue or KAI Topology holds; no Topology ${name} is written (turn off exports.kueueTopology/kaiTopology on the "${source}" entry, or use fewer tiers)`,
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
  readonly action: 'create' | 'replace' | 'delete';
  readonly name: string;
  /** The levels after the change (absent for a delete). */
  readonly levels?: readonly string[];
  /** The levels before (absent for a create). */
  readonly previous?: readonly string[];
  /** The existing object's uid, for the delete's precondition. */
  readonly uid?: string;
}

const levelsOf = (o: TopologyObject) => o.spec.levels.map((l) => l.nodeLabel);

/**
 * From the source's existing objects (those carrying its label) to `desired`:
 * creates, replaces where the levels differ, deletes of objects no longer
 * asked for. `desired` undefined means the export is off: delete them all.
 */
export function topologyChanges(existing: readonly TopologyObject[], desired: ReadonlyMap<string, readonly string[]> | undefined): TopologyChange[] {
  const have = new Map(existing.map((o) => [o.metadata.name, o]));
  const out: TopologyChange[] = [];
  for (const [name, levels] of desired ?? []) {
    const current = have.get(name);
    if (!current) out.push({ action: 'create', name, levels });
    else if (levelsOf(current).join('\n') !== levels.join('\n'))
      out.push({ action: 'replace', name, levels, previous: levelsOf(current), ...(current.metadata.uid ? { uid: current.metadata.uid } : {}) });
  }
  for (const [name, o] of have) {
    if (!desired?.has(name)) out.push({ action: 'delete', name, previous: levelsOf(o), ...(o.metadata.uid ? { uid: o.metadata.uid } : {}) });
  }
  return out.sort((a, b) => compareBytes(a.name, b.name));
}
