// What formed a HyperNode's domain, said the way a person knows it: the
// Node label value its Nodes share (label sources write that label on the
// HyperNode, `<key>: <value>`), or the switches of a fabric group: their names
// as the fabric layer annotates them (`sw-leaf-01 +3`), else, for a HyperNode
// written before that annotation existed, the switch id read back from its
// name `<fabric>-<tierName>-<lowest switch id>`. The HTML view
// labels its cells with it, where a hash name (`hypernode-datacenter-tier1-x2t29`)
// tells a person nothing. Go has no equivalent.

import { compareBytes } from '../../../util/compare-bytes.ts';
import type { HyperNode } from '../../model/hypernode-types.ts';
import { FABRIC_SWITCHES_ANNOTATION, fabricOf, OWNERSHIP_LABELS, sourceOf } from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';

export interface HyperNodeDomain {
  /** The label value, or the switch names (else the switch id). */
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
 * - else, for a HyperNode a source owns, its FABRIC_SWITCHES_ANNOTATION;
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
  if (sourceOf(hn) === undefined) return undefined;
  const switches = labelValue(hn.metadata.annotations, FABRIC_SWITCHES_ANNOTATION);
  if (switches) return { value: switches };
  if (!tierName) return undefined;
  const name = hn.metadata.name;
  const fabric = fabricOf(hn)?.fabric;
  const infix = `-${tierName}-`;
  const at =
    fabric !== undefined ? (name.startsWith(`${fabric}${infix}`) ? fabric.length : -1) : name.indexOf(infix, 1);
  const id = at < 0 ? '' : name.slice(at + infix.length);
  return id === '' ? undefined : { value: id };
}
