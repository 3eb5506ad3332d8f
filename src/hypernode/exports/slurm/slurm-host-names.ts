// Slurm knows a machine by its host name; Kubernetes by its Node name, which
// the UFM source reaches from UFM's host names through `config.hostMapping`
// (read with the fabric layer's decoder, as the source reads it).
// Where that mapping looks Nodes up by a label (`hostMapping.nodeLabel`), the
// label's value is the host name and Slurm gets it back; otherwise the Node
// name is the host name (lowercasing and suffix stripping cannot be undone,
// and Slurm's NodeName is the short name anyway). Ours, no Go counterpart.

import type { NodeMeta } from '../../model/hypernode-types.ts';
import { entryOf, sourceEntry, type DiscoveryConfig } from '../../config/loader.ts';
import { parseHostMapping } from '../../discovery/fabric/host-mapping.ts';
import { UFM_SOURCE } from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';

/** Node name → Slurm node name for the enabled UFM sources' host mappings (identity where none applies). */
export function slurmHostNames(config: DiscoveryConfig, nodes: readonly NodeMeta[]): (nodeName: string) => string {
  const entry = entryOf(sourceEntry(config, UFM_SOURCE));
  const label = entry ? parseHostMapping(entry.config?.hostMapping).nodeLabel : undefined;
  if (label === undefined) return (name) => name;
  const hosts = new Map<string, string>();
  for (const n of nodes) {
    const value = labelValue(n.metadata.labels, label);
    if (value) hosts.set(n.metadata.name, value);
  }
  return (name) => hosts.get(name) ?? name;
}
