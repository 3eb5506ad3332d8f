// runServer in this process with its metrics listener on a free port of
// 127.0.0.1 and no health listener: for the tests of what that listener serves
// (the topology page, a secure /metrics). Stops within a deadline.

import type { Server } from 'node:http';
import { boundAddress } from '../../src/app/http-listen.ts';
import { createMetrics } from '../../src/app/metrics.ts';
import type { ResolvedOptions } from '../../src/app/options.ts';
import { runServer } from '../../src/app/server.ts';
import { configMapLocation } from '../../src/hypernode/config/location.ts';
import type { Logger } from '../../src/log.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { testOptions } from '../app/options-fixture.ts';

/** Where the discovery ConfigMap is: volcano-system/volcano-controller-configmap. */
export const LISTENER_ENV = { KUBE_POD_NAMESPACE: 'volcano-system', HELM_RELEASE_NAME: 'volcano' };

export interface ServedListener {
  /** `host:port` of the metrics listener. */
  readonly address: string;
  stop(): Promise<void>;
}

/** Runs the controller against `kubeconfig` with `over` on top of the test options, until stop(). */
export async function serveMetricsListener(
  kubeconfig: string,
  logger: Logger,
  over: Partial<ResolvedOptions>,
  hostname: string,
): Promise<ServedListener> {
  const stop = new AbortController();
  let metrics: Server | undefined;
  const done = runServer(
    testOptions({ kubeconfig, configMap: configMapLocation(LISTENER_ENV), healthz: undefined, ...over }),
    logger,
    {
      env: LISTENER_ENV,
      handleSignals: false,
      hostname,
      metrics: createMetrics(),
      signal: stop.signal,
      exit: () => {},
      onListening: (s) => (metrics = s.metrics),
    },
  );
  done.catch(() => {});
  const address = await waitFor(() => metrics && boundAddress(metrics), { what: 'the metrics listener' });
  return {
    address,
    async stop() {
      stop.abort();
      await within(
        done.catch(() => {}),
        30_000,
        'runServer stopping',
      );
    },
  };
}
