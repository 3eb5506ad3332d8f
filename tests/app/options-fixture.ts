// Resolved options for runServer tests: the binary's defaults with short
// leader-election timings, listeners on 127.0.0.1 port 0 and the default
// discovery ConfigMap, files under the temporary directory and URLs to
// 127.0.0.1 allowed. What validate() would produce for those flags.

import type { ListenAddress } from '../../src/app/http-listen.ts';
import { DEFAULT_TOKEN_AUDIENCE, type LeaderElectionConfig, type ResolvedOptions } from '../../src/app/options.ts';
import { configMapLocation } from '../../src/hypernode/config/location.ts';
import { TEST_INPUT_POLICY } from '../support/input-policy.ts';

/** 127.0.0.1:`port`, resolved (port 0: any free port). */
export function loopback(port = 0): ListenAddress {
  return { text: `127.0.0.1:${port}`, ip: '127.0.0.1', port };
}

/** Short timings that still pass validation (renew deadline > 1.2 × retry period). */
export const TEST_LEADER_ELECTION: LeaderElectionConfig = {
  leaseDurationMs: 2_000,
  renewDeadlineMs: 1_500,
  retryPeriodMs: 250,
  resourceName: 'vc-hypernode-controller-manager',
  resourceNamespace: 'volcano-system',
};

/** Leader election is off unless `leaderElection` is given (TEST_LEADER_ELECTION, say). */
export function testOptions(over: Partial<ResolvedOptions> = {}): ResolvedOptions {
  return {
    master: '',
    kubeconfig: '',
    kubeApiQps: 50,
    kubeApiBurst: 100,
    healthz: loopback(),
    metrics: loopback(),
    dryRun: false,
    topologyPage: false,
    secureMetrics: false,
    tokenAudiences: [DEFAULT_TOKEN_AUDIENCE],
    leaderElection: undefined,
    configMap: configMapLocation({}),
    // The stand-ins listen on 127.0.0.1 and fixtures live under the temporary directory.
    inputPolicy: TEST_INPUT_POLICY,
    ...over,
  };
}
