// The reconciler under test with the fakes: an in-memory API client whose
// informer is the cache, recorded Events, a registry to read metrics back, a
// logger whose lines the test reads, and the retry worker running on a fake
// clock that the test steps.

import { Registry } from 'prom-client';
import type { KubeObject } from '../../../src/kube/types.ts';
import type { HyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import type { HyperNodeClient } from '../../../src/hypernode/model/contracts.ts';
import { newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { TopologyReconciler } from '../../../src/hypernode/reconcile/reconciler.ts';
import { FakeHyperNodeClient } from '../../support/fake-hypernode-client.ts';
import { FakeClock } from '../../kube/fake-clock.ts';
import { within } from '../../../testing/wait.ts';
import { CM_NAME, CM_NAMESPACE, RecordingEvents } from '../../support/controller-fixtures.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';
import { unexpectedWorkerError } from '../../support/worker-errors.ts';

/** What the controller attaches source-level Events to: the discovery ConfigMap. */
export const CONFIG_MAP_REF: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: CM_NAMESPACE, name: CM_NAME },
};

/** The reconciler with its fakes, its retry worker not yet running; `wrapClient` puts a client in front of the fake. */
export function newReconciler(
  seed: HyperNode[] = [],
  clock: FakeClock = new FakeClock(),
  o: { wrapClient?: (fake: FakeHyperNodeClient) => HyperNodeClient; writeConcurrency?: () => number } = {},
) {
  const client = new FakeHyperNodeClient();
  for (const hn of seed) client.seed(hn);
  const events = new RecordingEvents();
  const registry = new Registry();
  const { logger, lines } = capturingLogger();
  const reconciler = new TopologyReconciler({
    hyperNodes: client.informer,
    client: o.wrapClient ? o.wrapClient(client) : client,
    events,
    metrics: newHyperNodeMetrics(registry),
    clock,
    logger,
    onWorkerError: unexpectedWorkerError('hypernode-write-retry'),
    regarding: () => CONFIG_MAP_REF,
    ...(o.writeConcurrency ? { writeConcurrency: o.writeConcurrency } : {}),
  });
  return { client, events, registry, reconciler, clock, lines };
}

export function startReconciler(
  seed: HyperNode[] = [],
  clock: FakeClock = new FakeClock(),
  o: Parameters<typeof newReconciler>[2] = {},
) {
  const { client, events, registry, reconciler, lines } = newReconciler(seed, clock, o);
  const worker = reconciler.run();
  const stop = async () => {
    reconciler.shutDown();
    await within(worker, 2000, 'retry worker exit');
  };
  return { client, events, registry, reconciler, clock, lines, stop };
}
