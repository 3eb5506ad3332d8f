// Grouping for the list form, as Volcano's released controller does it
// (discoverHyperNodes in pkg/controllers/hypernode/discovery/label/label.go):
// a Node climbs its type's tiers until a label is missing (a partial chain),
// and a (label key, value) pair is one HyperNode shared by every list type
// of the run, whatever its parents.

import type { NodeMeta } from '../../../model/hypernode-types.ts';
import { labelValue } from '../../../model/label-reads.ts';
import type { NameBook } from '../name-book.ts';
import type { TopologyType } from '../label-config.ts';
import type { Group } from '../label-group.ts';

/** Walks the Node up a legacy list's tiers (Go's partial chains); true when it joined a tier-1 group. */
export function addToList(
  node: NodeMeta,
  type: TopologyType,
  groups: Map<string, Group>,
  byLabel: Map<string, string>,
  names: NameBook,
): boolean {
  let child = node.metadata.name;
  let covered = false;
  for (const [i, key] of type.tiers.entries()) {
    const value = labelValue(node.metadata.labels, key);
    if (value === undefined) break;
    const labelId = JSON.stringify([key, value]);
    const tier = i + 1;
    const name = byLabel.get(labelId) ?? names.choose(groups, type.name, key, value, tier);
    let group = groups.get(name);
    if (!group) {
      group = { tier, tierName: key, members: new Set(), labels: { [key]: value } };
      groups.set(name, group);
    }
    group.members.add(child);
    byLabel.set(labelId, name);
    child = name;
    covered = true;
  }
  return covered;
}
