// The GB200 NVL72 fabric the GB200-scale benchmarks run on: scalable units
// of NVL72 racks of compute trays, every tray a host with one HCA per rail
// on its unit's rail leaves, three tiers of switches (testing/fat-tree.ts,
// DGX SuperPOD counts). 64 units × 8 racks × 18 trays is 9,216 trays on 8
// rails; the shape is each benchmark's first three arguments.

import { generateFatTree, type FatTree } from '../../testing/fat-tree.ts';

export interface Gb200Shape {
  readonly sus: number;
  readonly racksPerSu: number;
  readonly traysPerRack: number;
}

export const GB200_RAILS = 8;

/** `[sus=64] [racksPerSu=8] [traysPerRack=18]` from a benchmark's arguments (flags left out). */
export function gb200ShapeArgs(argv: readonly string[]): Gb200Shape {
  const [sus = 64, racksPerSu = 8, traysPerRack = 18] = argv.filter((a) => !a.startsWith('--')).map(Number);
  return { sus, racksPerSu, traysPerRack };
}

/** Tray n (1-based) of unit su: its host and Node name. */
export const trayName = (su: number, n: number) => `gb-su${String(su).padStart(2, '0')}-t${String(n).padStart(3, '0')}`;

/** The fabric in the shapes UFM answers with, each host named for its tray. */
export function gb200FatTree(shape: Gb200Shape): FatTree {
  const nodesPerSu = shape.racksPerSu * shape.traysPerRack;
  return generateFatTree({ sus: shape.sus, nodesPerSu, rails: GB200_RAILS, tiers: 3, hostName: trayName });
}

/** One line naming the fabric's size, for a benchmark's first line of output. */
export function describeGb200(shape: Gb200Shape, tree: FatTree): string {
  return `${shape.sus} units × ${shape.racksPerSu} NVL72 racks × ${shape.traysPerRack} trays = ${tree.hosts.length} Nodes on ${GB200_RAILS} rails; ${tree.systems.length - tree.hosts.length} switches, ${tree.links.length} links, ${tree.ports.length} ports`;
}
