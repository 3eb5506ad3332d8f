// The stand-in answers like a real kube-apiserver: every request recorded from
// one (testing/apiserver/real-api/, v1.24 with the real HyperNode CRD) is
// replayed, in order, against a fresh stand-in holding the state the
// recording had, and the answers are compared (real-api-replay.ts). A
// difference fails the test unless KNOWN_DIFFERENCES lists it with the reason
// it does not matter to the controller or to the tests built on the stand-in.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, HN } from '../../../testing/apiserver-client.ts';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { waitFor } from '../../../testing/wait.ts';
import { readdirSync } from 'node:fs';
import {
  Bindings,
  compareReply,
  loadRecording,
  RECORDER_USER_AGENT,
  RECORDINGS_DIR,
  replay,
  type Identities,
  type RecordedCase,
} from './real-api-replay.ts';

const NS = 'volcano-system';
const RECORDER = { 'user-agent': RECORDER_USER_AGENT };
const MERGE = { ...RECORDER, 'content-type': 'application/merge-patch+json' };

/**
 * Differences the conformance test accepts: `where` matches `file case-id`,
 * `diff` the difference text; `why` says why it is harmless.
 */
const KNOWN_DIFFERENCES: Array<{ where: RegExp; diff: RegExp; why: string }> = [
  {
    where: /./,
    diff: /managedFields\[\d+\]\.fieldsV1\./,
    why: 'the stand-in records coarse field sets (top-level fields and label keys, no "." markers, no nested struct fields): clients must not treat managedFields as content and the controller never reads them',
  },
  {
    where: /(events-events-k8s-io|events-v1-.*|core-get-as-events-v1)$/,
    diff: /./,
    why: 'events.k8s.io/v1 is not served: the controller records core/v1 Events only (src/kube/events.ts), which the stand-in serves and checks',
  },
  {
    where: /^auth sa-selfsubjectaccessreview$/,
    diff: /./,
    why: 'SelfSubjectAccessReview is not served: the controller never asks what it may do, it reports the 403 it meets',
  },
  {
    where: /^auth no-credentials-version$/,
    diff: /^body\.(minor|gitVersion|gitCommit|goVersion):/,
    why: 'the stand-in reports the current Kubernetes release it models, not the v1.24 build the recordings come from; the controller only logs the version',
  },
  {
    where: /^auth sa-discovery$/,
    diff: /storageVersionHash/,
    why: 'a hash of the stored schema, used by storage migration tools; no client of this project reads it',
  },
  {
    where: /^watches (nodes-full-watch-rv0|hypernodes-no-rv)$/,
    diff: /^events: recorded \[ADDED/,
    why: 'a watch from resourceVersion 0 (or none) starts with one ADDED per object in no defined order; the stand-in sends them sorted by name, which is one of the orders a real server may use',
  },
  {
    where: /^lists-populated hypernodes-labelselector-invalid$/,
    diff: /^body\.message:/,
    why: 'only the wording of the parser error differs (same 400 BadRequest); the controller builds its selectors itself and never sends an unparsable one',
  },
  {
    where: /^hypernode-writes (invalid-tiername-too-long|invalid-several-errors)$/,
    diff: /Too long: may not be (longer|more) than/,
    why: 'v1.24 words a maxLength error "may not be longer than 253"; current releases, which the stand-in models, say "may not be more than 253 bytes"; reason, field and cause count match',
  },
  {
    where: /^hypernode-writes create-unknown-field$/,
    diff: /^header warning:/,
    why: 'the stand-in prunes unknown fields like the real server but sends no Warning header for them; the controller builds HyperNodes from known fields only and does not act on warnings',
  },
  {
    where: /^hypernode-writes create-not-json$/,
    diff: /^body\.message:/,
    why: 'the same 400 BadRequest for a body that is not JSON; only the wording of the decoder error differs and the controller always sends JSON',
  },
];

interface Rig {
  api: ApiServer;
  ids: Identities;
  b: Bindings;
}

async function start(): Promise<Rig> {
  // As recorded: a 3 s watch gets a bookmark (the one sent 2 s before its end), a 2 s watch none.
  const api = await startApiServer({ namespaces: [NS], bookmarkIntervalMs: 2500 });
  const noRbac = api.addUser(`system:serviceaccount:${NS}:realapi-norbac`, []);
  return { api, ids: { admin: api.adminToken, noRbac }, b: new Bindings() };
}

async function write(
  api: ApiServer,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = RECORDER,
): Promise<any> {
  const r = await call(api, method, path, { headers, body });
  if (r.status >= 300) throw new Error(`setup ${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

/**
 * The cluster of setup-writes.json and lists-populated.json: 5 Nodes, 3 HyperNodes, 2 ConfigMaps, 1 Lease, 1 Event, 1
 * Secret.
 */
async function populate(api: ApiServer): Promise<void> {
  for (const [i, rack] of ['r1', 'r1', 'r2', 'r2', 'r2'].entries()) {
    const name = `node-${i + 1}`;
    await write(api, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'realapi.test/rack': rack, 'kubernetes.io/hostname': name } },
    });
  }
  const hyperNode = (name: string, set: string, spec: unknown) => ({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name, labels: { 'realapi.test/set': set } },
    spec,
  });
  const node = (name: string) => ({ type: 'Node', selector: { exactMatch: { name } } });
  await write(
    api,
    'POST',
    HN,
    hyperNode('hn-a', 'a', { tier: 1, tierName: 'leaf', members: [node('node-1'), node('node-2')] }),
  );
  await write(
    api,
    'POST',
    HN,
    hyperNode('hn-b', 'b', {
      tier: 1,
      members: [{ type: 'Node', selector: { regexMatch: { pattern: 'node-[34]' } } }],
    }),
  );
  const member = (name: string) => ({ type: 'HyperNode', selector: { exactMatch: { name } } });
  await write(api, 'POST', HN, hyperNode('hn-c', 'b', { tier: 2, members: [member('hn-a'), member('hn-b')] }));
  const cms = `/api/v1/namespaces/${NS}/configmaps`;
  const cm = await write(api, 'POST', cms, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'volcano-controller-configmap', namespace: NS },
    data: { 'volcano-controller.conf': 'networkTopologyDiscovery: []\n' },
  });
  await write(
    api,
    'POST',
    cms,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other-configmap', namespace: NS }, data: { a: 'b' } },
    {},
  );
  await write(api, 'POST', `/api/v1/namespaces/${NS}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'realapi-secret', namespace: NS },
    data: { k: 'dg==' },
  });
  const t0 = '2020-01-01T00:00:00.000000Z';
  await write(api, 'POST', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'vc-hypernode-controller-manager', namespace: NS },
    spec: { holderIdentity: 'host-a_1', leaseDurationSeconds: 15, acquireTime: t0, renewTime: t0, leaseTransitions: 0 },
  });
  await write(api, 'POST', `/api/v1/namespaces/${NS}/events`, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'volcano-controller-configmap.15e59a35b98a0000', namespace: NS },
    involvedObject: {
      kind: 'ConfigMap',
      namespace: NS,
      name: 'volcano-controller-configmap',
      uid: cm.metadata.uid,
      apiVersion: 'v1',
      resourceVersion: cm.metadata.resourceVersion,
    },
    reason: 'DiscoveryFailed',
    message: 'discovery failed: example',
    source: { component: 'vc-hypernode-controller-manager', host: 'host-a' },
    firstTimestamp: '2020-01-01T00:00:00Z',
    lastTimestamp: '2020-01-01T00:00:00Z',
    count: 1,
    type: 'Warning',
    reportingComponent: 'vc-hypernode-controller-manager',
    reportingInstance: 'host-a',
  });
}

const labelPatch = (labels: Record<string, string | null>) => ({ metadata: { labels } });

/** The writes each recorded watch saw (`actionsDuringWatch`), made once the watch is open. */
const WATCH_ACTIONS: Record<string, (api: ApiServer) => Promise<void>> = {
  'nodes-metadata-bookmarks': async (api) => {
    await write(api, 'POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-w', labels: { 'realapi.test/rack': 'r3' } },
    });
    await write(api, 'PATCH', '/api/v1/nodes/node-w', labelPatch({ 'realapi.test/rack': 'r4' }), MERGE);
    await write(api, 'DELETE', '/api/v1/nodes/node-w', undefined);
  },
  'nodes-metadata-fallback-accept': (api) =>
    write(api, 'PATCH', '/api/v1/nodes/node-1', labelPatch({ 'realapi.test/touched': 'yes' }), MERGE),
  'nodes-watch-with-list-accept': (api) =>
    write(api, 'PATCH', '/api/v1/nodes/node-2', labelPatch({ 'realapi.test/touched': 'yes' }), MERGE),
  'nodes-full-bookmarks': (api) =>
    write(api, 'PATCH', '/api/v1/nodes/node-3', labelPatch({ 'realapi.test/touched': 'yes' }), MERGE),
  'hypernodes-bookmarks': async (api) => {
    const members = (names: string[]) => names.map((name) => ({ type: 'Node', selector: { exactMatch: { name } } }));
    const created = await write(api, 'POST', HN, {
      apiVersion: 'topology.volcano.sh/v1alpha1',
      kind: 'HyperNode',
      metadata: { name: 'hn-w', labels: { 'realapi.test/set': 'w' } },
      spec: { tier: 1, members: members(['node-5']) },
    });
    const updated = await write(api, 'PUT', `${HN}/hn-w`, {
      ...created,
      spec: { ...created.spec, members: members(['node-5', 'node-4']) },
    });
    await write(api, 'PUT', `${HN}/hn-w/status`, { ...updated, status: { nodeCount: 2 } });
    await write(api, 'DELETE', `${HN}/hn-w`, undefined);
  },
  'hypernodes-labelselector-leave-enter': async (api) => {
    await write(api, 'PATCH', `${HN}/hn-a`, labelPatch({ 'realapi.test/set': 'x' }), MERGE);
    await write(api, 'PATCH', `${HN}/hn-a`, labelPatch({ 'realapi.test/set': 'a' }), MERGE);
  },
  'configmap-fieldselector': async (api) => {
    const cms = `/api/v1/namespaces/${NS}/configmaps`;
    await write(api, 'PATCH', `${cms}/other-configmap`, { data: { a: 'c' } }, MERGE);
    const cur = (await call(api, 'GET', `${cms}/volcano-controller-configmap`)).body;
    await write(api, 'PUT', `${cms}/volcano-controller-configmap`, {
      ...cur,
      data: { 'volcano-controller.conf': 'networkTopologyDiscovery: [{source: ufm}]\n' },
    });
    await write(api, 'DELETE', `${cms}/volcano-controller-configmap`, undefined);
    await write(api, 'POST', cms, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'volcano-controller-configmap', namespace: NS },
      data: { 'volcano-controller.conf': 'networkTopologyDiscovery: []\n' },
    });
  },
};

/** Cases that are notes, not requests: what the recorder did between requests. */
const NOTES: Record<string, (rig: Rig, c: RecordedCase) => Promise<void>> = {
  'nodes-list-before-watch': async ({ api, b }, c) => {
    const r = await call(api, 'GET', '/api/v1/nodes', {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
    });
    b.matches((c.list as { resourceVersion: string }).resourceVersion, r.body.metadata.resourceVersion);
  },
  // Between the first page and the compaction the recorder relabelled node-1 twice (the revisions the old watch then
  // replays).
  'etcd-compaction': async ({ api, b }, c) => {
    for (const phase of ['before', 'after'])
      await write(api, 'PATCH', '/api/v1/nodes/node-1', labelPatch({ 'realapi.test/compaction': phase }), MERGE);
    api.compact({ watchCache: false });
    b.matches((c.compactedAt as { resourceVersion: string }).resourceVersion, api.resourceVersion);
  },
};

/** Replays one recording; returns its differences not listed as known, and the known ones it met. */
async function conformance(
  file: string,
  setup: (api: ApiServer) => Promise<void>,
): Promise<{ unexplained: string[]; met: Set<number> }> {
  const rig = await start();
  const unexplained: string[] = [];
  const met = new Set<number>();
  try {
    await setup(rig.api);
    for (const c of loadRecording(file).cases) {
      if (!c.request || !c.response) {
        const note = NOTES[c.id];
        if (!note) throw new Error(`${file} ${c.id}: a note case the test does not know how to replay`);
        await note(rig, c);
        continue;
      }
      const actions = WATCH_ACTIONS[c.id];
      const streaming = () => rig.api.requests.count({ verb: 'watch', code: 200 });
      const before = streaming();
      const pending = replay(rig.api, c.request, rig.ids, rig.b);
      if (actions) {
        await waitFor(() => streaming() > before, { what: `the watch of ${c.id} to stream` });
        await actions(rig.api);
      }
      for (const diff of compareReply(c.response, await pending, rig.b)) {
        const where = `${file.replace(/\.json$/, '')} ${c.id}`;
        const known = KNOWN_DIFFERENCES.findIndex((k) => k.where.test(where) && k.diff.test(diff));
        if (known >= 0) met.add(known);
        else unexplained.push(`${where}: ${diff}`);
      }
    }
  } finally {
    await rig.api.close();
  }
  return { unexplained, met };
}

const empty = async () => {};

/**
 * The cluster as compaction.json found it, after the other recordings: node-5 deleted, node-1..3 touched by the
 * watches.
 */
async function afterTheOthers(api: ApiServer): Promise<void> {
  await populate(api);
  await write(api, 'DELETE', '/api/v1/nodes/node-5', undefined);
  for (const n of ['node-1', 'node-2', 'node-3'])
    await write(api, 'PATCH', `/api/v1/nodes/${n}`, labelPatch({ 'realapi.test/touched': 'yes' }), MERGE);
}
const FILES: Array<[string, (api: ApiServer) => Promise<void>]> = [
  ['lists-empty.json', empty],
  ['setup-writes.json', empty],
  ['lists-populated.json', populate],
  ['pagination.json', populate],
  ['node-get.json', populate],
  ['watches.json', populate],
  ['hypernode-writes.json', populate],
  ['size-limits.json', populate],
  ['leases.json', populate],
  ['events.json', populate],
  ['auth.json', populate],
  ['compaction.json', afterTheOthers],
];

const metAll = new Set<number>();
test('every recording in the repository is replayed', () => {
  const recorded = readdirSync(RECORDINGS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  assert.equal(FILES.map(([file]) => file).sort(), recorded);
});

for (const [file, setup] of FILES) {
  test(`the stand-in answers ${file} as the real API server did`, async () => {
    const { unexplained, met } = await conformance(file, setup);
    for (const i of met) metAll.add(i);
    assert.ok(
      unexplained.length === 0,
      `${unexplained.length} differences from the recorded answers:\n${unexplained.join('\n')}`,
    );
  });
}

test('every listed known difference still occurs (a fixed one is taken off the list)', () => {
  const stale = KNOWN_DIFFERENCES.filter((_, i) => !metAll.has(i)).map((k) => `${k.where} ${k.diff}`);
  assert.equal(stale, []);
});

test.run();
