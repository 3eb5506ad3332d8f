// The order and sizes of Slurm's blocks (the topology/block plugin). Slurm
// joins neighbouring blocks in file order into larger blocks of 2, 4, 8…
// blocks, and takes the first BlockSizes value (or, without one, the first
// block's node count) as the base block size, refusing to start when any block
// has fewer nodes. So blocks are listed in tree order, which keeps the NVLink
// domains of one leaf next to each other, and BlockSizes is written from a
// rule every block satisfies (docs/configuration.md, "Slurm topology files").
// Ours, no Go counterpart.

import { compareBytes } from '../../../util/compare-bytes.ts';

/** Slurm's limit: a block size is at most 2^15 base blocks (16 levels). */
const MAX_BLOCK_LEVEL = 15;

/**
 * Every HyperNode name once, depth first: the tops (HyperNodes no other one
 * holds) by name, each followed by its children by name. HyperNodes reachable
 * from no top (a cycle) follow, by name.
 */
export function treeOrder(children: ReadonlyMap<string, readonly string[]>): string[] {
  const held = new Set([...children.values()].flat());
  const names = [...children.keys()].sort(compareBytes);
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    order.push(name);
    for (const c of [...(children.get(name) ?? [])].sort(compareBytes)) visit(c);
  };
  for (const top of names.filter((n) => !held.has(n))) visit(top);
  for (const rest of names) visit(rest);
  return order;
}

export interface SizedBlock {
  readonly name: string;
  readonly nodes: readonly string[];
}

/**
 * BlockSizes: the base block size, then the base times 2, 4, … up to the
 * first multiple that covers every block (one level when there is one
 * block). The base is `stated` (the NVLink domain size the operator gives)
 * or, without it, the smallest block's node count. A stated size larger
 * than a block is refused naming those blocks: Slurm would not start.
 */
export function blockSizes(blocks: readonly SizedBlock[], stated: number | undefined): number[] {
  if (blocks.length === 0) return [];
  const smallest = Math.min(...blocks.map((b) => b.nodes.length));
  if (stated !== undefined) {
    if (!Number.isSafeInteger(stated) || stated < 1)
      throw new Error(`--slurm-block-size must be a whole number of Nodes, at least 1; got ${stated}`);
    const short = blocks.filter((b) => b.nodes.length < stated);
    if (short.length > 0) {
      const list = short.map((b) => `${b.name} (${b.nodes.length})`).join(', ');
      throw new Error(
        `--slurm-block-size ${stated}: blocks ${list} have fewer Nodes, and Slurm refuses to start with a block smaller than the base block size; pass at most ${smallest}, or leave the flag out to use the smallest block`,
      );
    }
  }
  const base = stated ?? smallest;
  const sizes = [base];
  for (let level = 1; level <= MAX_BLOCK_LEVEL && 2 ** (level - 1) < blocks.length; level++)
    sizes.push(base * 2 ** level);
  return sizes;
}
