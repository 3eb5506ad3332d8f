// The Kueue and KAI releases of 2026 end to end, the controller in this
// process against the API server stand-in serving each release's Topology
// CRD as published: a 12-level tree reaches Kueue 0.14 (Topology only at
// v1beta1), 0.13 (only at v1alpha1, whose published schema takes 16) and a
// current Kueue (v1beta2 beside the deprecated v1beta1), each at the version
// it serves, the limit read from the served schema; KAI 0.17 gets each
// level's tierName as its alias (the hostname none), changes them in place
// when the tierNames change (one update, the same object), and `plan` shows
// them; KAI 0.16, whose schema has no alias, gets none, nor does any kind
// where the server publishes no schema to read (the version's known limit
// then holds, said once).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import {
  KAI_0_16_TOPOLOGY_CRD_FILE,
  KUEUE_0_13_TOPOLOGY_CRD_FILE,
  KUEUE_0_14_TOPOLOGY_CRD_FILE,
  KUEUE_RESOURCE_FLAVOR_CRD_FILE,
  KUEUE_TOPOLOGY_CRD_FILE,
  KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE,
} from '../../testing/apiserver/index.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import { CLUSTER, CONTROLLER_USER, NS, RACK, setDiscoveryConfig } from './cluster.ts';
import { session } from './session.ts';
import {
  BOTH,
  BOTH_EXPORTS,
  config,
  HOST,
  KAI,
  KUEUE,
  PREFIX,
  startTopologyCluster,
  topo,
  topologyWrites,
} from './topology-cluster.ts';

const s = session(test);
const ELEVEN = Array.from({ length: 11 }, (_, i) => `example.com/l${i}`);

const RELEASES: Array<[string, string[], string]> = [
  [
    'Kueue 0.14 (Topology only at v1beta1)',
    [KUEUE_0_14_TOPOLOGY_CRD_FILE, KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE],
    'v1beta1',
  ],
  [
    'Kueue 0.13 (only at v1alpha1, 16 levels by its schema)',
    [KUEUE_0_13_TOPOLOGY_CRD_FILE, KUEUE_V1BETA1_RESOURCE_FLAVOR_CRD_FILE],
    'v1alpha1',
  ],
  [
    'a current Kueue (v1beta2 beside the deprecated v1beta1)',
    [KUEUE_TOPOLOGY_CRD_FILE, KUEUE_RESOURCE_FLAVOR_CRD_FILE],
    'v1beta2',
  ],
];
for (const [release, crds, version] of RELEASES) {
  test(`${release}: a 12-level tree gets its Topology, written at ${version}`, async () => {
    const api = await startTopologyCluster(
      s,
      config('      kueueTopology: true\n', ELEVEN),
      crds,
      Object.fromEntries(ELEVEN.map((k, i) => [k, `v${i}`])),
    );
    await s.converge(() => topo(api, KUEUE)?.spec.levels.length === 12, '12 levels written');
    assert.equal(
      topologyWrites(api).map((r) => `${r.verb} ${r.path} ${r.code}`),
      [`create /apis/kueue.x-k8s.io/${version}/topologies 201`],
    );
    assert.is(topo(api, KUEUE)!.spec.levels.at(-1)!.nodeLabel, HOST);
    assert.not.match(s.log(), /more than the \d+ a Kueue Topology/);
    assert.not.match(s.log(), /served schema .* cannot be read/, 'the schema was read');
  });
}

/** The levels as `nodeLabel=alias` (bare without one). */
const aliased = (resource: string) => (api: Parameters<typeof topo>[0]) =>
  topo(api, resource)?.spec.levels.map((l) => (l.alias ? `${l.nodeLabel}=${l.alias}` : l.nodeLabel));

test("KAI 0.17: each level's tierName is its alias, the hostname none; a change of tierNames updates them in place; plan shows them", async () => {
  const ROW = 'example.com/hypernode';
  const api = await startTopologyCluster(s, BOTH, true, {}, false);
  // The same racks under another label key: the tierName changes, the level's Node label key (…/hypernode) does not.
  for (const n of api.store.list('nodes'))
    api.store.update({
      ...n,
      metadata: { ...n.metadata, labels: { ...n.metadata.labels, [ROW]: n.metadata.labels![RACK]! } },
    });
  const dir = mkdtempSync(join(tmpdir(), 'hn-plan-alias-'));
  try {
    const admin = api.writeKubeconfig(dir, { fileName: 'admin.yaml' });
    const planned = await plan([`--kubeconfig=${admin}`], 'x', {
      color: false,
      env: { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' },
    });
    assert.match(
      planned.stdout,
      `  + KAI Topology hypernode-label (source "label")\n      levels ${PREFIX}/hypercluster (alias ${CLUSTER}), ${PREFIX}/hypernode (alias ${RACK}), ${HOST}\n`,
      planned.stdout,
    );
    assert.match(
      planned.stdout,
      `  + Kueue Topology hypernode-label (source "label")\n      levels ${PREFIX}/hypercluster, ${PREFIX}/hypernode, ${HOST}\n`,
      'Kueue has no alias',
    );

    s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
    const kai = aliased(KAI);
    await s.converge(
      () => kai(api)?.join() === `${PREFIX}/hypercluster=${CLUSTER},${PREFIX}/hypernode=${RACK},${HOST}`,
      'the KAI Topology written with aliases',
    );
    assert.equal(
      aliased(KUEUE)(api),
      [`${PREFIX}/hypercluster`, `${PREFIX}/hypernode`, HOST],
      'no alias on Kueue, whose schema has none',
    );
    const uid = topo(api, KAI)!.metadata.uid;

    setDiscoveryConfig(api, config(BOTH_EXPORTS, [CLUSTER, ROW]));
    await s.converge(
      () => kai(api)?.join() === `${PREFIX}/hypercluster=${CLUSTER},${PREFIX}/hypernode=${ROW},${HOST}`,
      'the alias changed',
    );
    assert.is(topo(api, KAI)!.metadata.uid, uid, 'the same object: aliases change in place');
    assert.equal(
      topologyWrites(api).map((r) => `${r.verb} ${r.path}`),
      [
        'create /apis/kueue.x-k8s.io/v1beta2/topologies',
        'create /apis/kai.scheduler/v1alpha1/topologies',
        'patch /apis/kai.scheduler/v1alpha1/topologies/hypernode-label',
      ],
      'one update, nothing deleted',
    );
    // Logged once the patch is answered, which may be after the object is seen.
    await s.converge(
      () =>
        s
          .log()
          .includes(
            `Updated KAI Topology aliases name="hypernode-label" source="label" levels="${PREFIX}/hypercluster (alias ${CLUSTER}),${PREFIX}/hypernode (alias ${ROW}),${HOST}"`,
          ),
      'the alias update logged',
    );
    assert.equal(
      api.requests.all((r) => r.user === CONTROLLER_USER && r.code >= 400),
      [],
      'nothing refused, by the schema or by KAI’s webhook',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without /openapi/v3 to read (an older API server): the version's known limit and no aliases, said once", async () => {
  const api = await startTopologyCluster(s, BOTH, true, {}, false);
  api.failNext(1_000_000, {
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
    match: { path: '/openapi/v3' },
  });
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  await s.converge(
    () => topo(api, KAI)?.spec.levels.length === 3 && topo(api, KUEUE)?.spec.levels.length === 3,
    'both written',
  );
  assert.ok(
    topo(api, KAI)!.spec.levels.every((l) => l.alias === undefined),
    'no alias without a schema saying the version takes one',
  );
  assert.match(
    s.log(),
    'The served schema of KAI Topology kai.scheduler/v1alpha1 cannot be read (no /openapi/v3 document this client may read): levels are held to 16 and written without aliases\n',
  );
  assert.is(
    s.log().split('The served schema of Kueue Topology kueue.x-k8s.io/v1beta2 cannot be read').length - 1,
    1,
    'said once',
  );
});

test('KAI 0.16, whose schema has no alias: levels without one', async () => {
  const api = await startTopologyCluster(s, config('      kaiTopology: true\n'), [KAI_0_16_TOPOLOGY_CRD_FILE]);
  await s.converge(() => topo(api, KAI)?.spec.levels.length === 3, 'the KAI Topology written');
  assert.ok(
    topologyWrites(api).every((r) => r.verb === 'create'),
    'created once',
  );
  assert.equal(topo(api, KAI)!.spec.levels, [
    { nodeLabel: `${PREFIX}/hypercluster` },
    { nodeLabel: `${PREFIX}/hypernode` },
    { nodeLabel: HOST },
  ]);
});

test.run();
