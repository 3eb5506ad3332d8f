// Hand edits of label HyperNodes end to end (runServer in-process, chart
// RBAC): a deleted one comes back under the same name (any HyperNode delete
// triggers a label round, docs/design.md §2.1 step 1), and an edited spec is put back
// by the next round, touching nothing else.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import {
  RACK,
  TOPOLOGY_A3_CONFIG,
  assertNoForbidden,
  byName,
  describeWrites,
  groupOf,
  answeredHyperNodeWrites,
  hyperNodes,
  nodeCount,
  workedExampleConverged,
} from './cluster.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { session } from './session.ts';

const s = session(test);
const converge = s.converge.bind(s);
const startWorkedExample = () => s.startWorkedExample(TOPOLOGY_A3_CONFIG);

test('a label HyperNode deleted by hand is recreated under the same name; a hand-edited one is reverted; nothing else is written', async () => {
  const { api } = await startWorkedExample();
  await converge(() => workedExampleConverged(api), 'the six label HyperNodes of the worked example');
  const s0 = groupOf(api, RACK, 's0')!;
  const s1 = groupOf(api, RACK, 's1')!;
  api.requests.clear();

  // Someone trims s1's members; nothing reacts to HyperNode updates, so the edit stays until the next round.
  const edited = api.store.get('hypernodes', s1.metadata.name) as unknown as HyperNode;
  api.store.update({ ...edited, spec: { ...edited.spec, members: edited.spec!.members!.slice(0, 1) } });
  await converge(() => nodeCount(groupOf(api, RACK, 's1')) === 1, "the edit's nodeCount written");
  // Someone deletes s0: that is a trigger, and the round also repairs s1.
  api.store.delete('hypernodes', s0.metadata.name);
  await converge(() => {
    const all = byName(hyperNodes(api));
    const back = all.get(s0.metadata.name);
    return (
      back &&
      back.metadata.uid !== s0.metadata.uid &&
      nodeCount(back) === 2 &&
      memberNames(all.get(s1.metadata.name)).length === 2 &&
      nodeCount(all.get(s1.metadata.name)) === 2
    );
  }, 's0 recreated under its name and s1 repaired, both with nodeCount 2');
  assert.equal(memberNames(groupOf(api, RACK, 's0')), ['node0', 'node1']);
  assert.equal(memberNames(groupOf(api, RACK, 's1')), ['node2', 'node3']);

  // s1's nodeCount dropped to 1 with the edit and came back to 2 with the repair.
  assert.equal(
    describeWrites(await answeredHyperNodeWrites(api)).sort(),
    [
      'create <new> → 201',
      `update ${s0.metadata.name}/status → 200`,
      `update ${s1.metadata.name} → 200`,
      `update ${s1.metadata.name}/status → 200`,
      `update ${s1.metadata.name}/status → 200`,
    ].sort(),
  );
  assertNoForbidden(api);
});

test.run();
