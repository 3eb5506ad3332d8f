// The Kueue and KAI Topology objects one source's snapshot asks for (one per
// tree, its levels the tiers' Node label keys, then kubernetes.io/hostname),
// and the changes that bring the cluster's objects there. Pure, shared by the
// writer and `plan`. The levels of a Topology are immutable in both projects,
// which is why a change of levels is a delete and a create of the same name.
// Ours, no Go counterpart.

import { compareBytes } from '../../../util/compare-bytes.ts';
import { DNS1123_SUBDOMAIN_MAX_LENGTH, isDNS1123Subdomain, isQualifiedName } from '../../../kube/name-validation.ts';
import type { TopologyLevel, TopologyObject } from '../../model/contracts.ts';
import type { DiscoveredHyperNode } from '../../model/hypernode-types.ts';
import { HOSTNAME_LABEL, NETWORK_TOPOLOGY_SOURCE_LABEL, sourceOf } from '../../model/hypernode-labels.ts';
import { membersOf } from '../../model/member-selector.ts';
import { tierKey } from '../node-labels/node-label-values.ts';

/**
 * A version this controller writes, with the most levels it assumes there
 * when the server publishes no schema to read (the served schema's maxItems
 * decides otherwise: topology-served-schema.ts).
 */
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
  /**
   * Versions this controller writes, newest first: the newest at which the server serves `topologies` in the shape
   * written is used.
   */
  readonly versions: readonly TopologyVersion[];
}

export const TOPOLOGY_RESOURCE = 'topologies';
/** The kind's name in both groups, as the OpenAPI schemas are tagged. */
export const TOPOLOGY_KIND = 'Topology';

// Without a schema to read, the limits of the published CRDs (docs/compatibility.md): Kueue v1beta2 (0.15 on) and
// v1beta1 (0.14 on) take 16 levels, v1alpha1 8 (0.9 to 0.12; 0.13's v1alpha1 takes 16, which its schema says); KAI 16.
export const TOPOLOGY_KINDS: readonly TopologyKind[] = [
  {
    exportKey: 'kueueTopology',
    title: 'Kueue Topology',
    group: 'kueue.x-k8s.io',
    versions: [
      { version: 'v1beta2', maxLevels: 16 },
      { version: 'v1beta1', maxLevels: 16 },
      { version: 'v1alpha1', maxLevels: 8 },
    ],
  },
  {
    exportKey: 'kaiTopology',
    title: 'KAI Topology',
    group: 'kai.scheduler',
    versions: [{ version: 'v1alpha1', maxLevels: 16 }],
  },
];

/**
 * Where levels are written: the kind at its served version, which bounds their number and says whether they take an
 * alias.
 */
export interface LevelTarget {
  /** `Kueue Topology kueue.x-k8s.io/v1alpha1`, for the message. */
  readonly holder: string;
  readonly maxLevels: number;
  /** Each level but the hostname carries its tierName as alias. */
  readonly alias: boolean;
}

/** The Topology objects' names and levels for one source, and the trees that cannot be written. */
export interface DesiredTopologies {
  /** Name → levels (label keys, highest first, hostname last). */
  readonly levels: ReadonlyMap<string, readonly TopologyLevel[]>;
  /**
   * Names whose tree cannot be written (too many levels), with why: an object of ours of that name keeps its levels.
   */
  readonly refused: ReadonlyMap<string, string>;
  /** Other trees that get no object (a name two trees would share), one sentence each. */
  readonly errors: readonly string[];
}

/**
 * The objects a source's snapshot asks for: `hypernode-<source>` when its
 * trees all have the same levels, else one per distinct set of levels,
 * `hypernode-<source>-<its tier keys>` (the profile or fabric the tree is).
 */
export function desiredTopologies(
  source: string,
  prefix: string,
  snapshot: readonly DiscoveredHyperNode[],
  target: LevelTarget,
): DesiredTopologies {
  const byName = new Map(snapshot.map((hn) => [hn.metadata.name, hn]));
  const children = new Set(
    snapshot.flatMap((hn) =>
      membersOf(hn).flatMap((m) =>
        m.type === 'HyperNode' && m.selector?.exactMatch ? [m.selector.exactMatch.name] : [],
      ),
    ),
  );
  const trees = new Map<string, { keys: string[]; tiers: string[]; tierNames: Array<Set<string>> }>();
  for (const root of snapshot
    .filter((hn) => !children.has(hn.metadata.name))
    .sort((a, b) => compareBytes(a.metadata.name, b.metadata.name))) {
    // tier key → highest tier it appears at in this tree, and the tierNames giving it; a key is one level however many
    // HyperNodes carry it.
    const tiers = new Map<string, { tier: number; names: Set<string> }>();
    const walk = (hn: DiscoveredHyperNode, path: Set<string>) => {
      const key = tierKey(hn);
      const seen = tiers.get(key) ?? { tier: 0, names: new Set<string>() };
      seen.tier = Math.max(seen.tier, hn.spec.tier);
      if (hn.spec.tierName) seen.names.add(hn.spec.tierName);
      tiers.set(key, seen);
      path.add(hn.metadata.name);
      for (const m of membersOf(hn)) {
        const child =
          m.type === 'HyperNode' && m.selector?.exactMatch ? byName.get(m.selector.exactMatch.name) : undefined;
        if (child && !path.has(child.metadata.name)) walk(child, path);
      }
      path.delete(hn.metadata.name);
    };
    walk(root, new Set());
    const ordered = [...tiers].sort(([ka, a], [kb, b]) => b.tier - a.tier || compareBytes(ka, kb));
    const key = ordered.map(([k]) => k).join('/');
    // Trees with the same levels are one object; the tierNames of all of them give its aliases.
    const same = trees.get(key);
    if (same) ordered.forEach(([, t], i) => t.names.forEach((n) => same.tierNames[i]!.add(n)));
    else
      trees.set(key, {
        keys: ordered.map(([k]) => `${prefix}/${k}`),
        tiers: ordered.map(([k]) => k),
        tierNames: ordered.map(([, t]) => t.names),
      });
  }
  const levels = new Map<string, readonly TopologyLevel[]>();
  const refused = new Map<string, string>();
  const errors: string[] = [];
  const single = trees.size === 1;
  for (const { keys, tiers, tierNames } of trees.values()) {
    const name = single ? `hypernode-${source}` : objectName(source, tiers);
    const all = [...keys, HOSTNAME_LABEL];
    if (all.length > target.maxLevels) {
      refused.set(
        name,
        `the tree of tiers ${tiers.join(', ')} of discovery source "${source}" needs ${all.length} Topology levels (with ${HOSTNAME_LABEL}), more than the ${target.maxLevels} a ${target.holder} holds; no Topology ${name} is written, and one of ours of that name keeps its levels (turn off the export on the "${source}" entry, use fewer tiers, or upgrade to a version that takes more levels)`,
      );
      continue;
    }
    if (levels.has(name) || refused.has(name)) {
      errors.push(
        `two trees of discovery source "${source}" would both be Topology ${name}; only the first is written`,
      );
      continue;
    }
    const aliases = target.alias ? levelAliases(tierNames, all) : [];
    levels.set(
      name,
      all.map((nodeLabel, i) => (aliases[i] ? { nodeLabel, alias: aliases[i] } : { nodeLabel })),
    );
  }
  return { levels, refused, errors };
}

/**
 * Each level's alias (the hostname level gets none): its tierName, where
 * exactly one tierName gives the level, it is a valid name, no other level
 * has it and no level's nodeLabel is it (KAI's webhook refuses a repeated
 * alias and an alias equal to a nodeLabel).
 */
function levelAliases(
  tierNames: ReadonlyArray<ReadonlySet<string>>,
  nodeLabels: readonly string[],
): Array<string | undefined> {
  const candidates = tierNames
    .map((names) => (names.size === 1 ? [...names][0]! : undefined))
    .map((n) => (n !== undefined && isQualifiedName(n) ? n : undefined));
  return candidates.map((alias) =>
    alias !== undefined && candidates.filter((other) => other === alias).length === 1 && !nodeLabels.includes(alias)
      ? alias
      : undefined,
  );
}

/**
 * `hypernode-<source>-<tier keys>`, lowercased and cut to a valid name (readable rather than hashed; a clash is
 * reported).
 */
function objectName(source: string, tiers: readonly string[]): string {
  const raw = `hypernode-${source}-${tiers.join('-')}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, DNS1123_SUBDOMAIN_MAX_LENGTH)
    .replace(/[^a-z0-9]+$/, '');
  return isDNS1123Subdomain(raw) ? raw : `hypernode-${source}`;
}

/** The object for `name` with `levels`, owned by `source` through the network-topology-source label. */
export function topologyObject(
  kind: TopologyKind,
  version: string,
  source: string,
  name: string,
  levels: readonly TopologyLevel[],
): TopologyObject {
  return {
    apiVersion: `${kind.group}/${version}`,
    kind: TOPOLOGY_KIND,
    metadata: { name, labels: { [NETWORK_TOPOLOGY_SOURCE_LABEL]: source } },
    spec: { levels: levels.map((l) => ({ ...l })) },
  };
}

/** Why a change cannot be made at once; the object of ours it would replace or delete stays meanwhile. */
export type TopologyWait =
  /** Nodes of the source's topology lack the labels the new levels name. */
  | { readonly cause: 'labels'; readonly nodes: number }
  /** The source's latest snapshot was rejected (the rules it breaks, one per line). */
  | { readonly cause: 'rejected'; readonly violations: string }
  /** The source runs but has produced no snapshot since the controller started. */
  | { readonly cause: 'no-snapshot' };

export interface TopologyChange {
  /**
   * `update`: the same nodeLabels with other aliases, changed in place.
   * `held`: an object of ours being deleted that a finalizer still holds;
   * it is waited for, and with `levels` created anew once it is gone.
   */
  readonly action: 'create' | 'replace' | 'update' | 'delete' | 'held';
  readonly name: string;
  /** The levels after the change (absent for a delete). */
  readonly levels?: readonly TopologyLevel[];
  /** The levels before (absent for a create). */
  readonly previous?: readonly TopologyLevel[];
  /** The existing object's uid, for the delete's precondition. */
  readonly uid?: string;
  /** The existing object's resourceVersion, for the update's. */
  readonly resourceVersion?: string;
  /** Who holds the existing object (its finalizers): a delete of it waits for them. */
  readonly finalizers?: readonly string[];
  /** Set when the change cannot be made now: nothing is written, the existing object stays. */
  readonly waits?: TopologyWait;
}

/** The nodeLabels of levels, in order. */
export const labelsOf = (levels: readonly TopologyLevel[]) => levels.map((l) => l.nodeLabel);
export const levelsOf = (o: TopologyObject) => labelsOf(o.spec.levels);
/**
 * `zone=topo.example.com/zone`, or the bare nodeLabel where there is no alias: levels as plan and the log print them.
 */
export const describeLevels = (levels: readonly TopologyLevel[], separator = ', ') =>
  levels.map((l) => (l.alias ? `${l.nodeLabel} (alias ${l.alias})` : l.nodeLabel)).join(separator);

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
 * creates, replaces where the nodeLabels differ, updates where only the
 * aliases do (compared only where the served schema has them, `aliases`),
 * deletes of objects no longer asked for, and waits for objects already
 * being deleted. A name in `refused` (a tree that cannot be written) keeps
 * its object. `desired` undefined means the export is off: delete them all.
 */
export function topologyChanges(
  existing: readonly TopologyObject[],
  desired: ReadonlyMap<string, readonly TopologyLevel[]> | undefined,
  refused: ReadonlyMap<string, string> = new Map(),
  aliases = false,
): TopologyChange[] {
  const have = new Map(existing.map((o) => [o.metadata.name, o]));
  const out: TopologyChange[] = [];
  const about = (o: TopologyObject) => ({
    previous: o.spec.levels,
    ...(o.metadata.uid ? { uid: o.metadata.uid } : {}),
    ...(o.metadata.resourceVersion ? { resourceVersion: o.metadata.resourceVersion } : {}),
    ...(o.metadata.finalizers?.length ? { finalizers: o.metadata.finalizers } : {}),
  });
  const aliasesOf = (levels: readonly TopologyLevel[]) => levels.map((l) => l.alias ?? '').join('\n');
  for (const [name, levels] of desired ?? []) {
    const current = have.get(name);
    if (!current) out.push({ action: 'create', name, levels });
    else if (current.metadata.deletionTimestamp !== undefined)
      out.push({ action: 'held', name, levels, ...about(current) });
    else if (levelsOf(current).join('\n') !== labelsOf(levels).join('\n'))
      out.push({ action: 'replace', name, levels, ...about(current) });
    else if (aliases && aliasesOf(current.spec.levels) !== aliasesOf(levels))
      out.push({ action: 'update', name, levels, ...about(current) });
  }
  for (const [name, o] of have) {
    if (
      desired?.has(name) ||
      (desired !== undefined && refused.has(name) && o.metadata.deletionTimestamp === undefined)
    )
      continue;
    out.push({ action: o.metadata.deletionTimestamp !== undefined ? 'held' : 'delete', name, ...about(o) });
  }
  return out.sort((a, b) => compareBytes(a.name, b.name));
}
