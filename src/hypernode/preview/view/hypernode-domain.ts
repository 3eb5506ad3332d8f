// What formed a HyperNode's domain, said the way a person knows it: the
// Node label value its Nodes share (label sources write that label on the
// HyperNode, `<key>: <value>`), or the switch a fabric group is named after
// (fabric sources name a group `<fabric>-<tierName>-<lowest switch id>` and
// write no switch label, so the id is read back from the name). The HTML view
// labels its cells with it, where a hash name (`hypernode-datacenter-tier1-x2t29`)
// tells a person nothing. Go has no equivalent.

import { compareBytes } from '../../../util/compare-bytes.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type HyperNode } from '../../model/hypernode-types.ts';
import { labelValue } from '../../model/label-reads.ts';
import { NETWORK_TOPOLOGY_PROFILE_LABEL } from '../../discovery/label/profile/profile-config.ts';
import { UFM_FABRIC_LABEL } from '../../discovery/ufm/ufm-fabric-graph.ts';
import { LLDP_FABRIC_LABEL } from '../../discovery/lldp/lldp-discoverer.ts';

/** The labels a source writes to say which fabric a HyperNode belongs to. */
const FABRIC_LABELS = [UFM_FABRIC_LABEL, LLDP_FABRIC_LABEL];

/** Labels that say who made a HyperNode, not which Nodes it groups. */
const OWNERSHIP_LABELS: ReadonlySet<string> = new Set([NETWORK_TOPOLOGY_SOURCE_LABEL, NETWORK_TOPOLOGY_PROFILE_LABEL, ...FABRIC_LABELS]);

export interface HyperNodeDomain {
  /** The label value, or the switch id. */
  readonly value: string;
  /** The Node label whose value it is; absent for a fabric switch. */
  readonly labelKey?: string;
}

/**
 * What formed `hn`'s domain, or undefined when it does not say (a hand-made
 * HyperNode without labels, UFM's legacy `leaf-hn-<i>`):
 * - a label that is not an ownership label: its key and value. The label
 *   source writes exactly one; should someone add more by hand, the one whose
 *   key is the tierName (the list form names tiers after their keys) wins,
 *   else the byte-first key;
 * - else, for a HyperNode a source owns, a name `<fabric>-<tierName>-<id>`:
 *   the switch id (InfiniBand system GUID, LLDP chassis id or system name).
 *   The fabric is its fabric label when it has one; the graph source writes
 *   none, and then the first `-<tierName>-` in the name ends the fabric.
 */
export function hyperNodeDomain(hn: HyperNode): HyperNodeDomain | undefined {
  const labels = hn.metadata.labels ?? {};
  const tierName = hn.spec?.tierName;
  const keys = Object.keys(labels)
    .filter((k) => !OWNERSHIP_LABELS.has(k))
    .sort(compareBytes);
  const key = keys.find((k) => k === tierName) ?? keys[0];
  if (key !== undefined) return { labelKey: key, value: labels[key]! };
  if (!tierName || labelValue(labels, NETWORK_TOPOLOGY_SOURCE_LABEL) === undefined) return undefined;
  const name = hn.metadata.name;
  const fabric = FABRIC_LABELS.map((key) => labelValue(labels, key)).find((f) => f);
  const infix = `-${tierName}-`;
  const at = fabric !== undefined ? (name.startsWith(`${fabric}${infix}`) ? fabric.length : -1) : name.indexOf(infix, 1);
  const id = at < 0 ? '' : name.slice(at + infix.length);
  return id === '' ? undefined : { value: id };
}
