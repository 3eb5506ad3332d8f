// The fabric scripts/bench-lldp.ts measures: a rail-optimised, three-tier fat
// tree (testing/fat-tree.ts) of `sus` scalable units of 128 hosts on 8 rails;
// 64 units are 8,192 hosts (docs/running.md). Shared by the benchmark and its
// SNMP stand-in process, which must build the very same tree.

import { generateFatTree, type FatTree } from '../testing/fat-tree.ts';

export function benchFabric(sus: number): FatTree {
  return generateFatTree({ sus, tiers: 3, nodesPerSu: 128, rails: 8 });
}
