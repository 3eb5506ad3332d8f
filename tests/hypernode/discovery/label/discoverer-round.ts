// A label discoverer started under a fake clock, and one round of it, for the
// discoverer tests: let the trigger debounce elapse and take what it offers.

import {
  labelDiscovererFactory,
  TRIGGER_DEBOUNCE_MS,
} from '../../../../src/hypernode/discovery/label/label-discoverer.ts';
import type { Discoverer, DiscoveryEntry, Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../../src/log.ts';
import type { Channel } from '../../../../src/util/channel.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { RecordingMetrics } from '../../../support/recording-metrics.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { FakeClock, settle } from '../../../kube/fake-clock.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const entry = (networkTopologyTypes: unknown): DiscoveryEntry => ({
  source: 'label',
  enabled: true,
  intervalMs: 3_600_000,
  maxDeletePercent: 50,
  config: { networkTopologyTypes },
});

/** A started label discoverer with `config` as its networkTopologyTypes over the Nodes `initial`. */
export async function startLabelRig(config: unknown, initial: NodeMeta[]) {
  const clock = new FakeClock();
  const nodes = new FakeInformer<NodeMeta>({ initial });
  const problems = new RecordingProblems(nullLogger);
  const metrics = new RecordingMetrics();
  const d: Discoverer = await labelDiscovererFactory(entry(config), {
    nodes,
    hyperNodes: new FakeInformer<HyperNode>(),
    clock,
    logger: nullLogger,
    workerErrors: unexpectedWorkerError,
    problems,
    metrics,
    secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no Secrets')) },
  });
  const ch = await d.start();
  return { clock, nodes, problems, metrics, d, ch };
}

/**
 * The next snapshot if one is being offered once everything has settled, else 'none' ('closed' when the channel is).
 */
export async function offered(ch: Channel<Snapshot>): Promise<Snapshot | 'none' | 'closed'> {
  const ac = new AbortController();
  let result: Snapshot | 'none' | 'closed' = 'none';
  const p = ch.recv(ac.signal).then(
    (r) => void (result = r.done ? 'closed' : r.value),
    () => {},
  );
  await settle();
  ac.abort();
  await p;
  return result;
}

/** After the debounce: the snapshot offered (acknowledged), 'none', or 'closed'. */
export async function round(rig: {
  clock: FakeClock;
  ch: Channel<Snapshot>;
  d: Discoverer;
}): Promise<Snapshot | 'none' | 'closed'> {
  await rig.clock.advance(TRIGGER_DEBOUNCE_MS);
  const got = await offered(rig.ch);
  if (Array.isArray(got)) rig.d.resultSynced();
  return got;
}
