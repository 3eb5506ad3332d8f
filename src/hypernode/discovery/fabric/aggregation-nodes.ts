// The SHARP aggregation node, which every Quantum switch hosts for reductions
// in the network: fabrics list it as a host (a CA) cabled to its switch, and
// taken for one it would make every switch a leaf. It says what it is in its
// description or system name (`Mellanox Technologies Aggregation Node`),
// whichever source reads the fabric.

const AGGREGATION_NODE = /aggregation node/i;

/** Whether a device's description or name says it is a SHARP aggregation node, whatever its case. */
export function isAggregationNode(text: string): boolean {
  return AGGREGATION_NODE.test(text);
}
