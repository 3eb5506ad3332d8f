// SHARP aggregation nodes, as InfiniBand fabrics name them.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isAggregationNode } from '../../../../src/hypernode/discovery/fabric/aggregation-nodes.ts';

test('SHARP aggregation nodes are recognised whatever their case', () => {
  assert.ok(isAggregationNode('Mellanox Technologies Aggregation Node'));
  assert.ok(isAggregationNode('NVIDIA aggregation node SW-3'));
  assert.not.ok(isAggregationNode('node-a01 mlx5_0'));
});

test.run();
