// Resolved Options for runServer tests: the binary's defaults with short
// leader-election timings and listeners on 127.0.0.1 port 0.

import type { Options } from '../../src/app/options.ts';

export function testOptions(over: Partial<Omit<Options, 'leaderElection'>> & { leaderElection?: Partial<Options['leaderElection']> } = {}): Options {
  const { leaderElection, ...rest } = over;
  return {
    master: '',
    kubeconfig: '',
    kubeApiQps: 50,
    kubeApiBurst: 100,
    version: false,
    healthzAddress: '127.0.0.1:0',
    enableHealthz: true,
    enableMetrics: true,
    listenAddress: '127.0.0.1:0',
    dryRun: false,
    log: { verbosity: 2, skipHeaders: true, logFlushFrequencyMs: 5000 },
    ...rest,
    leaderElection: {
      leaderElect: false,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 250,
      resourceLock: 'leases',
      resourceName: 'vc-hypernode-controller-manager',
      resourceNamespace: 'volcano-system',
      ...leaderElection,
    },
  };
}
