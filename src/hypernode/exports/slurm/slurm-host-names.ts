// Slurm knows a machine by its host name; Kubernetes by its Node name. Where a
// Node label holds the host name (the ufm source's `hostMapping.nodeLabel`,
// which the command that writes the files reads from the configuration and
// hands in), Slurm gets the label's value back; otherwise the Node name is the
// host name (a mapping's lowercasing and suffix stripping cannot be undone,
// and Slurm's NodeName is the short name anyway). The export knows a label,
// never a source. Ours, no Go counterpart.

import type { NodeMeta } from '../../model/hypernode-types.ts';
import { labelValue } from '../../model/label-reads.ts';

/** Node name → Slurm node name: the value of `hostLabel` where a Node carries it, else the Node name. */
export function slurmHostNames(
  hostLabel: string | undefined,
  nodes: readonly NodeMeta[],
): (nodeName: string) => string {
  if (hostLabel === undefined) return (name) => name;
  const hosts = new Map<string, string>();
  for (const n of nodes) {
    const value = labelValue(n.metadata.labels, hostLabel);
    if (value) hosts.set(n.metadata.name, value);
  }
  return (name) => hosts.get(name) ?? name;
}
