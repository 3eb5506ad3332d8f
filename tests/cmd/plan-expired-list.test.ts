// `plan` over a cluster large enough to be listed in pages, where the API
// server compacts the revision the Node list started from before the second
// page is asked for: the continue token then answers 410 Expired, as a real
// kube-apiserver does. plan restarts the list whole (client-go's pager) and
// plans the same changes as without the compaction, instead of failing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import { LIST_PAGE_SIZE } from '../../src/kube/list-pager.ts';
import { startApiServer } from '../../testing/apiserver/index.ts';
import type { RequestRecord } from '../../testing/apiserver/request-log.ts';
import {
  discoveryConfigMap,
  expectedHyperNodeCount,
  SAMPLE_DISCOVERY_CONFIG,
  sampleNodes,
  type SampleShape,
} from '../../testing/sample-cluster.ts';

const NS = 'volcano-system';
/** 640 Nodes: two pages of LIST_PAGE_SIZE. */
const SHAPE: SampleShape = { zones: 2, spinesPerZone: 2, racksPerSpine: 4, nodesPerRack: 40 };

test('plan survives a continue token that expires mid-list: the list restarts whole and the plan is complete', async () => {
  const api = await startApiServer({ namespaces: [NS] });
  const dir = mkdtempSync(join(tmpdir(), 'hn-plan-410-'));
  try {
    const nodes = sampleNodes(SHAPE);
    assert.ok(nodes.length > LIST_PAGE_SIZE, 'the Nodes take more than one page');
    for (const n of nodes) api.store.create(n);
    api.store.create(discoveryConfigMap(NS, SAMPLE_DISCOVERY_CONFIG));
    const secondNodePage = (r: RequestRecord) =>
      r.resource === 'nodes' && r.verb === 'list' && r.query.continue !== undefined;
    let compacted = false;
    // Evaluated as each request arrives, before it is served: the cluster moves on (any write) and
    // etcd compacts past the revision the list started from.
    api.latency(0, (r) => {
      if (!compacted && secondNodePage(r)) {
        compacted = true;
        api.store.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'unrelated', namespace: NS },
          data: {},
        });
        api.compact();
      }
      return false;
    });
    const result = await plan(
      [`--kubeconfig=${api.writeKubeconfig(dir)}`, '-o', 'json'],
      'vc-hypernode-controller-manager',
      {
        color: false,
        env: { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' },
      },
    );
    assert.is(result.code, 2, result.stderr);
    const nodeLists = api.requests.all((r) => r.resource === 'nodes' && r.verb === 'list');
    assert.equal(
      nodeLists.map((r) => [r.query.limit ?? 'whole', r.query.continue === undefined ? 'first' : 'continue', r.code]),
      [
        [String(LIST_PAGE_SIZE), 'first', 200],
        [String(LIST_PAGE_SIZE), 'continue', 410],
        ['whole', 'first', 200],
      ],
    );
    const planned = JSON.parse(result.stdout) as { changes: { action: string }[] };
    assert.is(planned.changes.filter((c) => c.action === 'create').length, expectedHyperNodeCount(SHAPE));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await api.close();
  }
});

test.run();
