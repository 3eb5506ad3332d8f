// The discoverer registry: source key (as written in the ConfigMap's
// `networkTopologyDiscovery[].source`) → factory. Mirrors the registry in
// pkg/controllers/hypernode/api/interface.go, but is built
// at compile time instead of through init()-time global registration, and a
// test passes its own registry instead of mutating a process-global one.

import type { DiscovererFactory } from '../model/contracts.ts';
import {
  GRAPH_SOURCE,
  IBNETDISCOVER_SOURCE,
  LABEL_SOURCE,
  LLDP_SOURCE,
  UFM_SOURCE,
  type SourceKey,
} from '../model/hypernode-labels.ts';
import { closestWord } from '../../util/closest-word.ts';
import { graphDiscovererFactory } from './graph/graph-discoverer.ts';
import { labelDiscovererFactory } from './label/label-discoverer.ts';
import { ufmDiscovererFactory } from './ufm/ufm-discoverer.ts';
import { lldpDiscovererFactory } from './lldp/lldp-discoverer.ts';
import { ibnetdiscoverDiscovererFactory } from './ibnetdiscover/ibnetdiscover-discoverer.ts';

export type DiscovererRegistry = ReadonlyMap<string, DiscovererFactory>;

/** Source keys are exact and case-sensitive: `Label` or `roce` are not registered. */
export function newDiscovererRegistry(factories: Record<string, DiscovererFactory>): DiscovererRegistry {
  return new Map(Object.entries(factories));
}

/** The factory for `source`, or the error Go reports for an unregistered key. */
export function lookupDiscoverer(registry: DiscovererRegistry, source: string): DiscovererFactory {
  const factory = registry.get(source);
  if (!factory) throw new Error(`unsupported discoverer type: ${source} (${suggestion(registry, source)})`);
  return factory;
}

/** Go's text is followed by what to write instead: the near miss (`Label`, `ufn`) and the registered keys. */
function suggestion(registry: DiscovererRegistry, source: string): string {
  const known = [...registry.keys()].sort();
  const near = closestWord(source, known);
  return `${near === undefined ? '' : `did you mean "${near}"? `}the sources are ${known.join(', ')}`;
}

/**
 * What the controller runs with: the sources Volcano ships (`roce` is documented but not implemented), the static
 * fabric graph, `lldp` (Ethernet/RoCE fabrics over SNMP) and `ibnetdiscover` (InfiniBand without UFM).
 */
const BUILTIN_FACTORIES: Record<SourceKey, DiscovererFactory> = {
  [LABEL_SOURCE]: labelDiscovererFactory,
  [UFM_SOURCE]: ufmDiscovererFactory,
  [GRAPH_SOURCE]: graphDiscovererFactory,
  [LLDP_SOURCE]: lldpDiscovererFactory,
  [IBNETDISCOVER_SOURCE]: ibnetdiscoverDiscovererFactory,
};
export const builtinDiscoverers: DiscovererRegistry = newDiscovererRegistry(BUILTIN_FACTORIES);
