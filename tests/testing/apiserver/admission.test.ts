import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { call, HN, hyperNode } from '../../../testing/apiserver-client.ts';

/** The cause a real server adds when schema errors stop the CEL rules from running. */
const RULES_NOT_CHECKED =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

const NS = 'volcano-system';
const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;

let api: ApiServer;
test.before(async () => {
  api = await startApiServer({ namespaces: [NS] });
});
test.after(async () => {
  await api.close();
});

async function createHn(name: string, spec: unknown, extra: Record<string, unknown> = {}) {
  return call(api, 'POST', HN, { body: { ...hyperNode(name), spec, ...extra } });
}

test('spec.tier missing is "Required value"', async () => {
  const r = await createHn('t0', { members: [{ type: 'Node', selector: { exactMatch: { name: 'n' } } }] });
  assert.is(r.status, 422);
  assert.is(r.body.reason, 'Invalid');
  // A missing field stops the CEL rules; the real server says so in a last cause with field "<nil>".
  assert.is(
    r.body.message,
    `HyperNode.topology.volcano.sh "t0" is invalid: [spec.tier: Required value, ${RULES_NOT_CHECKED}]`,
  );
  assert.equal(r.body.details.causes, [
    { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.tier' },
    { reason: 'FieldValueInvalid', message: RULES_NOT_CHECKED.slice('<nil>: '.length), field: '<nil>' },
  ]);
  assert.is(r.body.details.kind, 'HyperNode');
  assert.is(r.body.details.group, 'topology.volcano.sh');
});

test('tier 0 is accepted; a negative tier and a string tier are not', async () => {
  assert.is((await createHn('t-zero', { tier: 0 })).status, 201);
  const neg = await createHn('t-neg', { tier: -1 });
  assert.is(
    neg.body.message,
    'HyperNode.topology.volcano.sh "t-neg" is invalid: spec.tier: Invalid value: -1: spec.tier in body should be greater than or equal to 0',
  );
  const str = await createHn('t-str', { tier: '1' });
  assert.is(
    str.body.message,
    `HyperNode.topology.volcano.sh "t-str" is invalid: [spec.tier: Invalid value: "string": spec.tier in body must be of type integer: "string", ${RULES_NOT_CHECKED}]`,
  );
  assert.is(str.body.details.causes[0].reason, 'FieldValueTypeInvalid');
});

test('selector CEL rules: none and more than one part', async () => {
  const none = await createHn('sel0', { tier: 1, members: [{ type: 'Node', selector: {} }] });
  assert.is(
    none.body.message,
    'HyperNode.topology.volcano.sh "sel0" is invalid: spec.members[0].selector: Invalid value: "object": Either ExactMatch or RegexMatch or LabelMatch must be specified',
  );
  const two = await createHn('sel2', {
    tier: 1,
    members: [{ type: 'Node', selector: { exactMatch: { name: 'a' }, regexMatch: { pattern: 'b' } } }],
  });
  assert.is(
    two.body.message,
    'HyperNode.topology.volcano.sh "sel2" is invalid: spec.members[0].selector: Invalid value: "object": Only one of ExactMatch, RegexMatch, or LabelMatch can be specified',
  );
});

test('enum, pattern, minLength, maxLength and minItems are enforced; several causes are bracketed', async () => {
  const r = await createHn('many', {
    tier: 1,
    tierName: 'x'.repeat(254),
    members: [
      { type: 'Rack', selector: { exactMatch: { name: 'Bad_Name' } } },
      { type: 'Node', selector: { regexMatch: { pattern: '' } } },
    ],
  });
  assert.is(r.status, 422);
  assert.is(
    r.body.message,
    'HyperNode.topology.volcano.sh "many" is invalid: [' +
      [
        `spec.members[0].selector.exactMatch.name: Invalid value: "Bad_Name": spec.members[0].selector.exactMatch.name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
        'spec.members[0].type: Unsupported value: "Rack": supported values: "Node", "HyperNode"',
        'spec.members[1].selector.regexMatch.pattern: Invalid value: "": spec.members[1].selector.regexMatch.pattern in body should be at least 1 chars long',
        'spec.tierName: Too long: may not be more than 253 bytes',
        RULES_NOT_CHECKED,
      ].join(', ') +
      ']',
  );
  const empty = await createHn('nomembers', { tier: 1, members: [] });
  assert.is(
    empty.body.message,
    'HyperNode.topology.volcano.sh "nomembers" is invalid: spec.members: Invalid value: 0: spec.members in body should have at least 1 items',
  );
  const noType = await createHn('notype', { tier: 1, members: [{ selector: { exactMatch: { name: 'a' } } }] });
  assert.is(
    noType.body.message,
    `HyperNode.topology.volcano.sh "notype" is invalid: [spec.members[0].type: Required value, ${RULES_NOT_CHECKED}]`,
  );
});

test('a wrong type on an enum field reports both the type and the enum', async () => {
  const r = await createHn('enumtype', { tier: 1, members: [{ type: 5, selector: { exactMatch: { name: 'a' } } }] });
  assert.equal(
    r.body.details.causes.map((c: any) => c.message),
    [
      'Invalid value: "integer": spec.members[0].type in body must be of type string: "integer"',
      'Unsupported value: 5: supported values: "Node", "HyperNode"',
      RULES_NOT_CHECKED.slice('<nil>: '.length),
    ],
  );
});

test('status is validated on the status subresource (int64, minimum, condition fields)', async () => {
  const c = (await createHn('st', { tier: 1 })).body;
  const bad = await call(api, 'PUT', `${HN}/st/status`, {
    body: { ...c, status: { nodeCount: -2, conditions: [{ type: 'Ready' }] } },
  });
  assert.is(bad.status, 422);
  assert.match(
    bad.body.message,
    'status.nodeCount: Invalid value: -2: status.nodeCount in body should be greater than or equal to 0',
  );
  assert.match(bad.body.message, 'status.conditions[0].status: Required value');
  const fine = await call(api, 'PUT', `${HN}/st/status`, { body: { ...c, status: { nodeCount: 7 } } });
  assert.is(fine.status, 200);
});

test('unknown fields are pruned and nulls dropped, as a structural schema does', async () => {
  const r = await createHn(
    'prune',
    {
      tier: 2,
      bogus: true,
      members: [{ type: 'Node', extra: 1, selector: { exactMatch: { name: 'n', x: 'y' } } }],
      tierName: null,
    },
    {
      topLevel: 'dropped',
      metadata: { name: 'prune', madeUp: 'field' },
    },
  );
  assert.is(r.status, 201);
  assert.equal(r.body.spec, { tier: 2, members: [{ type: 'Node', selector: { exactMatch: { name: 'n' } } }] });
  assert.is(r.body.topLevel, undefined);
  assert.is(r.body.metadata.madeUp, undefined);
});

test('labelMatch selectors keep their content (atomic map)', async () => {
  const sel = {
    labelMatch: { matchLabels: { rack: 'r1' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
  };
  const r = await createHn('lm', { tier: 1, members: [{ type: 'Node', selector: sel }] });
  assert.is(r.status, 201);
  assert.equal(r.body.spec.members[0].selector, sel);
});

test('object names must be DNS-1123 subdomains (namespaces: labels)', async () => {
  const r = await call(api, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'Bad_Node' } } });
  assert.is(r.status, 422);
  assert.is(
    r.body.message,
    `Node "Bad_Node" is invalid: metadata.name: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  );
  const noName = await call(api, 'POST', '/api/v1/nodes', { body: { metadata: {} } });
  assert.is(noName.body.message, 'Node "" is invalid: metadata.name: Required value: name or generateName is required');
  const ns = await call(api, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'a.b' } } });
  assert.is(ns.status, 422);
  assert.match(ns.body.message, 'a lowercase RFC 1123 label must consist of');
  const hn = await createHn('UPPER', { tier: 1 });
  assert.is(hn.status, 422);
  assert.match(
    hn.body.message,
    'HyperNode.topology.volcano.sh "UPPER" is invalid: metadata.name: Invalid value: "UPPER"',
  );
});

test('label keys and values are checked', async () => {
  const r = await call(api, 'POST', '/api/v1/nodes', {
    body: { metadata: { name: 'lbl', labels: { 'bad key': 'ok', good: 'bad value!', ['x'.repeat(64)]: 'v' } } },
  });
  assert.is(r.status, 422);
  const fields = r.body.details.causes.map((c: any) => c.field);
  assert.equal(fields, ['metadata.labels', 'metadata.labels', 'metadata.labels']);
  assert.match(
    r.body.message,
    `metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters`,
  );
  assert.match(
    r.body.message,
    `metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters`,
  );
  assert.match(r.body.message, 'name part must be no more than 63 characters');
  const prefixed = await call(api, 'POST', '/api/v1/nodes', {
    body: { metadata: { name: 'lbl2', labels: { 'volcano.sh/hypernode': 's0', 'kubernetes.io/hostname': '' } } },
  });
  assert.is(prefixed.status, 201);
});

test('Lease MicroTime fields need exactly six fractional digits (400), durations must be positive (422)', async () => {
  const good = await call(api, 'POST', LEASES, {
    body: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l1' },
      spec: {
        holderIdentity: 'a_1',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-02T03:04:05.123456Z',
        renewTime: '2026-01-02T03:04:05.123456+00:00',
        leaseTransitions: 0,
      },
    },
  });
  assert.is(good.status, 201, good.text);
  for (const t of ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.123Z', '2026-01-02T03:04:05.123456789Z']) {
    const r = await call(api, 'POST', LEASES, { body: { metadata: { name: 'l2' }, spec: { renewTime: t } } });
    assert.is(r.status, 400, t);
    assert.is(r.body.reason, 'BadRequest');
    assert.match(
      r.body.message,
      `Lease in version "v1" cannot be handled as a Lease: parsing time "${t}" as "2006-01-02T15:04:05.000000Z07:00"`,
    );
  }
  const wrongType = await call(api, 'POST', LEASES, {
    body: { metadata: { name: 'l3' }, spec: { leaseDurationSeconds: '15' } },
  });
  assert.is(wrongType.status, 400);
  assert.is(
    wrongType.body.message,
    'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
  );
  const zero = await call(api, 'POST', LEASES, {
    body: { metadata: { name: 'l4' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } },
  });
  assert.is(zero.status, 422);
  assert.is(
    zero.body.message,
    'Lease.coordination.k8s.io "l4" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
  );
});

test('Lease updates need a resourceVersion; a PUT of a missing Lease creates it (201)', async () => {
  const put = await call(api, 'PUT', `${LEASES}/by-put`, {
    body: {
      metadata: { name: 'by-put', resourceVersion: '1' },
      spec: { holderIdentity: 'x', strategy: 'OldestEmulationVersion' },
    },
  });
  assert.is(put.status, 201);
  assert.is(put.body.spec.strategy, undefined, 'coordinated leader election fields are dropped');
  const noRv = await call(api, 'PUT', `${LEASES}/by-put`, {
    body: { metadata: { name: 'by-put' }, spec: { holderIdentity: 'y' } },
  });
  assert.is(noRv.status, 422);
  // Worded with the resource, not the kind, as a real server words this one check.
  assert.is(
    noRv.body.message,
    'leases.coordination.k8s.io "by-put" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
  );
  assert.is(noRv.body.details.kind, 'leases');
  const ok = await call(api, 'PUT', `${LEASES}/by-put`, { body: { ...put.body, spec: { holderIdentity: 'y' } } });
  assert.is(ok.status, 200);
});

test('Events must live in their involved object namespace, or default for cluster-scoped objects', async () => {
  const ev = (ns: string, involvedNs?: string) => ({
    metadata: { name: `e-${Math.random().toString(36).slice(2, 8)}`, namespace: ns },
    involvedObject: {
      kind: involvedNs ? 'Lease' : 'Node',
      name: 'x',
      ...(involvedNs ? { namespace: involvedNs } : {}),
    },
    reason: 'Test',
    firstTimestamp: '2026-01-01T00:00:00Z',
  });
  assert.is((await call(api, 'POST', `/api/v1/namespaces/${NS}/events`, { body: ev(NS, NS) })).status, 201);
  assert.is((await call(api, 'POST', '/api/v1/namespaces/default/events', { body: ev('default') })).status, 201);
  const wrong = await call(api, 'POST', `/api/v1/namespaces/${NS}/events`, { body: ev(NS, 'default') });
  assert.is(wrong.status, 422);
  assert.match(
    wrong.body.message,
    /^Event "e-\w+" is invalid: involvedObject.namespace: Invalid value: "default": does not match event.namespace$/,
  );
  const cluster = await call(api, 'POST', `/api/v1/namespaces/${NS}/events`, { body: ev(NS) });
  assert.is(cluster.status, 422);
  assert.match(cluster.body.message, 'involvedObject.namespace: Invalid value: "": does not match event.namespace');
});

test('a new-style core/v1 Event (eventTime set) needs its reporting fields', async () => {
  const base = {
    metadata: { name: 'new-style' },
    involvedObject: { kind: 'Lease', namespace: NS, name: 'x' },
    eventTime: '2026-01-01T00:00:00.000000Z',
  };
  const bad = await call(api, 'POST', `/api/v1/namespaces/${NS}/events`, { body: base });
  assert.is(bad.status, 422);
  assert.equal(
    [...new Set(bad.body.details.causes.map((c: any) => c.field))],
    ['reportingController', 'reportingInstance', 'action', 'reason'],
  );
  const ok = await call(api, 'POST', `/api/v1/namespaces/${NS}/events`, {
    body: {
      ...base,
      reportingComponent: 'vc-hypernode-controller-manager',
      reportingInstance: 'pod-1',
      action: 'Reconcile',
      reason: 'Synced',
    },
  });
  assert.is(ok.status, 201, ok.text);
});

test('ConfigMap keys and Secret data are checked; secret type defaults to Opaque', async () => {
  const cm = await call(api, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: { metadata: { name: 'cm' }, data: { 'bad key': 'v' } },
  });
  assert.is(cm.status, 422);
  assert.match(
    cm.body.message,
    'data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters',
  );
  const dup = await call(api, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: { metadata: { name: 'cm' }, data: { k: 'v' }, binaryData: { k: 'dg==' } },
  });
  assert.is(
    dup.body.message,
    'ConfigMap "cm" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData',
  );
  const cmType = await call(api, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: { metadata: { name: 'cm' }, data: { k: 1 } },
  });
  assert.is(cmType.status, 400);
  const sec = await call(api, 'POST', `/api/v1/namespaces/${NS}/secrets`, {
    body: { metadata: { name: 's' }, data: { password: 'not base64!' } },
  });
  assert.is(sec.status, 400);
  assert.match(
    sec.body.message,
    'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte',
  );
  const ok = await call(api, 'POST', `/api/v1/namespaces/${NS}/secrets`, {
    body: { metadata: { name: 's' }, data: { password: Buffer.from('pw').toString('base64') } },
  });
  assert.is(ok.status, 201);
  assert.is(ok.body.type, 'Opaque');
  const str = await call(api, 'POST', `/api/v1/namespaces/${NS}/secrets`, {
    body: { metadata: { name: 's2' }, data: { a: 'YQ==' }, stringData: { username: 'ufm' } },
  });
  assert.equal(str.body.data, { a: 'YQ==', username: Buffer.from('ufm').toString('base64') });
  assert.is(str.body.stringData, undefined);
});

test.run();
