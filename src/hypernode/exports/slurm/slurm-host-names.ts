// Slurm knows a machine by its host name; Kubernetes by its Node name. Where a
// Node label holds the host name (a fabric source's `hostMapping.nodeLabel`,
// which the command that writes the files reads from the configuration and
// hands in), Slurm gets the label's value back; a Node without one is left to
// the caller, which writes its Node name (a mapping's lowercasing and suffix
// stripping cannot be undone, and Slurm's NodeName is the short name anyway)
// and says so. The export knows labels, never a source. Ours, no Go
// counterpart.

import type { NodeMeta } from '../../model/hypernode-types.ts';
import { labelValue } from '../../model/label-reads.ts';

/**
 * Node name → Slurm node name: the value of the first of `hostLabels` a Node carries (several fabric sources may each
 * name theirs), undefined when it carries none.
 */
export function slurmHostNames(
  hostLabels: readonly string[],
  nodes: readonly NodeMeta[],
): (nodeName: string) => string | undefined {
  const hosts = new Map<string, string>();
  for (const n of nodes) {
    for (const label of hostLabels) {
      const value = labelValue(n.metadata.labels, label);
      if (!value) continue;
      hosts.set(n.metadata.name, value);
      break;
    }
  }
  return (name) => hosts.get(name);
}
