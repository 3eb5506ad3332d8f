// The built executable (dist/vc-hypernode-controller-manager) against the API
// server stand-in with the chart's least-privilege RBAC: the worked examples
// of docs/design.md §9, label (also the bundle under Deno 2) and UFM (served
// over HTTPS), adoption of the HyperNodes the Go controller left behind (and
// its own after a restart), zero writes in the steady state, and a Warning
// Event on the ConfigMap for a source that cannot run. Every test also proves
// that no request went beyond the RBAC.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startControllerBinary, type RunOptions } from '../support/controller-process.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import { UfmServer } from '../../testing/ufm-server.ts';
import {
  CLUSTER,
  CONTROLLER_USER,
  CONFIG_MAP,
  LABEL_NAME,
  NS,
  RACK,
  SOURCE_LABEL,
  TOPOLOGY_A3_CONFIG,
  UFM_WORKED_EXAMPLE,
  assertNoDeletes,
  assertNoForbidden,
  byName,
  describeWrites,
  groupOf,
  answeredHyperNodeWrites,
  hyperNodeWrites,
  hyperNodes,
  nodeCount,
  seedConfigMap,
  seedUfmSecret,
  setDiscoveryConfig,
  ufmEntry,
  ufmTree,
  workedExampleConverged,
  workedExampleNodes,
  workedExamplePorts,
  type Cluster,
} from './cluster.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { session } from './session.ts';

const TLS_CA = new URL('../../testing/tls/ca.crt', import.meta.url).pathname;

const s = session(test);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));
const converge = s.converge.bind(s);

/**
 * The eight Nodes of the label worked example, `conf` as discovery document, the executable (or the bundle on Deno)
 * running.
 */
const startWorkedExample = (conf: string, runtime: RunOptions['runtime'] = 'sea') =>
  s.startWorkedExample(conf, (kubeconfig) =>
    startControllerBinary({ kubeconfig, namespace: NS, runtime, env: runtimeEnv(runtime) }),
  );

/**
 * Deno 2.9.6 reuses its V8 code cache for a rebuilt bundle of the same size
 * at the same path, and then runs the previous build; a cache of our own
 * makes Deno run the bundle just built.
 */
const denoDir = mkdtempSync(join(tmpdir(), 'e2e-deno-'));
test.after(() => rmSync(denoDir, { recursive: true, force: true }));
function runtimeEnv(runtime: RunOptions['runtime']): Record<string, string> {
  return runtime === 'deno' ? { DENO_DIR: denoDir } : {};
}

/** The SEA is what we ship; the same bundle must also run under Deno 2. */
const RUNTIMES: { name: string; runtime: RunOptions['runtime'] }[] = [
  { name: 'the executable', runtime: 'sea' },
  { name: 'the bundle on Deno', runtime: 'deno' },
];

for (const { name, runtime } of RUNTIMES)
  test(`the label worked example (${name}): eight labelled Nodes and topologyA3 give exactly the six HyperNodes of the table, nodeCount 2 each`, async () => {
    const { api } = await startWorkedExample(TOPOLOGY_A3_CONFIG, runtime);

    await converge(
      () => workedExampleConverged(api),
      'the six HyperNodes of the label worked example with nodeCount 2',
    );
    const racks = ['s0', 's1', 's2', 's3'].map((v) => groupOf(api, RACK, v)!);
    const clusters = ['s4', 's5'].map((v) => groupOf(api, CLUSTER, v)!);
    assert.is(
      new Set([...racks, ...clusters].map((hn) => hn?.metadata.name)).size,
      6,
      'one HyperNode per (label, value)',
    );
    for (const [i, hn] of racks.entries()) {
      assert.match(hn.metadata.name, LABEL_NAME('topologya3', 1));
      assert.equal(hn.metadata.labels, { [SOURCE_LABEL]: 'label', [RACK]: `s${i}` });
      assert.is(hn.spec!.tier, 1);
      assert.is(hn.spec!.tierName, RACK);
      assert.equal(
        hn.spec!.members,
        [`node${2 * i}`, `node${2 * i + 1}`].map((name) => ({ type: 'Node', selector: { exactMatch: { name } } })),
      );
    }
    for (const [i, hn] of clusters.entries()) {
      assert.match(hn.metadata.name, LABEL_NAME('topologya3', 2));
      assert.equal(hn.metadata.labels, { [SOURCE_LABEL]: 'label', [CLUSTER]: `s${4 + i}` });
      assert.is(hn.spec!.tier, 2);
      assert.is(hn.spec!.tierName, CLUSTER);
      const children = [racks[2 * i]!, racks[2 * i + 1]!].map((r) => r.metadata.name).sort();
      assert.equal(
        hn.spec!.members,
        children.map((name) => ({ type: 'HyperNode', selector: { exactMatch: { name } } })),
      );
    }
    // Six creates and six nodeCount writes, nothing else (Go also PUTs spec and an empty status per object).
    await converge(() => hyperNodeWrites(api).length >= 12 && true, 'the nodeCount writes');
    const writes = await answeredHyperNodeWrites(api);
    assert.is(writes.filter((r) => r.verb === 'create' && r.code === 201).length, 6, describeWrites(writes).join('\n'));
    assert.is(
      writes.filter((r) => r.verb === 'update' && r.subresource === 'status').length,
      6,
      describeWrites(writes).join('\n'),
    );
    assert.is(writes.length, 12, describeWrites(writes).join('\n'));
    assertNoForbidden(api);
  });

/** Two ways an operator makes the executable accept UFM's certificate. */
const UFM_TRUST: { how: string; env: Record<string, string>; insecureSkipVerify: boolean }[] = [
  // The SEA ignores NODE_OPTIONS but honours NODE_EXTRA_CA_CERTS, the way an operator adds a private CA.
  { how: 'CA from NODE_EXTRA_CA_CERTS', env: { NODE_EXTRA_CA_CERTS: TLS_CA }, insecureSkipVerify: false },
  { how: 'insecureSkipVerify: true', env: {}, insecureSkipVerify: true },
];

for (const { name, runtime } of RUNTIMES)
  for (const trust of UFM_TRUST)
    test(`the UFM worked example (${name}): the UFM source over HTTPS (${trust.how}, credentials from a Secret) gives exactly leaf-hn-0, leaf-hn-1 and spine-hn`, async () => {
      const { api, kubeconfig } = await s.startCluster();
      const ufm = (s.ufm = await new UfmServer().start());
      ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
      seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
      seedConfigMap(
        api,
        `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { insecureSkipVerify: trust.insecureSkipVerify })}`,
      );
      s.controller = await startControllerBinary({
        kubeconfig,
        namespace: NS,
        env: { ...trust.env, ...runtimeEnv(runtime) },
        runtime,
      });

      await converge(
        () => hyperNodes(api, 'ufm').length === 3 && hyperNodes(api).every((hn) => nodeCount(hn) > 0),
        'the three ufm HyperNodes with nodeCount',
      );
      assert.equal(ufmTree(api), UFM_WORKED_EXAMPLE);
      const all = byName(hyperNodes(api));
      assert.equal([...all.keys()].sort(), ['leaf-hn-0', 'leaf-hn-1', 'spine-hn']);
      for (const hn of all.values()) {
        assert.equal(hn.metadata.labels, { [SOURCE_LABEL]: 'ufm' });
        assert.is(hn.spec!.tierName, undefined, 'UFM HyperNodes have no tierName');
      }
      assert.equal(
        [nodeCount(all.get('leaf-hn-0')), nodeCount(all.get('leaf-hn-1')), nodeCount(all.get('spine-hn'))],
        [4, 4, 2],
      );
      const auth = `Basic ${Buffer.from(`${ufm.username}:${ufm.password}`).toString('base64')}`;
      assert.ok(
        ufm.requests.length > 0 &&
          ufm.requests.every(
            (r) => r.method === 'GET' && r.path === '/ufmRest/resources/ports' && r.authorization === auth,
          ),
      );
      assertNoForbidden(api);
    });

/** Names as the Go controller draws them: random suffixes from its 27-symbol alphabet. */
const GO_NAMES = {
  s0: 'hypernode-topologya3-tier1-k7x2q',
  s1: 'hypernode-topologya3-tier1-b9zz4',
  s2: 'hypernode-topologya3-tier1-2mdq8',
  s3: 'hypernode-topologya3-tier1-tt5wr',
  s4: 'hypernode-topologya3-tier2-hg7jc',
  s5: 'hypernode-topologya3-tier2-pl4sn',
};

/**
 * What the Go controller leaves behind for the label worked example: source and tier labels,
 * sorted members, nodeCount written. With `drift`, node7 is missing from s3
 * (and its nodeCount says 1). Returns name → UID.
 */
function seedGoHyperNodes(api: Cluster['api'], drift: boolean): Map<string, string | undefined> {
  const hn = (value: keyof typeof GO_NAMES, key: string, tier: number, members: string[]) => ({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name: GO_NAMES[value], labels: { [SOURCE_LABEL]: 'label', [key]: value } },
    spec: {
      tier,
      tierName: key,
      members: members
        .sort()
        .map((name) => ({ type: tier === 1 ? 'Node' : 'HyperNode', selector: { exactMatch: { name } } })),
    },
    status: { nodeCount: members.length },
  });
  api.store.create(hn('s0', RACK, 1, ['node0', 'node1']));
  api.store.create(hn('s1', RACK, 1, ['node2', 'node3']));
  api.store.create(hn('s2', RACK, 1, ['node4', 'node5']));
  api.store.create(hn('s3', RACK, 1, drift ? ['node6'] : ['node6', 'node7']));
  api.store.create(hn('s4', CLUSTER, 2, [GO_NAMES.s0, GO_NAMES.s1]));
  api.store.create(hn('s5', CLUSTER, 2, [GO_NAMES.s2, GO_NAMES.s3]));
  return new Map(hyperNodes(api).map((h) => [h.metadata.name, h.metadata.uid]));
}

/**
 * Starts the executable over the seeded objects and waits until its first label round is reconciled and nodeCounts are
 * right.
 */
async function adopt(api: Cluster['api'], kubeconfig: string): Promise<void> {
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await converge(
    async () =>
      seriesValue(await controller.metrics(), 'hypernode_reconcile_duration_seconds_count', { source: 'label' }) >= 1,
    'the first label round to be reconciled',
  );
  await converge(() => workedExampleConverged(api), 'the six HyperNodes with nodeCount 2');
  assert.equal(
    new Set(hyperNodes(api).map((h) => h.metadata.name)),
    new Set(Object.values(GO_NAMES)),
    'no HyperNode added',
  );
}

test('adoption: HyperNodes named by the Go controller that already match keep names and UIDs, and cost zero writes', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of workedExampleNodes()) api.store.create(n);
  const uids = seedGoHyperNodes(api, false);
  await adopt(api, kubeconfig);
  assert.equal(new Map(hyperNodes(api).map((h) => [h.metadata.name, h.metadata.uid])), uids, 'same names, same UIDs');
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [], 'zero HyperNode writes');
  assertNoForbidden(api);
});

test('adoption with drift: only the drifted Go-named HyperNode is written (members, then nodeCount); no create or delete', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of workedExampleNodes()) api.store.create(n);
  const uids = seedGoHyperNodes(api, true);
  await adopt(api, kubeconfig);
  assert.equal(memberNames(byName(hyperNodes(api)).get(GO_NAMES.s3)), ['node6', 'node7']);
  assert.equal(new Map(hyperNodes(api).map((h) => [h.metadata.name, h.metadata.uid])), uids, 'same names, same UIDs');
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [
    `update ${GO_NAMES.s3} → 200`,
    `update ${GO_NAMES.s3}/status → 200`,
  ]);
  assertNoForbidden(api);
});

test('steady state: discovery rounds over an unchanged topology write nothing (HyperNode deleted elsewhere, label source restarted)', async () => {
  const { api, controller } = await startWorkedExample(TOPOLOGY_A3_CONFIG);
  await converge(() => workedExampleConverged(api), 'the six HyperNodes of the label worked example with nodeCount 2');
  const rounds = async () =>
    seriesValue(await controller.metrics(), 'hypernode_reconcile_duration_seconds_count', { source: 'label' });
  const settled = await converge(async () => (await rounds()) || false, 'the first label round to be reconciled');
  const statusAdds = async () =>
    seriesValue(await controller.metrics(), 'workqueue_adds_total', { name: 'hypernode-status' });
  const addsBefore = await statusAdds();
  // A hand-made HyperNode (no source label, nodeCount already right) that an operator then deletes.
  api.store.create({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name: 'hand-made' },
    spec: { tier: 3, members: [{ type: 'Node', selector: { exactMatch: { name: 'node0' } } }] },
    status: { nodeCount: 1 },
  });
  await converge(async () => (await statusAdds()) > addsBefore, 'the controller to see the hand-made HyperNode');
  api.requests.clear();

  // Any HyperNode deletion triggers a label round (docs/design.md §2.1 step 1).
  api.store.delete('hypernodes', 'hand-made');
  await converge(async () => (await rounds()) >= settled + 1, 'a label round after the HyperNode delete');
  // A changed label entry that describes the same topology restarts the source: one more round.
  setDiscoveryConfig(
    api,
    `${TOPOLOGY_A3_CONFIG}        unused:\n          - nodeLabel: example.com/nothing\n          - nodeLabel: kubernetes.io/hostname\n`,
  );
  await converge(async () => (await rounds()) >= settled + 2, 'a label round after the label source restarted');
  assert.ok(controller.log().includes('Restarting network discovery'), 'the label source was restarted');

  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [], 'zero HyperNode writes in the steady state');
  assert.ok(workedExampleConverged(api));
  assert.ok(seriesValue(await controller.metrics(), 'hypernode_discovery_results_total', { source: 'label' }) >= 3);
  assertNoForbidden(api);
});

test('a restarted executable adopts its own HyperNodes: same names and UIDs, zero writes', async () => {
  const { api, controller: first } = await startWorkedExample(TOPOLOGY_A3_CONFIG);
  await converge(() => workedExampleConverged(api), 'the six HyperNodes of the label worked example with nodeCount 2');
  const uids = new Map(hyperNodes(api).map((h) => [h.metadata.name, h.metadata.uid]));
  assert.is(await first.stop(), 0);
  api.requests.clear();

  const second = (s.controller = await startControllerBinary({ kubeconfig: s.cluster!.kubeconfig, namespace: NS }));
  await converge(
    async () =>
      seriesValue(await second.metrics(), 'hypernode_reconcile_duration_seconds_count', { source: 'label' }) >= 1,
    'the first label round after the restart',
  );
  assert.equal(new Map(hyperNodes(api).map((h) => [h.metadata.name, h.metadata.uid])), uids, 'same names, same UIDs');
  assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [], 'zero HyperNode writes after a restart');
  assertNoForbidden(api);
});

test('a source that cannot run gets a Warning Event on the discovery ConfigMap, within the RBAC, while the label source works', async () => {
  const { api, controller } = await startWorkedExample(`${TOPOLOGY_A3_CONFIG}  - source: roce\n    enabled: true\n`);

  const cm = api.store.get('configmaps', CONFIG_MAP, NS) as { metadata: { uid: string } };
  type Ev = {
    type: string;
    reason: string;
    message: string;
    involvedObject: { kind: string; name: string; namespace: string; uid?: string };
  };
  const event = await converge(
    () =>
      (api.store.list('events', NS) as unknown as Ev[]).find(
        (e) => e.type === 'Warning' && e.message.includes('unsupported discoverer type: roce'),
      ),
    'a Warning Event about the roce source',
  );
  assert.equal(event.involvedObject.kind, 'ConfigMap');
  assert.equal(event.involvedObject.name, CONFIG_MAP);
  assert.equal(event.involvedObject.namespace, NS);
  assert.equal(event.involvedObject.uid, cm.metadata.uid);
  assert.match(controller.log(), /failed to create discoverer: unsupported discoverer type: roce/);
  await converge(() => workedExampleConverged(api), 'the label HyperNodes despite the broken roce entry');
  await converge(
    () => api.requests.count({ resource: 'events', verb: 'create', code: 201, user: CONTROLLER_USER }) >= 1,
    'the Event create answered 201',
  );
  assertNoDeletes(api);
  assertNoForbidden(api);
});

test.run();
