// Rejected HyperNode creates end to end (the executable, chart RBAC): the API
// server answers a few creates with 422, as CEL validation did intermittently
// under concurrent writes on a 65,000-Node cluster, and the controller brings
// every HyperNode in without any Node changing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startControllerBinary } from '../support/controller-process.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import {
  DEMO_SHAPE,
  SAMPLE_DISCOVERY_CONFIG,
  expectedHyperNodeCount,
  sampleNodes,
} from '../../testing/sample-cluster.ts';
import {
  NS,
  answeredHyperNodeWrites,
  assertNoDeletes,
  assertNoForbidden,
  hyperNodes,
  nodeCount,
  seedConfigMap,
} from './cluster.ts';
import { session } from './session.ts';

const s = session(test);
const converge = s.converge.bind(s);
const REJECTED = 3;

test('HyperNode creates rejected with 422 are retried until every HyperNode exists, with no Node change', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of sampleNodes(DEMO_SHAPE)) api.store.create(n);
  seedConfigMap(api, SAMPLE_DISCOVERY_CONFIG);
  api.failNext(REJECTED, { code: 422, match: { verb: 'create', resource: 'hypernodes' } });
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));

  const total = expectedHyperNodeCount(DEMO_SHAPE);
  await converge(() => {
    const hns = hyperNodes(api);
    return hns.length === total && hns.every((hn) => nodeCount(hn) > 0);
  }, `all ${total} HyperNodes, with nodeCount, despite ${REJECTED} rejected creates`);

  const creates = (await answeredHyperNodeWrites(api)).filter((r) => r.verb === 'create').map((r) => r.code);
  assert.is(creates.filter((c) => c === 422).length, REJECTED, 'the injected rejections');
  assert.is(
    creates.filter((c) => c === 201).length,
    total,
    'each HyperNode created once, the rejected ones by a retry',
  );
  assert.is(creates.length, total + REJECTED, 'one retry per rejection, nothing more');
  assert.is(api.requests.writes({ resource: 'nodes' }).length, 0, 'no Node changed');
  const failures = seriesValue(await controller.metrics(), 'hypernode_api_write_failures_total', {
    source: 'label',
    verb: 'create',
    code_class: '4xx',
  });
  assert.is(failures, REJECTED);
  assertNoDeletes(api);
  assertNoForbidden(api);
});

test.run();
