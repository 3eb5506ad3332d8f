// Health never changes membership: whatever sequence of Node health events
// arrives (NotReady, Unknown, Ready, cordon, deletion, return), the condition
// writer only ever writes status, every HyperNode keeps its name, uid and
// members, and NodesReady ends as the reference judgement of the final state.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NodeHealth } from '../../../../src/hypernode/reconcile/health/node-health.ts';
import { propertyParameters } from '../../../support/property.ts';
import { health, NODES, rig, tree } from './health-rig.ts';

type Step =
  | { node: string; ready: NodeHealth['ready']; unschedulable: boolean }
  | { remove: string }
  | { settle: true };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    node: fc.constantFrom(...NODES),
    ready: fc.constantFrom<NodeHealth['ready']>('True', 'False', 'Unknown'),
    unschedulable: fc.boolean(),
  }),
  fc.constantFrom(...NODES).map((remove) => ({ remove })),
  fc.constant({ settle: true as const }),
);

/** What NodesReady must say of a HyperNode, from first principles. */
function reference(below: string[], state: Map<string, NodeHealth>): string {
  if (below.some((n) => state.get(n)?.ready !== 'True')) return 'False NodesNotReady';
  return below.some((n) => state.get(n)!.unschedulable) ? 'True NodesCordoned' : 'True AllNodesReady';
}

const BELOW: Record<string, string[]> = {
  'rack-0': ['n0', 'n1'],
  'rack-1': ['n2', 'n3'],
  'rack-2': ['n4', 'n5'],
  'rack-3': ['n6', 'n7'],
  'spine-0': ['n0', 'n1', 'n2', 'n3'],
  'spine-1': ['n4', 'n5', 'n6', 'n7'],
  zone: NODES,
};

test('any sequence of Node health events leaves names, uids and members as they were and ends in the reference judgement', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      const r = rig();
      const shape = () =>
        r.client
          .serverNames()
          .map((n) => JSON.stringify([n, r.client.server(n)!.metadata.uid, r.client.server(n)!.spec]));
      const before = shape();
      const state = new Map(NODES.map((n) => [n, health(n)]));
      try {
        for (const s of steps) {
          if ('settle' in s) await r.clock.advance(50);
          else if ('remove' in s) {
            if (state.delete(s.remove)) r.nodes.remove(s.remove);
          } else {
            const h = health(s.node, s.ready, s.unschedulable);
            state.set(s.node, h);
            r.nodes.apply(h);
          }
        }
        const judged = () =>
          Object.keys(BELOW).map(
            (hn) => `${hn} ${r.condition(hn, 'NodesReady')?.status} ${r.condition(hn, 'NodesReady')?.reason}`,
          );
        const want = Object.entries(BELOW).map(([hn, below]) => `${hn} ${reference(below, state)}`);
        await r.settle(() => judged().join() === want.join(), `the reference judgement ${want.join(', ')}`);
        assert.equal(judged(), want);
        assert.equal(shape(), before, 'names, uids and members unchanged');
        assert.equal([...new Set(r.client.actions.map((a) => a.verb))], ['updateStatus'], 'only status writes');
        assert.equal(
          r.client.serverNames(),
          tree()
            .map((hn) => hn.metadata.name)
            .sort(),
          'nothing created or deleted',
        );
      } finally {
        await r.stop();
      }
    }),
    propertyParameters(),
  );
});

test.run();
