// The one start-up line: what build runs, on which runtime, and the
// configuration it really runs with after validation, so a support request
// can start from one line. Credentials never reach ResolvedOptions (they stay
// in the kubeconfig file, the service-account token and UFM's Secret); the
// kubeconfig appears by path only, and --master without userinfo or query values.

import type { Logger } from '../log.ts';
import { BUILT, GIT_SHA, goPlatform, runtimeVersion, VERSION } from '../version.ts';
import type { ResolvedOptions } from './options.ts';
import { redactUrl } from '../util/redact-url.ts';

export const STARTUP_MESSAGE = 'Starting vc-hypernode-controller-manager';

export function logStartup(logger: Logger, options: ResolvedOptions): void {
  const le = options.leaderElection;
  logger.info(STARTUP_MESSAGE, {
    version: VERSION,
    gitCommit: GIT_SHA,
    built: BUILT,
    runtime: runtimeVersion(),
    platform: goPlatform(),
    master: redactUrl(options.master),
    kubeconfig: options.kubeconfig,
    kubeApiQps: options.kubeApiQps,
    kubeApiBurst: options.kubeApiBurst,
    healthz: options.healthz?.text ?? 'disabled',
    metrics: options.metrics?.text ?? 'disabled',
    dryRun: options.dryRun,
    leaderElection: le
      ? `lease ${le.resourceNamespace}/${le.resourceName}, duration ${le.leaseDurationMs} ms, renew deadline ${le.renewDeadlineMs} ms, retry period ${le.retryPeriodMs} ms`
      : 'disabled',
    discoveryConfigMap: `${options.configMap.namespace}/${options.configMap.name} key ${options.configMap.key}`,
  });
}
