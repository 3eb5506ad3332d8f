// The shipped executable with --enable-topology-page and --secure-metrics
// against the API server stand-in: the page and /metrics refuse a caller
// without a token (401) and one RBAC does not allow (403), and show the
// worked example's HyperNodes to an allowed one, as JSON and as the HTML
// topology view; a token issued for the API server rather than the
// controller's audience is refused (401); the token never reaches the log.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accessReviewerRbac, hypernodeControllerRbac } from '../../testing/apiserver/index.ts';
import { DEFAULT_TOKEN_AUDIENCE } from '../../src/app/options.ts';
import { compareBytes } from '../../src/util/compare-bytes.ts';
import { viewData } from '../../testing/view-page.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { CONTROLLER_USER, LEASE, NS, TOPOLOGY_A3_CONFIG, seedConfigMap, workedExampleNodes } from './cluster.ts';
import { session } from './session.ts';

const s = session(test);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));

test('the executable serves /debug/topology and /metrics only to a token RBAC allows', async () => {
  const { api, kubeconfig } = await s.startCluster();
  // deploy/secure-endpoints: the review rights on top of the chart's.
  api.addUser(CONTROLLER_USER, [...hypernodeControllerRbac(NS, LEASE), ...accessReviewerRbac()]);
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  const viewerApiToken = api.addUser('viewer', [
    { apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: ['/debug/topology', '/metrics'] },
  ]);
  // As `kubectl create token viewer --audience vc-hypernode-controller-manager` makes them.
  const viewer = api.createToken('viewer', [DEFAULT_TOKEN_AUDIENCE]);
  api.addUser('stranger', []);
  const stranger = api.createToken('stranger', [DEFAULT_TOKEN_AUDIENCE]);
  const controller = (s.controller = await startControllerBinary({
    kubeconfig,
    namespace: NS,
    flags: ['--enable-topology-page=true', '--secure-metrics=true'],
  }));
  const get = async (path: string, token?: string, accept?: string) => {
    const headers: Record<string, string> = {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(accept ? { Accept: accept } : {}),
    };
    const res = await fetch(`${controller.metricsOrigin}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
    return { code: res.status, body: await res.text() };
  };

  for (const path of ['/debug/topology', '/metrics']) {
    assert.is((await get(path)).code, 401, path);
    assert.is((await get(path, viewerApiToken)).code, 401, `${path} with the API server's token`);
    assert.is((await get(path, stranger)).code, 403, path);
  }
  assert.is((await get('/metrics', viewer)).code, 200);
  const page = await s.converge(async () => {
    const r = await get('/debug/topology', viewer, 'application/json');
    const body = JSON.parse(r.body);
    return body.sources?.[0]?.hyperNodes?.length === 6 ? body : undefined;
  }, 'the six HyperNodes of the worked example on the page');
  assert.is(page.sources[0].source, 'label');
  assert.is(page.controllerRunning, true);
  const html = await get('/debug/topology', viewer);
  assert.is(html.code, 200);
  const written = api.store.list('hypernodes').map((hn) => hn.metadata.name);
  assert.equal(
    viewData(html.body).hyperNodes.map((hn) => hn.name),
    written.sort(compareBytes),
  );
  assert.not.ok(
    [viewer, viewerApiToken, stranger].some((t) => controller.log().includes(t)),
    'a token in the log',
  );
});

test.run();
