import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import type { HyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { STATUS_QUIET_MS, StatusWriter } from '../../../src/hypernode/reconcile/status-writer.ts';
import { FakeHyperNodeClient } from '../../support/fake-hypernode-client.ts';
import { FakeInformer } from '../../support/fake-informer.ts';
import {
  anyHyperNode,
  hyperNodeWithNulls,
  nodeLabels,
  NODE_NAMES,
  nodes,
  referenceNodeCount,
  wellFormedHyperNode,
} from '../../support/hypernode-arbitraries.ts';
import { propertyParameters } from '../../support/property.ts';
import { within, waitFor } from '../../../testing/wait.ts';
import { FakeClock } from '../../kube/fake-clock.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';
import { unexpectedWorkerError } from '../../support/worker-errors.ts';

/** Anything that would end the controller process: an unhandled rejection or exception. */
const fatal: unknown[] = [];
process.on('unhandledRejection', (err) => fatal.push(err));
process.on('uncaughtException', (err) => fatal.push(err));

type Step = { hyperNode: HyperNode; wellFormed: boolean } | { node: NodeMeta } | { removeNode: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  wellFormedHyperNode.map((hyperNode) => ({ hyperNode, wellFormed: true })),
  fc.oneof(anyHyperNode, hyperNodeWithNulls).map((hyperNode) => ({ hyperNode, wellFormed: false })),
  fc.record({ name: fc.constantFrom(...NODE_NAMES), labels: nodeLabels }).map((metadata) => ({ node: { metadata } })),
  fc.constantFrom(...NODE_NAMES).map((removeNode) => ({ removeNode })),
);

test('the status writer survives any stream of HyperNodes and Node changes and writes the reference count', async () => {
  await fc.assert(
    fc.asyncProperty(nodes, fc.array(step, { minLength: 1, maxLength: 12 }), async (initialNodes, steps) => {
      fatal.length = 0;
      const clock = new FakeClock();
      const client = new FakeHyperNodeClient();
      const nodeInformer = new FakeInformer<NodeMeta>({ initial: initialNodes });
      const { logger } = capturingLogger();
      const sync = new StatusWriter({
        hyperNodes: client.informer,
        nodes: nodeInformer,
        client,
        events: { event() {} },
        regarding: () => ({ metadata: { name: 'cm' } }),
        metrics: newHyperNodeMetrics(new Registry()),
        clock,
        logger,
        onWorkerError: unexpectedWorkerError('hypernode-status'),
      });
      const registrations = [
        client.informer.addEventHandler(sync.hyperNodeHandler()),
        nodeInformer.addEventHandler(sync.nodeHandler()),
      ];
      const worker = sync.run();
      /** Name → whether the HyperNode last written under it is well-formed. */
      const kinds = new Map<string, boolean>();
      try {
        for (const s of steps) {
          if ('hyperNode' in s) {
            client.seed(s.hyperNode);
            kinds.set(s.hyperNode.metadata.name, s.wellFormed);
          } else if ('node' in s) {
            nodeInformer.apply(s.node);
          } else if (nodeInformer.get(s.removeNode)) {
            nodeInformer.remove(s.removeNode, { tombstone: true });
          }
          await clock.advance(STATUS_QUIET_MS);
        }
        const settled = () =>
          sync.queue.len() === 0 &&
          [...kinds].every(([name, wellFormed]) => {
            const count = client.server(name)!.status?.nodeCount ?? 0;
            return wellFormed
              ? count === referenceNodeCount(client.informer.get(name)!, nodeInformer.list())
              : Number.isInteger(count);
          });
        await waitFor(
          async () => {
            await clock.advance(STATUS_QUIET_MS);
            return settled();
          },
          { timeoutMs: 3000, intervalMs: 1, what: 'every nodeCount equal to the reference' },
        );
        assert.equal(fatal, [], 'nothing escaped to the process');
      } finally {
        sync.shutDown();
        await within(worker, 2000, 'status worker exit');
        for (const r of registrations) r.remove();
      }
    }),
    propertyParameters(60),
  );
});

test.run();
