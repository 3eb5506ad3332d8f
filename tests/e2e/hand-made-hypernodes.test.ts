// HyperNodes written by hand in shapes the CRD admits but no discoverer
// produces — no spec at all, a member with a type and no selector — end to
// end with the built executable: they are accepted by the API server, and the
// controller keeps running, keeps reconciling the label HyperNodes and keeps
// the nodeCount of a regex HyperNode next to them up to date.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startControllerBinary } from '../support/controller-process.ts';
import {
  CLUSTER,
  NS,
  RACK,
  TOPOLOGY_A3_CONFIG,
  answeredHyperNodeWrites,
  assertNoForbidden,
  describeWrites,
  hyperNodes,
  node,
  nodeCount,
  seedConfigMap,
  workedExampleNodes,
} from './cluster.ts';
import { session } from './session.ts';

const s = session(test);
const converge = s.converge.bind(s);

const HN = { apiVersion: 'topology.volcano.sh/v1alpha1', kind: 'HyperNode' };
const NO_SPEC = { ...HN, metadata: { name: 'hand-no-spec' } };
const NO_SELECTOR = { ...HN, metadata: { name: 'hand-no-selector' }, spec: { tier: 1, members: [{ type: 'Node' }] } };
const BY_REGEX = {
  ...HN,
  metadata: { name: 'hand-regex' },
  spec: { tier: 1, members: [{ type: 'Node', selector: { regexMatch: { pattern: '^node[0-3]' } } }] },
};

test('hand-made HyperNodes without spec or selector neither stop the controller nor the work on other HyperNodes', async () => {
  const { api } = await s.startCluster();
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  // In the cluster before the controller starts: every start reads them first.
  for (const hn of [NO_SPEC, NO_SELECTOR, BY_REGEX]) api.store.create(hn);
  const controller = (s.controller = await startControllerBinary({ kubeconfig: s.cluster!.kubeconfig, namespace: NS }));

  const labelDone = () => {
    const label = hyperNodes(api, 'label');
    return label.length === 6 && label.every((hn) => nodeCount(hn) === 2);
  };
  const regexCount = () => nodeCount(hyperNodes(api).find((hn) => hn.metadata.name === 'hand-regex'));
  await converge(() => labelDone() && regexCount() === 4, 'the six label HyperNodes and the regex HyperNode counted');

  // A new Node makes the controller rescan every HyperNode, the hand-made ones included.
  api.requests.clear();
  api.store.create(node('node0b', { [RACK]: 's0', [CLUSTER]: 's4' }));
  await converge(() => regexCount() === 5, 'nodeCount of the regex HyperNode follows the new Node');
  await converge(
    () => hyperNodes(api, 'label').filter((hn) => nodeCount(hn) === 3).length === 1,
    'the label rack of the new Node reconciled',
  );

  const byName = new Map(hyperNodes(api).map((hn) => [hn.metadata.name, hn]));
  assert.ok(byName.has('hand-no-spec') && byName.has('hand-no-selector'), 'the hand-made HyperNodes are left in place');
  assert.is(byName.get('hand-no-spec')!.status, undefined, 'no status written for a HyperNode without members');
  const writes = describeWrites(await answeredHyperNodeWrites(api));
  assert.ok(
    writes.every((w) => !w.includes('hand-no-')),
    writes.join('\n'),
  );
  assert.not.match(controller.log(), /panic:/);
  assert.is(await controller.stop(), 0, 'the controller was still running and exits 0 on SIGTERM');
  assertNoForbidden(api);
});

test.run();
