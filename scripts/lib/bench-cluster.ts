// The cluster the controller benchmark runs against: the sample topology of
// testing/sample-cluster.ts at 10,000 Nodes, each also carrying the
// labels every kubelet sets, which discovery must read past.

import { sampleNodes, type SampleNode, type SampleShape } from '../../testing/sample-cluster.ts';

/** 5 zones × 10 spines × 10 racks × 20 Nodes = 10,000 Nodes → 5 + 50 + 500 = 555 HyperNodes. */
export const BENCH_SHAPE: SampleShape = { zones: 5, spinesPerZone: 10, racksPerSpine: 10, nodesPerRack: 20 };

export function benchNodes(shape: SampleShape = BENCH_SHAPE): SampleNode[] {
  return sampleNodes(shape).map((n) => {
    n.metadata.labels = {
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': 'gpu-8x',
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      ...n.metadata.labels,
    };
    return n;
  });
}
