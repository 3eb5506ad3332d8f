// Leader election as a runnable of the process's group: the elector runs from
// the group's start until its stop; each time it leads it runs what
// leadership runs (the controller, src/app/controller-runner.ts) until the
// lease is lost or the stop begins. A controller that fails ends the election,
// and a lease lost while the process is not stopping fails the run with "lost
// lease" (Go's OnStoppedLeading ends the process). Mirrors the
// leaderelection.RunOrDie block of Run in Volcano's
// cmd/hypernode-controller-manager/app/server.go.

import type { MonotonicClock } from '../kube/clock.ts';
import { LeaderElector, newIdentity } from '../kube/leader-election.ts';
import { LEASE_RESOURCE, LeaseLock, type Lease } from '../kube/lease-lock.ts';
import { resourceClient } from '../kube/resource.ts';
import type { RestClient } from '../kube/rest.ts';
import type { Runnable } from '../kube/runnable-group.ts';
import type { LeadershipFence } from '../kube/write-fence.ts';
import type { Logger } from '../log.ts';
import { eventSinkOn } from './client-sets.ts';
import type { Metrics } from './metrics.ts';
import type { LeaderElectionConfig } from './options.ts';
import type { Readiness } from './readiness.ts';

export const LOST_LEASE = 'lost lease';

export interface LeaderElectionRunnableOptions {
  readonly config: LeaderElectionConfig;
  /** The Lease's client set; the Lease's Events go through it too. */
  readonly rest: RestClient;
  /** The fence the elector holds open while it leads; every client set's writes pass it. */
  readonly fence: LeadershipFence | undefined;
  readonly hostname: string;
  readonly clock: MonotonicClock;
  readonly logger: Logger;
  readonly readiness: Readiness;
  readonly metrics: Pick<Metrics, 'leaderStatus'>;
  /** What leadership runs, until `signal` aborts (the lease lost, or the stop). */
  readonly lead: (signal: AbortSignal) => Promise<void>;
}

/** The election, and under it the controller, from the group's start to its stop; named as the work it waits for. */
export function leaderElectionRunnable(opts: LeaderElectionRunnableOptions): Runnable {
  let election: Promise<void> = Promise.resolve();
  return {
    name: 'controller',
    start({ stopping, failed }) {
      election = elect(opts, stopping);
      election.catch(failed);
    },
    stop: () => election.catch(() => {}),
  };
}

/** Runs the elector until `stopping` aborts or the lease is lost; resolves once what leadership ran has ended. */
async function elect(opts: LeaderElectionRunnableOptions, stopping: AbortSignal): Promise<void> {
  const { config, readiness, logger } = opts;
  const identity = newIdentity(opts.hostname);
  const election = new AbortController();
  const stopElection = () => election.abort();
  stopping.addEventListener('abort', stopElection, { once: true });
  let leading: Promise<void> | undefined;
  const elector = new LeaderElector({
    lock: new LeaseLock(
      resourceClient<Lease>(opts.rest, LEASE_RESOURCE),
      config.resourceNamespace,
      config.resourceName,
    ),
    identity,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
    clock: opts.clock,
    ...(opts.fence ? { fence: opts.fence } : {}),
    logger,
    events: eventSinkOn(opts.rest, opts),
    onLeadingChanged: (isLeader) => opts.metrics.leaderStatus(config.resourceName, isLeader),
    callbacks: {
      onStartedLeading: (leaderSignal) => {
        readiness.startedLeading();
        leading = opts.lead(leaderSignal).finally(() => readiness.set(false));
        // A failed controller ends the election (and with it the renew loop).
        leading.catch(() => election.abort());
        return leading.catch(() => {});
      },
      onStoppedLeading: () => readiness.stoppedLeading(),
      onNewLeader: (id) => readiness.newLeader(id, identity, logger),
    },
  });
  try {
    await elector.run(election.signal);
  } finally {
    stopping.removeEventListener('abort', stopElection);
  }
  if (leading !== undefined) await leading;
  if (stopping.aborted) return;
  throw new Error(LOST_LEASE);
}
