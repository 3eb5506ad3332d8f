// UFM ports → the snapshot of `ufm` HyperNodes: leaf
// switches that share a compute node are one group `leaf-hn-<i>`, and one
// `spine-hn` spans all groups. Mirrors the grouping in
// pkg/controllers/hypernode/discovery/ufm/ufm.go.

import type { Logger } from '../../../log.ts';
import { build, buildMembers } from '../../model/hypernode-builders.ts';
import type { Snapshot } from '../../model/contracts.ts';
import type { UfmPort } from './legacy-ports.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, UFM_SOURCE } from '../../model/hypernode-labels.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';

export const COMPUTER_PORT = 'Computer';
const LABELS = { [NETWORK_TOPOLOGY_SOURCE_LABEL]: UFM_SOURCE };

export const isComputerPort = (p: UfmPort) => p.description.includes(COMPUTER_PORT);

/** The host names of the Computer ports: the Node names the leaf HyperNodes list as members. */
export function computerHosts(ports: readonly UfmPort[]): string[] {
  return ports.filter(isComputerPort).map((p) => p.system_name);
}

interface LeafGroup {
  readonly leaves: readonly string[];
  readonly nodes: ReadonlySet<string>;
}

/** Connected leaf groups (their leaf switches and nodes), in the order of each group's smallest leaf name. */
function leafGroups(ports: readonly UfmPort[]): LeafGroup[] {
  const leafNodes = new Map<string, Set<string>>();
  const nodeLeaves = new Map<string, string[]>();
  for (const p of ports) {
    if (!isComputerPort(p)) continue;
    if (!leafNodes.has(p.peer_node_name)) leafNodes.set(p.peer_node_name, new Set());
    leafNodes.get(p.peer_node_name)!.add(p.system_name);
    if (!nodeLeaves.has(p.system_name)) nodeLeaves.set(p.system_name, []);
    nodeLeaves.get(p.system_name)!.push(p.peer_node_name);
  }
  const assigned = new Set<string>();
  const groups: LeafGroup[] = [];
  for (const leaf of [...leafNodes.keys()].sort(compareBytes)) {
    if (assigned.has(leaf)) continue;
    const nodes = new Set<string>();
    const leaves: string[] = [];
    const todo = [leaf];
    assigned.add(leaf);
    while (todo.length > 0) {
      const current = todo.pop()!;
      leaves.push(current);
      for (const node of leafNodes.get(current)!) {
        nodes.add(node);
        for (const next of nodeLeaves.get(node)!) {
          if (!assigned.has(next)) {
            assigned.add(next);
            todo.push(next);
          }
        }
      }
    }
    groups.push({ leaves, nodes });
  }
  return groups;
}

/** Leaf HyperNodes in group order, then `spine-hn`; empty when no Computer port exists. */
export function buildSnapshot(ports: readonly UfmPort[], logger: Logger): Snapshot {
  return legacyTree(ports, logger).snapshot;
}

/** The snapshot and, for fabric health, the leaf HyperNode of each leaf switch (by its name). */
export function legacyTree(
  ports: readonly UfmPort[],
  logger: Logger,
): { snapshot: Snapshot; switchHyperNodes: Map<string, string> } {
  const switchHyperNodes = new Map<string, string>();
  const leaves = leafGroups(ports).map(({ leaves: switches, nodes }, i) => {
    const name = `leaf-hn-${i}`;
    for (const s of switches) switchHyperNodes.set(s, name);
    logger.v(4).info('Created leaf HyperNode', { name, nodeCount: nodes.size });
    return build(name, 1, buildMembers([...nodes], 'Node'), LABELS);
  });
  if (leaves.length === 0) return { snapshot: [], switchHyperNodes };
  logger.v(4).info('Created spine HyperNode', { leafCount: leaves.length });
  const spine = build(
    'spine-hn',
    2,
    buildMembers(
      leaves.map((l) => l.metadata.name),
      'HyperNode',
    ),
    LABELS,
  );
  return { snapshot: [...leaves, spine], switchHyperNodes };
}
