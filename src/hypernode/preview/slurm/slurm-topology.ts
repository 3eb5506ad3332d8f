// The HyperNode tree as Slurm sees a network: every HyperNode is a switch of
// the topology/tree plugin (its child switches and its Nodes), and the
// HyperNodes of the block tiers (NVLink domains by default) are the blocks
// of the topology/block plugin. `render -o slurm-topology-yaml|conf` writes
// it (slurm-files.ts). Ours, no Go counterpart.
//
// Slurm names must survive its hostlist parser, so switch and block names
// are sanitised (slurmName) and Node names, which Slurm takes as they are,
// are checked and refused with the offending name when they cannot be
// written.

import type { HyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { membersOf, resolveMembers } from '../../model/member-selector.ts';

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
  /** Lowest tier first, then by name. */
  readonly switches: readonly SlurmSwitch[];
  readonly blocks: readonly SlurmBlock[];
}

export interface SlurmTopologyOptions {
  /** tierNames whose HyperNodes are blocks. */
  readonly blockTiers: readonly string[];
  /** The Slurm node name of a Node (its host name); the Node name when there is no mapping. */
  readonly hostName: (nodeName: string) => string;
}

/** Characters a name keeps; anything else would be read as hostlist syntax, a separator or a comment by Slurm. */
const SLURM_NAME_CHAR = /[A-Za-z0-9._-]/;

/** A switch or block name Slurm parses back unchanged: other characters become `_`. */
export function slurmName(name: string): string {
  return [...name].map((c) => (SLURM_NAME_CHAR.test(c) ? c : '_')).join('') || '_';
}

function checkedHostName(host: string, node: string): string {
  if (host === '' || slurmName(host) !== host) {
    throw new Error(`Node ${node} maps to host name ${JSON.stringify(host)}, which Slurm cannot read in a hostlist (allowed: letters, digits, ".", "_", "-")`);
  }
  return host;
}

/** The HyperNode tree as Slurm switches and blocks; throws when two HyperNodes sanitise to one name or a host name cannot be written. */
export function slurmTopology(hyperNodes: readonly HyperNode[], nodes: readonly NodeMeta[], opts: SlurmTopologyOptions): SlurmTopology {
  const byName = new Map(hyperNodes.map((hn) => [hn.metadata.name, hn]));
  const slurmNames = new Map<string, string>();
  const taken = new Map<string, string>();
  for (const name of byName.keys()) {
    const safe = slurmName(name);
    const other = taken.get(safe);
    if (other !== undefined) throw new Error(`HyperNodes ${other} and ${name} would both be named ${safe} in Slurm`);
    taken.set(safe, name);
    slurmNames.set(name, safe);
  }
  const hosts = new Map<string, string>();
  const host = (node: string) => {
    let h = hosts.get(node);
    if (h === undefined) hosts.set(node, (h = checkedHostName(opts.hostName(node), node)));
    return h;
  };
  const direct = new Map<string, { children: string[]; nodes: string[] }>();
  for (const hn of byName.values()) {
    const children = new Set<string>();
    const members = new Set<string>();
    for (const m of membersOf(hn)) {
      if (m.type === 'HyperNode') for (const c of resolveMembers(m.selector, hyperNodes)) if (c !== hn.metadata.name && byName.has(c)) children.add(c);
      if (m.type === 'Node') for (const n of resolveMembers(m.selector, nodes)) members.add(host(n));
    }
    direct.set(hn.metadata.name, { children: [...children], nodes: [...members] });
  }
  const sorted = [...byName.values()].sort((a, b) => (a.spec?.tier ?? 0) - (b.spec?.tier ?? 0) || compareBytes(a.metadata.name, b.metadata.name));
  const switches = sorted.map((hn) => {
    const d = direct.get(hn.metadata.name)!;
    return { name: slurmNames.get(hn.metadata.name)!, switches: d.children.map((c) => slurmNames.get(c)!).sort(compareBytes), nodes: d.nodes.sort(compareBytes) };
  });
  const under = (name: string, seen: Set<string>, out: Set<string>) => {
    if (seen.has(name)) return;
    seen.add(name);
    const d = direct.get(name)!;
    for (const n of d.nodes) out.add(n);
    for (const c of d.children) under(c, seen, out);
  };
  const blockTiers = new Set(opts.blockTiers);
  const blocks = sorted
    .filter((hn) => hn.spec?.tierName !== undefined && blockTiers.has(hn.spec.tierName))
    .map((hn) => {
      const all = new Set<string>();
      under(hn.metadata.name, new Set(), all);
      return { name: slurmNames.get(hn.metadata.name)!, nodes: [...all].sort(compareBytes) };
    })
    // A block without nodes would only make Slurm complain.
    .filter((b) => b.nodes.length > 0);
  return { switches, blocks };
}
