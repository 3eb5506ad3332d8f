// A source's topology as the running controller published it: the HyperNodes
// of that source in the cluster, handed on as its one snapshot. `plan` plans
// a fabric source this way when the operator gave it no capture and did not
// let it ask the fabric (docs/previewing-changes.md): the source then changes
// nothing, and what follows the topology (Node labels, Kueue and KAI Topology
// objects) is planned over what is there. The entry's configuration is still
// checked, by the source's own factory built to read nothing. The same
// HyperNodes are the trees an export drawn from a live cluster follows
// (`kubectl hypernode tree -o slurm-topology-conf`).

import { Channel } from '../../util/channel.ts';
import type { Discoverer, DiscovererFactory, Snapshot } from '../model/contracts.ts';
import type { DiscoveredHyperNode, HyperNode } from '../model/hypernode-types.ts';
import { isOwnedBy, sourceOf } from '../model/hypernode-labels.ts';
import { membersOf } from '../model/member-selector.ts';
import type { KeptTopology } from '../reconcile/kept-topology.ts';

/** What the source would publish to keep `hn` as it is: the object without its status and server fields. */
function asDiscovered(hn: HyperNode): DiscoveredHyperNode {
  const { name, labels, annotations } = hn.metadata;
  return {
    apiVersion: hn.apiVersion,
    kind: hn.kind,
    metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: hn.spec,
  } as DiscoveredHyperNode;
}

/**
 * A HyperNode of the cluster with a spec and a selector on every member, as a discoverer builds one: a hand-made one
 * may lack either, and then names nothing.
 */
export function withSpec(hn: HyperNode): DiscoveredHyperNode {
  const spec = hn.spec ?? { tier: 0 };
  const members = membersOf(hn).flatMap((m) => (m.selector ? [{ type: m.type, selector: m.selector }] : []));
  return { ...hn, spec: { ...spec, members } };
}

/**
 * The trees the running controller keeps, as the cluster holds them: one per source label, in the order the sources
 * first appear, and the HyperNodes of no source (made by hand) as one more, its source ''. What the guard holds, and
 * why, is not published, so none is said.
 */
export function publishedTrees(hyperNodes: readonly HyperNode[]): KeptTopology[] {
  const bySource = new Map<string, DiscoveredHyperNode[]>();
  for (const hn of hyperNodes) {
    const source = sourceOf(hn) ?? '';
    const tree = bySource.get(source) ?? [];
    if (tree.length === 0) bySource.set(source, tree);
    tree.push(withSpec(hn));
  }
  return [...bySource].map(([source, tree]) => ({ source, hyperNodes: tree, heldDeletes: undefined, heldNodes: [] }));
}

/**
 * A factory whose discoverer publishes, once, the HyperNodes `source` owns in
 * the cache it is given; `check` builds the source's real discoverer (never
 * started) so a bad entry fails as it would.
 */
export function publishedTopology(source: string, check: DiscovererFactory): DiscovererFactory {
  return async (entry, opts) => {
    await (await check(entry, opts)).stop();
    const snapshot: Snapshot = opts.hyperNodes
      .list()
      .filter((hn) => isOwnedBy(hn, source))
      .map(asDiscovered);
    const out = new Channel<Snapshot>(1);
    const discoverer: Discoverer = {
      async start() {
        await out.send(snapshot);
        return out;
      },
      async stop() {
        out.close();
      },
      resultSynced() {},
    };
    return discoverer;
  };
}
