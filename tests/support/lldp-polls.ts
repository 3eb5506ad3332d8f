// Runs the lldp source in process for discoverer tests: the factory with a
// replaced walker or captured walks, Nodes by name, and the first `polls`
// snapshots it publishes (each within a deadline), with the problems,
// metrics and log lines it reported.

import { MIN_INTERVAL_MS } from '../../src/hypernode/discovery/poll-loop.ts';
import { createLldpDiscovererFactory, type LldpTuning } from '../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import type { SecretClient, Snapshot } from '../../src/hypernode/model/contracts.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { realClock } from '../../src/kube/clock.ts';
import { within } from '../../testing/wait.ts';
import { capturingLogger } from './capturing-logger.ts';
import { FakeInformer } from './fake-informer.ts';
import { RecordingMetrics } from './recording-metrics.ts';
import { RecordingProblems } from './recording-problems.ts';
import { unexpectedWorkerError } from './worker-errors.ts';

/** How long a test waits for a poll that never publishes (a failed fabric) before it takes "none". */
const UNPUBLISHED_POLL_MS = 2_000;

export interface LldpPolls {
  /** One per poll asked for; undefined when the poll published nothing. */
  readonly snapshots: (Snapshot | undefined)[];
  readonly problems: RecordingProblems;
  readonly metrics: RecordingMetrics;
  /** The source's log lines (no headers). */
  readonly log: readonly string[];
}

/** The Secret lldpPolls names when it is given Secrets to read (real SNMP). */
export const LLDP_POLLS_SECRET = 'lldp-snmp';

/**
 * Starts the source with `config` and collects `polls` results. Without `secrets` the credentials are a
 * placeholder (`tuning` replaces SNMP); with them the source reads LLDP_POLLS_SECRET of their namespace.
 */
export async function lldpPolls(
  config: Record<string, unknown>,
  tuning: LldpTuning,
  nodes: readonly string[],
  polls = 1,
  secrets: SecretClient = { namespace: 'volcano-system', get: () => Promise.reject(new Error('unused')) },
): Promise<LldpPolls> {
  const metrics = new RecordingMetrics();
  const { logger, lines } = capturingLogger();
  // As the controller's: its lines name the source.
  const problems = new RecordingProblems(logger.with({ source: 'lldp' }));
  const d = await createLldpDiscovererFactory(tuning)(
    {
      source: 'lldp',
      enabled: true,
      intervalMs: polls > 1 ? MIN_INTERVAL_MS : 60_000,
      maxDeletePercent: 50,
      credentials: { secretRef: { name: LLDP_POLLS_SECRET, namespace: secrets.namespace } },
      config,
    },
    {
      nodes: new FakeInformer({ initial: nodes.map((name) => ({ metadata: { name } })) }),
      hyperNodes: new FakeInformer<HyperNode>({ initial: [] }),
      secrets,
      clock: realClock,
      logger,
      workerErrors: unexpectedWorkerError,
      problems,
      metrics,
    },
  );
  const out = await d.start();
  const snapshots: (Snapshot | undefined)[] = [];
  try {
    for (let i = 0; i < polls; i++) {
      let timer: NodeJS.Timeout | undefined;
      const none = new Promise<undefined>((r) => {
        timer = setTimeout(() => r(undefined), UNPUBLISHED_POLL_MS);
      });
      const next = await within(
        Promise.race([out.recv(), none]),
        UNPUBLISHED_POLL_MS + 10_000,
        `poll ${i + 1}`,
      ).finally(() => clearTimeout(timer));
      snapshots.push(next && !next.done ? next.value : undefined);
    }
  } finally {
    await d.stop();
  }
  return { snapshots, problems, metrics, log: lines };
}
