// Where the Node labels that hold a fabric's host names are named: each fabric
// source that maps its hosts to Nodes through a label says which in its
// `config.hostMapping.nodeLabel`. An output that names machines as the fabrics
// do (Slurm's files) reads them here, through the sources' configuration,
// never a source's fabric layer.

import { entryOf, type DiscoveryConfig } from '../config/loader.ts';
import { parseHostMapping } from './fabric/host-mapping.ts';

/**
 * The Node labels whose values are a fabric's host names (`config.hostMapping.nodeLabel` of each enabled source that
 * maps its hosts through one), in the configuration's order and each once. Empty when every source's hosts are Node
 * names.
 */
export function hostNameLabels(config: DiscoveryConfig): string[] {
  const labels: string[] = [];
  for (const result of config.bySource.values()) {
    const raw = entryOf(result)?.config?.hostMapping;
    const label = raw === undefined ? undefined : parseHostMapping(raw).nodeLabel;
    if (label !== undefined && !labels.includes(label)) labels.push(label);
  }
  return labels;
}
