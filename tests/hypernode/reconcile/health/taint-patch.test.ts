// One Node's taint list with only the controller's taint added or removed
// (docs/health.md, "Node taint"): every other writer's taint goes back
// exactly as read, its timeAdded included; the record says which taints are
// ours; a taint of our key that someone else set is left alone; the write is
// one merge patch carrying the resourceVersion it was decided on. And the
// full Node watch keeps a Node's taints whole.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NodeTaints } from '../../../../src/hypernode/model/contracts.ts';
import { nodeHealthOf, nodeTaintsOf } from '../../../../src/hypernode/reconcile/health/node-health.ts';
import type { FabricTaint } from '../../../../src/hypernode/reconcile/health/fabric-taints.ts';
import {
  foreignTaint,
  taintListChange,
  taintMergePatch,
} from '../../../../src/hypernode/reconcile/health/taint-patch.ts';

const KEY = 'topology.volcano.sh/fabric-unreachable';
const OURS: FabricTaint = { key: KEY, value: 'ufm.pod-a', effect: 'NoSchedule' };
const RECORD = `${KEY}=ufm.pod-a:NoSchedule`;
const GPU = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
const UNREACHABLE = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-12-01T10:00:00Z' };
const node = (taints: NodeTaints['taints'], fabricTaint?: string): NodeTaints => ({
  name: 'n1',
  resourceVersion: '41',
  taints,
  ...(fabricTaint ? { fabricTaint } : {}),
});

test('ours is appended after every other taint, each given back as read, and recorded; nothing to do once it is there', () => {
  const change = taintListChange(node([GPU, UNREACHABLE]), OURS);
  assert.equal(change, {
    resourceVersion: '41',
    taints: [GPU, UNREACHABLE, { key: KEY, value: 'ufm.pod-a', effect: 'NoSchedule' }],
    record: RECORD,
  });
  assert.is(taintListChange(node(change!.taints, RECORD), OURS), undefined);
});

test('removing ours keeps every other taint; a new effect or value replaces ours in one change', () => {
  assert.equal(taintListChange(node([GPU, { ...OURS }, UNREACHABLE], RECORD), undefined), {
    resourceVersion: '41',
    taints: [GPU, UNREACHABLE],
    record: null,
  });
  const prefer = { ...OURS, effect: 'PreferNoSchedule' };
  assert.equal(taintListChange(node([{ ...OURS }, GPU], RECORD), prefer)?.taints, [GPU, prefer]);
});

test('without our record a taint of our key is someone else’s: never removed, and ours not added beside it', () => {
  const theirs = { key: KEY, effect: 'NoSchedule' };
  assert.is(taintListChange(node([theirs]), undefined), undefined);
  assert.ok(foreignTaint(node([theirs]), OURS));
  assert.is(taintListChange(node([theirs]), OURS), undefined, 'the Node carries the key already');
  // A record of an older key: the taint equal to it is ours and goes; the new one is added.
  const old = { key: 'example.com/ib-down', value: 'ufm', effect: 'NoSchedule' };
  assert.equal(taintListChange(node([old, GPU], 'example.com/ib-down=ufm:NoSchedule'), OURS)?.taints, [
    GPU,
    { key: KEY, value: 'ufm.pod-a', effect: 'NoSchedule' },
  ]);
});

test('an edited record never makes another writer’s taint ours: only the taint equal to a record we could have written', () => {
  // The lifecycle controller's taint named in a record someone wrote: not a taint the controller writes.
  const forged = (taints: NodeTaints['taints'], record: string) => taintListChange(node(taints, record), undefined);
  assert.equal(forged([UNREACHABLE], 'node.kubernetes.io/unreachable=ufm:NoExecute')?.taints, [UNREACHABLE]);
  assert.equal(forged([GPU], 'nvidia.com/gpu=present:NoSchedule')?.taints, [GPU]);
  // Our key, another value or effect than recorded: someone overwrote it; it is theirs now.
  const overwritten = { key: KEY, value: 'maintenance', effect: 'NoSchedule' };
  assert.is(taintListChange(node([overwritten], RECORD), undefined)?.taints.length, 1);
});

test('the write is one merge patch of the whole list and the record, made against the version read', () => {
  assert.equal(taintMergePatch({ resourceVersion: '41', taints: [GPU], record: RECORD }), {
    metadata: { resourceVersion: '41', annotations: { 'topology.volcano.sh/fabric-taint': RECORD } },
    spec: { taints: [GPU] },
  });
  assert.equal(taintMergePatch({ resourceVersion: '42', taints: [], record: null }), {
    metadata: { resourceVersion: '42', annotations: { 'topology.volcano.sh/fabric-taint': null } },
    spec: { taints: null },
  });
});

test('the full Node watch keeps each taint whole, the record and the resourceVersion; a Node of none shares one empty list', () => {
  const full = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'n1',
      resourceVersion: '41',
      annotations: { 'topology.volcano.sh/fabric-taint': RECORD, 'example.com/other': 'x' },
    },
    spec: { taints: [GPU, UNREACHABLE] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
  assert.equal(nodeTaintsOf(nodeHealthOf(full)), node([GPU, UNREACHABLE], RECORD));
  const bare = (name: string) => nodeHealthOf({ metadata: { name } });
  assert.is(bare('a').taints, bare('b').taints);
});

test.run();
