// The controller runner (docs/design.md §3.1 steps 9–10) and the plug point for the
// HyperNode controller: start the three informers, wait until all synced, build
// the controller from the factory, run it, mark ready once it reports started,
// and when the signal aborts wait until it and the informers have stopped.
// Mirrors the runner closure in cmd/hypernode-controller-manager/app/server.go.

import type { SharedInformer } from '../kube/informer.ts';
import type { KubeObject } from '../kube/types.ts';
import type { Logger } from '../log.ts';
import type { HyperNodeControllerDeps } from '../hypernode/controller.ts';
import { wrapError } from '../util/error-message.ts';

/**
 * Everything a controller needs, built by src/app/server.ts: the three synced
 * informers (Nodes metadata-only, the discovery ConfigMap, HyperNodes), a
 * HyperNode client, a Secret client, an EventRecorder writing on the discovery
 * ConfigMap, the ConfigMap coordinates, clock, logger, metrics registry and
 * workqueue_* metrics. It is exactly what the HyperNode controller takes.
 */
export type ControllerContext = Omit<HyperNodeControllerDeps, 'discoverers' | 'queueMetrics'> & {
  queueMetrics: NonNullable<HyperNodeControllerDeps['queueMetrics']>;
};

export interface RunnableController {
  /** Runs until `signal` aborts; calls `onStarted` once caches synced and discovery started. */
  run(signal: AbortSignal, onStarted: () => void): Promise<void>;
}

export type ControllerFactory = (ctx: ControllerContext) => RunnableController;

export const CONTROLLER_STOPPED_UNEXPECTEDLY = 'HyperNode controller stopped unexpectedly';

export interface RunnerOptions {
  informers: ReadonlyArray<SharedInformer<KubeObject>>;
  context: ControllerContext;
  factory: ControllerFactory;
  setReady(ready: boolean): void;
  logger: Logger;
}

/**
 * Runs the controller until `signal` aborts. Resolves after everything
 * stopped; rejects with `HyperNode controller stopped unexpectedly` if the
 * controller ends on its own.
 */
export async function runController(opts: RunnerOptions, signal: AbortSignal): Promise<void> {
  // Informers share the stop signal (docs/design.md §3.2) and also stop when the
  // controller ends on its own; their caches stay readable meanwhile.
  const stopInformers = new AbortController();
  const abort = () => {
    opts.setReady(false); // a replica that is shutting down or lost the lease is not ready
    stopInformers.abort();
  };
  signal.addEventListener('abort', abort, { once: true });
  const informerRuns = opts.informers.map((i) => i.run(stopInformers.signal));
  try {
    try {
      await Promise.all(opts.informers.map((i) => i.waitForSync(signal)));
    } catch {
      return; // stopped before the caches synced
    }
    let controller: RunnableController;
    try {
      controller = opts.factory(opts.context);
    } catch (err) {
      throw wrapError('failed to initialize HyperNode controller', err);
    }
    await controller.run(signal, () => opts.setReady(true));
    if (!signal.aborted) {
      opts.setReady(false);
      throw new Error(CONTROLLER_STOPPED_UNEXPECTEDLY);
    }
  } finally {
    signal.removeEventListener('abort', abort);
    stopInformers.abort();
    await Promise.all(informerRuns);
  }
}
