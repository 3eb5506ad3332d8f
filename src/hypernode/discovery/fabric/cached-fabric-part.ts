// One fabric's HyperNodes as the cache holds them, for a source whose fabric
// failed this run and that has no result of its own yet (it just started):
// the fabric's share goes into the snapshot unchanged, so a fabric that does
// not answer never loses its HyperNodes while the other fabrics update theirs.

import type { Informer } from '../../../kube/types.ts';
import type { Snapshot } from '../../api/interface.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type DiscoveredHyperNode, type HyperNode } from '../../api/types.ts';

/** The HyperNodes labelled with `source` and `fabricLabel: fabric`, as discovered HyperNodes. */
export function cachedFabricPart(hyperNodes: Informer<HyperNode>, source: string, fabricLabel: string, fabric: string): Snapshot {
  const labels = { [NETWORK_TOPOLOGY_SOURCE_LABEL]: source, [fabricLabel]: fabric };
  return hyperNodes.list(labels).flatMap((hn): DiscoveredHyperNode[] =>
    hn.spec
      ? [
          {
            metadata: { name: hn.metadata.name, labels: { ...labels } },
            spec: { tier: hn.spec.tier, ...(hn.spec.tierName === undefined ? {} : { tierName: hn.spec.tierName }), members: (hn.spec.members ?? []).filter((m) => m.selector) as DiscoveredHyperNode['spec']['members'] },
          },
        ]
      : [],
  );
}
