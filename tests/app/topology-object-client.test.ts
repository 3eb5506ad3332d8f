// The Topology objects' client (src/app/topology-object-client.ts) against
// the API server stand-in: the schema a version serves is read from
// /openapi/v3, its group-version document fetched again only when the index
// names another hash (a CRD upgraded in place, as KAI 0.16 → 0.17 adds
// `alias` at the same v1alpha1); a server without /openapi/v3 gives no
// schema, not an error; and the levels of an object are patched in place.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topologyObjects } from '../../src/app/topology-object-client.ts';
import { buildClientConfig } from '../../src/kube/config.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { Transport } from '../../src/kube/transport.ts';
import { nullLogger } from '../../src/log.ts';
import { servedLevels } from '../../src/hypernode/exports/topology-objects/topology-served-schema.ts';
import { KAI_0_16_TOPOLOGY_CRD_FILE, KAI_TOPOLOGY_CRD_FILE, startApiServer } from '../../testing/apiserver/index.ts';

test('the served schema: read from /openapi/v3, fetched again only when its hash changes; none where the server has no /openapi/v3', async () => {
  const api = await startApiServer({ extraCrds: [KAI_0_16_TOPOLOGY_CRD_FILE] });
  const dir = mkdtempSync(join(tmpdir(), 'topology-client-'));
  try {
    const rest = new RestClient({
      transport: new Transport(buildClientConfig({ master: '', kubeconfig: api.writeKubeconfig(dir) }, nullLogger)),
      userAgent: 't',
      qps: 1000,
      burst: 1000,
    });
    const client = topologyObjects(rest);
    const documents = () => api.requests.count((r) => r.path === '/openapi/v3/apis/kai.scheduler/v1alpha1');
    assert.equal(servedLevels(await client.servedSchema('kai.scheduler', 'v1alpha1', 'Topology')), {
      fits: true,
      maxLevels: 16,
      alias: false,
    });
    assert.equal(servedLevels(await client.servedSchema('kai.scheduler', 'v1alpha1', 'Topology')), {
      fits: true,
      maxLevels: 16,
      alias: false,
    });
    assert.is(documents(), 1, 'the same hash: the document is not fetched again');
    assert.is(
      await client.servedSchema('kai.scheduler', 'v1beta1', 'Topology'),
      undefined,
      'a version not served has no schema',
    );

    api.installCrd(KAI_TOPOLOGY_CRD_FILE); // KAI upgraded in place: the same group-version, another schema
    assert.equal(servedLevels(await client.servedSchema('kai.scheduler', 'v1alpha1', 'Topology')), {
      fits: true,
      maxLevels: 16,
      alias: true,
    });
    assert.is(documents(), 2, 'another hash: fetched again');

    api.failNext(10, {
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
      match: { path: '/openapi/v3' },
    });
    const older = topologyObjects(rest);
    assert.is(await older.servedSchema('kai.scheduler', 'v1alpha1', 'Topology'), undefined);
    api.clearFaults();

    await client.create('kai.scheduler', 'v1alpha1', {
      apiVersion: 'kai.scheduler/v1alpha1',
      kind: 'Topology',
      metadata: { name: 't' },
      spec: { levels: [{ nodeLabel: 'example.com/rack', alias: 'rack' }, { nodeLabel: 'kubernetes.io/hostname' }] },
    });
    const made = api.store.get('topologies.kai.scheduler', 't')!;
    await client.updateLevels('kai.scheduler', 'v1alpha1', 't', made.metadata.resourceVersion, [
      { nodeLabel: 'example.com/rack', alias: 'row' },
      { nodeLabel: 'kubernetes.io/hostname' },
    ]);
    assert.equal(api.store.get('topologies.kai.scheduler', 't')!.spec.levels, [
      { nodeLabel: 'example.com/rack', alias: 'row' },
      { nodeLabel: 'kubernetes.io/hostname' },
    ]);
    assert.equal(api.store.get('topologies.kai.scheduler', 't')!.metadata.uid, made.metadata.uid);
    await rejectsWith(
      () => client.updateLevels('kai.scheduler', 'v1alpha1', 't', made.metadata.resourceVersion, []),
      /409|Conflict|modified/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await api.close();
  }
});

async function rejectsWith(fn: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await fn();
  } catch (err) {
    assert.match(String(err), pattern);
    return;
  }
  assert.unreachable('expected a rejection');
}

test.run();
