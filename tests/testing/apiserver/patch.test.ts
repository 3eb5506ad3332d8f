import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { call, HN, hyperNode } from '../../../testing/apiserver-client.ts';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSONP = { 'content-type': 'application/json-patch+json' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };

let api: ApiServer;
test.before(async () => {
  api = await startApiServer();
});
test.after(async () => {
  await api.close();
});
test.before.each(() => {
  for (const h of api.store.list('hypernodes')) api.store.delete('hypernodes', h.metadata.name);
});

test('merge patch sets and removes fields and bumps generation on spec changes', async () => {
  const c = api.store.create(hyperNode('mp'));
  const r = await call(api, 'PATCH', `${HN}/mp`, {
    headers: MERGE,
    body: {
      metadata: { labels: { extra: 'yes', 'volcano.sh/network-topology-source': null } },
      spec: { tierName: 'rack' },
    },
  });
  assert.is(r.status, 200);
  assert.equal(r.body.metadata.labels, { extra: 'yes' });
  assert.is(r.body.spec.tierName, 'rack');
  assert.is(r.body.metadata.generation, 2);
  assert.ok(Number(r.body.metadata.resourceVersion) > Number(c.metadata.resourceVersion));
});

test('JSON patch applies operations in order; a failed test op is 422', async () => {
  api.store.create(hyperNode('jp'));
  const r = await call(api, 'PATCH', `${HN}/jp`, {
    headers: JSONP,
    body: [
      { op: 'test', path: '/spec/tier', value: 1 },
      { op: 'replace', path: '/spec/tier', value: 2 },
      { op: 'add', path: '/spec/members/-', value: { type: 'Node', selector: { exactMatch: { name: 'node-1' } } } },
      { op: 'add', path: '/metadata/labels/a~1b', value: 'c' },
    ],
  });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.spec.tier, 2);
  assert.is(r.body.spec.members.length, 2);
  assert.is(r.body.metadata.labels['a/b'], 'c');
  const failed = await call(api, 'PATCH', `${HN}/jp`, {
    headers: JSONP,
    body: [{ op: 'test', path: '/spec/tier', value: 7 }],
  });
  assert.is(failed.status, 422);
});

test('JSON patch move, copy and remove work on nested paths', async () => {
  api.store.create({
    ...hyperNode('jp2'),
    spec: { tier: 1, tierName: 'rack', members: [{ type: 'Node', selector: { exactMatch: { name: 'a' } } }] },
  });
  const r = await call(api, 'PATCH', `${HN}/jp2`, {
    headers: JSONP,
    body: [
      { op: 'copy', from: '/spec/members/0', path: '/spec/members/-' },
      { op: 'replace', path: '/spec/members/1/selector/exactMatch/name', value: 'b' },
      { op: 'move', from: '/spec/tierName', path: '/metadata/labels/tier-name' },
      { op: 'remove', path: '/spec/members/0' },
    ],
  });
  assert.is(r.status, 200, r.text);
  assert.equal(r.body.spec, { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'b' } } }] });
  assert.is(r.body.metadata.labels['tier-name'], 'rack');
  const missing = await call(api, 'PATCH', `${HN}/jp2`, {
    headers: JSONP,
    body: [{ op: 'remove', path: '/spec/nothing/here' }],
  });
  assert.is(missing.status, 422);
});

test('a patched object is validated like an update', async () => {
  api.store.create(hyperNode('pv'));
  const r = await call(api, 'PATCH', `${HN}/pv`, { headers: MERGE, body: { spec: { tier: null } } });
  assert.is(r.status, 422);
  assert.match(
    r.body.message,
    'HyperNode.topology.volcano.sh "pv" is invalid: [spec.tier: Required value, <nil>: Invalid value: "null": some validation rules were not checked',
  );
});

test('a patch carrying a stale resourceVersion is 409; without one it applies unconditionally', async () => {
  const c = api.store.create(hyperNode('prv'));
  api.store.update({ ...c, spec: { ...c.spec, tier: 3 } });
  const stale = await call(api, 'PATCH', `${HN}/prv`, {
    headers: MERGE,
    body: { metadata: { resourceVersion: c.metadata.resourceVersion }, spec: { tier: 4 } },
  });
  assert.is(stale.status, 409);
  assert.is(stale.body.reason, 'Conflict');
  const ok = await call(api, 'PATCH', `${HN}/prv`, { headers: MERGE, body: { spec: { tier: 4 } } });
  assert.is(ok.body.spec.tier, 4);
});

test('patching the status subresource changes only status; patching the object ignores status', async () => {
  api.store.create(hyperNode('ps'));
  const st = await call(api, 'PATCH', `${HN}/ps/status`, {
    headers: MERGE,
    body: { status: { nodeCount: 3 }, spec: { tier: 9 } },
  });
  assert.is(st.status, 200);
  assert.equal(st.body.status, { nodeCount: 3 });
  assert.is(st.body.spec.tier, 1);
  const main = await call(api, 'PATCH', `${HN}/ps`, { headers: MERGE, body: { status: { nodeCount: 8 } } });
  assert.equal(main.body.status, { nodeCount: 3 });
  assert.is(main.body.metadata.resourceVersion, st.body.metadata.resourceVersion, 'nothing changed, nothing written');
});

test('strategic merge patch works on built-ins and is 415 on custom resources; missing objects are 404', async () => {
  api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'sn' } });
  const n = await call(api, 'PATCH', '/api/v1/nodes/sn', {
    headers: STRATEGIC,
    body: { metadata: { labels: { a: 'b' } } },
  });
  assert.is(n.status, 200);
  assert.equal(n.body.metadata.labels, { a: 'b' });
  api.store.create(hyperNode('smp'));
  const h = await call(api, 'PATCH', `${HN}/smp`, { headers: STRATEGIC, body: { spec: { tier: 2 } } });
  assert.is(h.status, 415);
  assert.is(h.body.reason, 'UnsupportedMediaType');
  const missing = await call(api, 'PATCH', `${HN}/none`, { headers: MERGE, body: { spec: { tier: 2 } } });
  assert.is(missing.status, 404);
});

test('patches are logged as verb patch with their subresource', async () => {
  api.store.create(hyperNode('plog'));
  api.requests.clear();
  await call(api, 'PATCH', `${HN}/plog/status`, { headers: MERGE, body: { status: { nodeCount: 1 } } });
  assert.equal(
    api.requests.writes().map((r) => [r.verb, r.resource, r.subresource, r.name, r.code]),
    [['patch', 'hypernodes', 'status', 'plog', 200]],
  );
});

test('a Node taint list patched with a resourceVersion: replaced whole, 409 when stale, refused when a taint is invalid or twice', async () => {
  api.store.create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'tn' },
    spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] },
  });
  const rv = api.store.get('nodes', 'tn')!.metadata.resourceVersion;
  const patch = (body: unknown, headers = MERGE) => call(api, 'PATCH', '/api/v1/nodes/tn', { headers, body });
  const set = await patch({
    metadata: { resourceVersion: rv },
    spec: { taints: [{ key: 'b', value: 'x', effect: 'PreferNoSchedule' }] },
  });
  assert.is(set.status, 200, set.text);
  assert.equal(
    set.body.spec.taints,
    [{ key: 'b', value: 'x', effect: 'PreferNoSchedule' }],
    'an atomic list: replaced',
  );
  // The same list with the strategic merge patch a kubectl or client-go writer sends: replaced too (no merge key).
  const strategic = await patch({ spec: { taints: [{ key: 'c', effect: 'NoSchedule' }] } }, STRATEGIC);
  assert.equal(strategic.body.spec.taints, [{ key: 'c', effect: 'NoSchedule' }]);
  const stale = await patch({ metadata: { resourceVersion: rv }, spec: { taints: null } });
  assert.is(stale.status, 409);
  assert.equal(stale.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'Operation cannot be fulfilled on nodes "tn": the object has been modified; please apply your changes to the latest version and try again',
    reason: 'Conflict',
    details: { name: 'tn', kind: 'nodes' },
    code: 409,
  });
  const bad = await patch({
    spec: {
      taints: [
        { key: 'c', effect: 'NoSchedule' },
        { key: 'c', effect: 'NoSchedule' },
        { key: 'd', effect: 'Sometimes' },
      ],
    },
  });
  assert.is(bad.status, 422);
  assert.equal(
    bad.body.details.causes.map((c: { reason: string; field: string }) => `${c.reason} ${c.field}`),
    ['FieldValueDuplicate spec.taints[1]', 'FieldValueNotSupported spec.taints[2].effect'],
  );
  assert.match(
    bad.body.message,
    'spec.taints[1]: Duplicate value: core.Taint{Key:"c", Value:"", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
  );
  assert.match(
    bad.body.message,
    'spec.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  );
  api.store.delete('nodes', 'tn');
});

test.run();
