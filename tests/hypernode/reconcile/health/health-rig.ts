// The status writer over in-memory caches for the health tests: a FakeHyperNodeClient
// holding a small tree (zone → spines → racks → Nodes) owned by one source,
// a FakeInformer of NodeHealth, a fake clock to fire the coalescing window.

import { Registry } from 'prom-client';
import { STATUS_QUIET_MS, StatusWriter } from '../../../../src/hypernode/reconcile/status-writer.ts';
import { DEFAULT_HEALTH, type HealthSettings } from '../../../../src/hypernode/config/health-config.ts';
import { exportHealthGauges } from '../../../../src/hypernode/reconcile/health/health-metrics.ts';
import type { NodeHealth } from '../../../../src/hypernode/reconcile/health/node-health.ts';
import { newHyperNodeMetrics } from '../../../../src/hypernode/hypernode-metrics.ts';
import { build, buildMembers } from '../../../../src/hypernode/model/hypernode-builders.ts';
import type { EventType } from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../../src/log.ts';
import { waitFor, within } from '../../../../testing/wait.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { FakeHyperNodeClient } from '../../../support/fake-hypernode-client.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

export const SOURCE = 'ufm';
const owned = { 'volcano.sh/network-topology-source': SOURCE };

/** zone → spine-0, spine-1 → rack-0..3 → n0..n7 (two per rack). */
export function tree(): HyperNode[] {
  const racks = [0, 1, 2, 3].map((r) =>
    build(`rack-${r}`, 1, buildMembers([`n${2 * r}`, `n${2 * r + 1}`], 'Node'), owned),
  );
  const spines = [0, 1].map((s) =>
    build(`spine-${s}`, 2, buildMembers([`rack-${2 * s}`, `rack-${2 * s + 1}`], 'HyperNode'), owned),
  );
  return [...racks, ...spines, build('zone', 3, buildMembers(['spine-0', 'spine-1'], 'HyperNode'), owned)];
}
export const NODES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'];

export const health = (name: string, ready: NodeHealth['ready'] = 'True', unschedulable = false): NodeHealth => ({
  metadata: { name },
  ready,
  unschedulable,
  taints: [],
});

export function rig(
  hyperNodes: HyperNode[] = tree(),
  settings: HealthSettings = { ...DEFAULT_HEALTH, nodes: true, fabric: true },
) {
  const clock = new FakeClock();
  const client = new FakeHyperNodeClient();
  for (const hn of hyperNodes) client.seed(hn);
  const nodes = new FakeInformer<NodeHealth>({ initial: NODES.map((n) => health(n)) });
  const events: { type: EventType; reason: string; message: string }[] = [];
  const registry = new Registry();
  const writer = new StatusWriter({
    hyperNodes: client.informer,
    nodes: new FakeInformer<NodeMeta>(),
    client,
    events: { event: (_o, type, reason, message) => events.push({ type, reason, message }) },
    regarding: () => ({ metadata: { name: 'cm', namespace: 'ns' } }),
    metrics: newHyperNodeMetrics(registry),
    clock,
    logger: nullLogger,
    onWorkerError: unexpectedWorkerError('hypernode-status'),
  });
  exportHealthGauges(registry, writer.judgements, writer.labelHolds);
  writer.setSettings(settings);
  writer.setNodeHealth(nodes);
  const registrations = [
    client.informer.addEventHandler(writer.hyperNodeHandler()),
    nodes.addEventHandler(writer.nodeHealthHandler()),
  ];
  const worker = writer.run();
  /** Fires the coalescing window and waits until `probe` holds. */
  const settle = async (probe: () => boolean, what: string) => {
    await clock.advance(STATUS_QUIET_MS);
    await waitFor(probe, { timeoutMs: 5_000, what });
  };
  const stop = async () => {
    writer.shutDown();
    await within(worker, 2000, 'status worker exit');
    for (const r of registrations) r.remove();
  };
  const condition = (name: string, type: string) =>
    client.server(name)?.status?.conditions?.find((c) => c.type === type);
  return { clock, client, nodes, writer, events, registry, settle, stop, condition };
}
