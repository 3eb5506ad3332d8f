// The HyperNode tree as Slurm sees a network: every HyperNode is a switch of
// the topology/tree plugin (its child switches and its Nodes), and the
// HyperNodes of the block tiers (NVLink domains by default) are the blocks
// of the topology/block plugin. `render -o slurm-topology-yaml|conf` writes
// it (slurm-files.ts). Like every export it is fed the sources' trees as the
// reconciler keeps them (reconcile/kept-topology.ts): a HyperNode whose
// delete the guard holds stays a switch until its Nodes are placed elsewhere,
// and never leaves a Node under two leaf switches. Ours, no Go counterpart.
//
// Slurm's tree plugin refuses a switch with both child switches and nodes
// (22.05 to 26.05 exit; 26.05's topology.yaml drops the children), which
// the label presets make by design (a leaf holding NVLink domains and the
// GB200 Nodes not in one yet). Such a HyperNode's Nodes go under a synthetic
// leaf switch of their own (slurm-names.ts), a child of the HyperNode's
// switch, so every Node keeps its place in the tree. Switch and block names
// are sanitised and shortened (slurm-names.ts); Node names, which Slurm
// takes as they are, are checked and refused with the offending name when
// they cannot be written.

import type { HyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import type { KeptTopology } from '../../reconcile/kept-topology.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { membersOf, resolveMembers } from '../../model/member-selector.ts';
import { treeOrder } from './slurm-blocks.ts';
import { SlurmNameRegistry, slurmName, slurmNodesLeafName, slurmSwitchName } from './slurm-names.ts';

export interface SlurmSwitch {
  readonly name: string;
  /** Child switch names (sorted). */
  readonly switches: readonly string[];
  /** Slurm node names directly under this switch (sorted). */
  readonly nodes: readonly string[];
}

export interface SlurmBlock {
  readonly name: string;
  /** Every Slurm node name under the block's HyperNode, at any depth (sorted). */
  readonly nodes: readonly string[];
}

export interface SlurmTopology {
  /** Lowest tier first, then by name; a synthetic leaf just before its HyperNode's switch. */
  readonly switches: readonly SlurmSwitch[];
  /** In tree order (slurm-blocks.ts), so the blocks of one parent are neighbours. */
  readonly blocks: readonly SlurmBlock[];
  /**
   * The base block size the operator stated; BlockSizes follows from it and the blocks (slurm-blocks.ts) where blocks
   * are written.
   */
  readonly blockSize: number | undefined;
}

export interface SlurmTopologyOptions {
  /** tierNames whose HyperNodes are blocks. */
  readonly blockTiers: readonly string[];
  /** The base block size the operator states (`--slurm-block-size`); undefined: the smallest block's. */
  readonly blockSize?: number | undefined;
  /** The Slurm node name of a Node (its host name); the Node name when there is no mapping. */
  readonly hostName: (nodeName: string) => string;
}

function checkedHostName(host: string, node: string): string {
  if (host === '' || slurmName(host) !== host) {
    throw new Error(
      `Node ${node} maps to host name ${JSON.stringify(host)}, which Slurm cannot read in a hostlist (allowed: letters, digits, ".", "_", "-")`,
    );
  }
  return host;
}

/**
 * Every tree's HyperNodes by tier, then name, so the file does not depend on the order of the sources; a name two
 * trees hold (a held delete of one source that another now wants) is one switch, the first source's.
 */
function treesAsOne(trees: readonly KeptTopology[]): HyperNode[] {
  const byName = new Map<string, HyperNode>();
  for (const tree of trees)
    for (const hn of tree.hyperNodes) if (!byName.has(hn.metadata.name)) byName.set(hn.metadata.name, hn);
  return [...byName.values()].sort(
    (a, b) => (a.spec?.tier ?? 0) - (b.spec?.tier ?? 0) || compareBytes(a.metadata.name, b.metadata.name),
  );
}

/** A HyperNode's direct child HyperNodes and Slurm node names. */
interface Direct {
  readonly children: readonly string[];
  readonly nodes: readonly string[];
}

function directMembers(
  hyperNodes: readonly HyperNode[],
  nodes: readonly NodeMeta[],
  host: (node: string) => string,
): Map<string, Direct> {
  const names = new Set(hyperNodes.map((hn) => hn.metadata.name));
  const direct = new Map<string, Direct>();
  for (const hn of hyperNodes) {
    const children = new Set<string>();
    const members = new Set<string>();
    for (const m of membersOf(hn)) {
      if (m.type === 'HyperNode')
        for (const c of resolveMembers(m.selector, hyperNodes))
          if (c !== hn.metadata.name && names.has(c)) children.add(c);
      if (m.type === 'Node') for (const n of resolveMembers(m.selector, nodes)) members.add(host(n));
    }
    direct.set(hn.metadata.name, { children: [...children], nodes: [...members].sort(compareBytes) });
  }
  return direct;
}

/** Every Slurm node name under `name`, at any depth. */
function nodesUnder(
  direct: ReadonlyMap<string, Direct>,
  name: string,
  seen = new Set<string>(),
  out = new Set<string>(),
): Set<string> {
  if (seen.has(name)) return out;
  seen.add(name);
  const d = direct.get(name)!;
  for (const n of d.nodes) out.add(n);
  for (const c of d.children) nodesUnder(direct, c, seen, out);
  return out;
}

/**
 * The sources' trees, as kept, as Slurm switches and blocks; throws when two names collide in Slurm or a host name
 * cannot be written.
 */
export function slurmTopology(
  trees: readonly KeptTopology[],
  nodes: readonly NodeMeta[],
  opts: SlurmTopologyOptions,
): SlurmTopology {
  const hyperNodes = treesAsOne(trees);
  const hosts = new Map<string, string>();
  const host = (node: string) => {
    let h = hosts.get(node);
    if (h === undefined) hosts.set(node, (h = checkedHostName(opts.hostName(node), node)));
    return h;
  };
  const direct = directMembers(hyperNodes, nodes, host);
  const registry = new SlurmNameRegistry();
  const switchNames = new Map(
    hyperNodes.map((hn) => [
      hn.metadata.name,
      registry.claim(slurmSwitchName(hn.metadata.name), `HyperNode ${hn.metadata.name}`),
    ]),
  );
  const switches = hyperNodes.flatMap((hn): SlurmSwitch[] => {
    const name = hn.metadata.name;
    const d = direct.get(name)!;
    const children = d.children.map((c) => switchNames.get(c)!);
    if (children.length === 0 || d.nodes.length === 0)
      return [{ name: switchNames.get(name)!, switches: children.sort(compareBytes), nodes: d.nodes }];
    const leaf = registry.claim(slurmNodesLeafName(name), `the Nodes of HyperNode ${name}`);
    return [
      { name: leaf, switches: [], nodes: d.nodes },
      { name: switchNames.get(name)!, switches: [...children, leaf].sort(compareBytes), nodes: [] },
    ];
  });
  const blockTiers = new Set(opts.blockTiers);
  const byName = new Map(hyperNodes.map((hn) => [hn.metadata.name, hn]));
  const blocks = treeOrder(new Map([...direct].map(([name, d]) => [name, d.children])))
    .filter((name) => {
      const tierName = byName.get(name)!.spec?.tierName;
      return tierName !== undefined && blockTiers.has(tierName);
    })
    .map((name) => ({ name: switchNames.get(name)!, nodes: [...nodesUnder(direct, name)].sort(compareBytes) }))
    // A block without nodes would only make Slurm complain.
    .filter((b) => b.nodes.length > 0);
  return { switches, blocks, blockSize: opts.blockSize };
}
