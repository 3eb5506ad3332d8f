// The one input of every export (exports/: Node labels, Kueue and KAI
// Topology objects, Slurm's files; the topology page's view too; render's
// preview and plan's reconciler build the same): a source's tree as the
// reconciler keeps it in the cluster, with what is held and why. It stays in
// the reconcile core, which builds it, and the exports above import it
// (docs/design.md §1.1). That is the accepted snapshot plus the
// HyperNodes whose delete the mass-delete guard holds, so an export never
// removes what the guard keeps (an empty or partial snapshot the guard holds
// deletes no Topology object and strips no Node label); the Nodes the label
// memory keeps in place are already in it, where they were. A held HyperNode
// all of whose Nodes the snapshot places elsewhere (a relabel that moved
// them, a level added and then labelled) is left out: the Nodes have moved,
// and the exports follow them, while the guard still keeps the object. Ours,
// no Go counterpart.

import type { HeldNode } from '../model/contracts.ts';
import type { DiscoveredHyperNode, DiscoveredMember, HyperNode } from '../model/hypernode-types.ts';

export interface KeptTopology {
  readonly source: string;
  /** The source's HyperNodes as they stand once the round is written: desired, then those whose delete is held. */
  readonly hyperNodes: readonly DiscoveredHyperNode[];
  /** The names the mass-delete guard keeps, with the message saying why and how to allow them. */
  readonly heldDeletes: { readonly names: ReadonlySet<string>; readonly why: string } | undefined;
  /** The Nodes the label memory keeps in place, and until when. */
  readonly heldNodes: readonly HeldNode[];
}

/**
 * The tree as kept: `desired` (as written), then each name of `held` as the
 * cluster holds it (`cached`): its name, labels, annotations and spec, its
 * members those with a selector; a held one whose Nodes `desired` all places
 * is left out.
 */
export function keptHyperNodes(
  desired: Iterable<DiscoveredHyperNode>,
  held: Iterable<string>,
  cached: (name: string) => HyperNode | undefined,
): DiscoveredHyperNode[] {
  const out = [...desired];
  let placed: Set<string> | undefined;
  for (const name of held) {
    placed ??= new Set(out.flatMap((hn) => exactNames(hn, 'Node')));
    const hn = cached(name);
    if (!hn?.spec || [...nodesBelow(hn, cached, new Set())].every((n) => placed!.has(n))) continue;
    const { name: _, labels, annotations } = hn.metadata;
    const members = (hn.spec.members ?? []).filter((m): m is DiscoveredMember => m.selector !== undefined);
    out.push({
      apiVersion: hn.apiVersion,
      kind: hn.kind,
      metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
      spec: { ...hn.spec, members },
    });
  }
  return out;
}

/** The exact names of `type` among a HyperNode's members. */
function exactNames(hn: HyperNode, type: 'Node' | 'HyperNode'): string[] {
  return (hn.spec?.members ?? []).flatMap((m) =>
    m.type === type && m.selector?.exactMatch ? [m.selector.exactMatch.name] : [],
  );
}

/** The Nodes below a cached HyperNode, through its child HyperNodes as the cache holds them. */
function* nodesBelow(
  hn: HyperNode,
  cached: (name: string) => HyperNode | undefined,
  path: Set<string>,
): Generator<string> {
  path.add(hn.metadata.name);
  yield* exactNames(hn, 'Node');
  for (const child of exactNames(hn, 'HyperNode')) {
    const c = cached(child);
    if (c && !path.has(child)) yield* nodesBelow(c, cached, path);
  }
}
