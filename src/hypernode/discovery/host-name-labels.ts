// Where the Node labels that hold a fabric's host names are named: each fabric
// source that maps its hosts to Nodes through a label says which in its
// `config.hostMapping.nodeLabel`. An output that names machines as the fabrics
// do (Slurm's files) reads them here, through the sources' configuration,
// never a source's fabric layer.

import { wrapError } from '../../util/error-message.ts';
import { entryOf, type DiscoveryConfig } from '../config/loader.ts';
import { parseHostMapping, type HostMapping } from './fabric/host-mapping.ts';

/**
 * The Node labels whose values are a fabric's host names (`config.hostMapping.nodeLabel` of each enabled source that
 * maps its hosts through one), in the configuration's order and each once. Empty when every source's hosts are Node
 * names. Throws naming the source and field of a mapping that does not parse: its hosts' names would be unknown.
 */
export function hostNameLabels(config: DiscoveryConfig): string[] {
  const labels: string[] = [];
  for (const [source, result] of config.bySource) {
    const raw = entryOf(result)?.config?.hostMapping;
    if (raw === undefined) continue;
    let mapping: HostMapping;
    try {
      mapping = parseHostMapping(raw);
    } catch (err) {
      throw wrapError(source, err);
    }
    if (mapping.nodeLabel !== undefined && !labels.includes(mapping.nodeLabel)) labels.push(mapping.nodeLabel);
  }
  return labels;
}
