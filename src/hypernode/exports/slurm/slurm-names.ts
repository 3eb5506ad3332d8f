// The names HyperNodes get as Slurm switches and blocks. Slurm reads them with
// its hostlist parser and refuses a switch name over 64 characters
// (topology.conf(5), topology.yaml(5); fatal on Slurm 26.05), while graph and
// lldp HyperNode names reach about 110. So a name is sanitised, then
// shortened with a hash of the whole name; every name must stay unique,
// including the synthetic leaf switch that holds the Nodes of a HyperNode
// with child HyperNodes too (slurm-topology.ts). Ours, no Go counterpart.

import { createHash } from 'node:crypto';

/** The longest switch name Slurm accepts. */
const SLURM_NAME_MAX = 64;
/** Hex digits of the SHA-256 a shortened name ends with. */
const HASH_HEX_DIGITS = 10;
/** What the synthetic leaf switch's name adds to its HyperNode's switch name. */
const SLURM_NODES_LEAF_SUFFIX = '.nodes';

/** Characters a name keeps; anything else would be read as hostlist syntax, a separator or a comment by Slurm. */
const SLURM_NAME_CHAR = /[A-Za-z0-9._-]/;

/** A switch or block name Slurm parses back unchanged: other characters become `_`. */
export function slurmName(name: string): string {
  return [...name].map((c) => (SLURM_NAME_CHAR.test(c) ? c : '_')).join('') || '_';
}

/**
 * `name` when it fits in `max` characters; otherwise its head, `-` and the
 * first hex digits of the SHA-256 of the whole name, `max` characters in all.
 * The head keeps the name readable, the hash keeps names that share a long
 * head apart.
 */
function shortened(name: string, max: number): string {
  if (name.length <= max) return name;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_HEX_DIGITS);
  return `${name.slice(0, max - HASH_HEX_DIGITS - 1)}-${hash}`;
}

/** The switch (and block) name of a HyperNode: sanitised, at most 64 characters. */
export function slurmSwitchName(hyperNode: string): string {
  return shortened(slurmName(hyperNode), SLURM_NAME_MAX);
}

/**
 * The synthetic leaf switch holding the Nodes of a HyperNode that also has
 * child HyperNodes: its sanitised name, shortened to leave room, then
 * `.nodes`. A shortened one therefore shares the hash of its HyperNode's
 * shortened switch name.
 */
export function slurmNodesLeafName(hyperNode: string): string {
  return shortened(slurmName(hyperNode), SLURM_NAME_MAX - SLURM_NODES_LEAF_SUFFIX.length) + SLURM_NODES_LEAF_SUFFIX;
}

/**
 * Reserves each Slurm name once; a second claim is refused naming both
 * owners ("HyperNode X", "the Nodes of HyperNode X"), as Slurm would
 * otherwise merge two switches or refuse the file.
 */
export class SlurmNameRegistry {
  private readonly owners = new Map<string, string>();

  claim(slurm: string, owner: string): string {
    const other = this.owners.get(slurm);
    if (other !== undefined)
      throw new Error(`${other} and ${owner} would both be named ${slurm} in Slurm; rename one of them`);
    this.owners.set(slurm, owner);
    return slurm;
  }
}
