// The REST client sets of the process, each with its own token bucket as in
// Go (one clientset each in cmd/hypernode-controller-manager/app/server.go):
// core/v1 reads and the controller's Events; the HyperNode writes, with every
// other controller write (Node labels and taints, Topology objects) under the
// same rate limit; and, with leader election, the Lease's. With leader
// election every set passes the elector's write fence: a leader frozen past
// its lease must not write after it resumes.

import type { MonotonicClock } from '../kube/clock.ts';
import { createEventSink, EVENT_RESOURCE, type CoreEvent, type EventSink } from '../kube/events.ts';
import { resourceClient } from '../kube/resource.ts';
import { RestClient, type RestMetrics } from '../kube/rest.ts';
import type { Transport } from '../kube/transport.ts';
import { userAgent } from '../kube/user-agent.ts';
import { LeadershipFence } from '../kube/write-fence.ts';
import type { Logger } from '../log.ts';
import { COMPONENT, goPlatform } from '../version.ts';
import type { ResolvedOptions } from './options.ts';

export interface ClientSets {
  /** Nodes, the discovery ConfigMap, Secrets, the controller's Events. */
  readonly core: RestClient;
  /** HyperNodes, and every other write of the controller: one rate limit, one write pace. */
  readonly volcano: RestClient;
  /** The Lease and its Events; undefined when no election runs (it is off, or a dry run). */
  readonly leaderElection: RestClient | undefined;
  /** The fence every set passes, held by the elector; undefined without leader election. */
  readonly fence: LeadershipFence | undefined;
}

export interface ClientSetDeps {
  readonly clock: MonotonicClock;
  readonly metrics: RestMetrics;
  /** Build information for the User-Agent. */
  readonly version: { readonly gitVersion: string; readonly gitCommit: string };
}

/** The client sets over `transport`; none does any I/O until asked. */
export function newClientSets(options: ResolvedOptions, transport: Transport, deps: ClientSetDeps): ClientSets {
  const fence = options.leaderElection ? new LeadershipFence(deps.clock) : undefined;
  const clientSet = (suffix: string) =>
    new RestClient({
      transport,
      userAgent: clientUserAgent(deps.version, suffix),
      qps: options.kubeApiQps,
      burst: options.kubeApiBurst,
      clock: deps.clock,
      metrics: deps.metrics,
      ...(fence ? { fence } : {}),
    });
  return {
    core: clientSet(COMPONENT),
    volcano: clientSet(COMPONENT),
    leaderElection: electionOf(options) ? clientSet('hypernode-leader-election') : undefined,
    fence,
  };
}

/** The election the process runs: none when it is off, nor in a dry run, whose replica must never hold the Lease. */
export function electionOf(options: ResolvedOptions): ResolvedOptions['leaderElection'] {
  return options.dryRun ? undefined : options.leaderElection;
}

/** The User-Agent of a client set: the program, its version and platform, and what the set is for. */
export function clientUserAgent(version: ClientSetDeps['version'], suffix: string): string {
  return userAgent(
    { program: COMPONENT, version: version.gitVersion, platform: goPlatform(), commit: version.gitCommit },
    suffix,
  );
}

/** Where the process's Events say they come from. */
export interface EventOrigin {
  readonly hostname: string;
  readonly clock: MonotonicClock;
  readonly logger: Logger;
}

/** Events written through `rest`, under its rate limit: the controller's on core, the Lease's on its own set. */
export function eventSinkOn(rest: RestClient, origin: EventOrigin): EventSink {
  return createEventSink({
    client: resourceClient<CoreEvent>(rest, EVENT_RESOURCE),
    component: COMPONENT,
    host: origin.hostname,
    clock: origin.clock,
    logger: origin.logger,
  });
}
