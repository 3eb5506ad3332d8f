// HyperNode status.conditions through the status subresource, as a real
// kube-apiserver treats them (the CRD's schema for metav1.Condition): a
// well-formed condition is stored; a reason off the CRD's pattern, a status
// outside True/False/Unknown or a lastTransitionTime that is no date-time is
// refused with 422; a spec change sent to /status is ignored and the object's
// generation stays.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServer } from '../../../testing/apiserver/index.ts';
import { call, HN, hyperNode } from '../../../testing/apiserver-client.ts';

let api: ApiServer;
test.before(async () => {
  api = await startApiServer({ namespaces: ['volcano-system'] });
});
test.after(async () => {
  await api.close();
});

const condition = {
  type: 'NodesReady',
  status: 'False',
  reason: 'NodesNotReady',
  message: '1 of 2 Nodes not ready: n1 (NotReady).',
  lastTransitionTime: '2026-12-01T00:00:00Z',
  observedGeneration: 1,
};

async function created(name: string) {
  const r = await call(api, 'POST', HN, {
    body: {
      ...hyperNode(name),
      spec: { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'n1' } } }] },
    },
  });
  assert.is(r.status, 201);
  return r.body;
}

test('a condition is stored through /status; a spec sent with it is ignored', async () => {
  const hn = await created('ok');
  const r = await call(api, 'PUT', `${HN}/ok/status`, {
    body: { ...hn, spec: { tier: 2 }, status: { conditions: [condition] } },
  });
  assert.is(r.status, 200);
  assert.equal(r.body.status.conditions, [condition]);
  assert.is(r.body.spec.tier, 1, 'spec unchanged through /status');
  assert.is(r.body.metadata.generation, 1);
});

test('a reason off the pattern, a status off the enum and a time that is no date-time are refused', async () => {
  const hn = await created('bad');
  const put = (c: Record<string, unknown>) =>
    call(api, 'PUT', `${HN}/bad/status`, { body: { ...hn, status: { conditions: [{ ...condition, ...c }] } } });
  const reason = await put({ reason: 'Nodes not ready' });
  assert.is(reason.status, 422);
  assert.match(
    reason.body.message,
    "status.conditions[0].reason in body should match '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'",
  );
  const status = await put({ status: 'Maybe' });
  assert.is(status.status, 422);
  assert.match(status.body.message, 'status.conditions[0].status: Unsupported value: "Maybe"');
  const time = await put({ lastTransitionTime: 'yesterday' });
  assert.is(time.status, 422);
  assert.match(time.body.message, 'status.conditions[0].lastTransitionTime');
});

test.run();
