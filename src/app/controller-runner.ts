// The runner of what leadership starts (docs/design.md §3.1 steps 9–10): the
// informers, then the controller built from the factory, the plug point that
// keeps src/app/ free of HyperNode wiring. Mirrors the runner closure in
// cmd/hypernode-controller-manager/app/server.go.

import type { SharedInformer } from '../kube/informer.ts';
import type { KubeObject } from '../kube/types.ts';
import type { Logger } from '../log.ts';
import type { HyperNodeControllerDeps } from '../hypernode/controller.ts';
import { runGroup, type Runnable } from '../kube/runnable-group.ts';
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

/** What the runner does with an informer of any kind: run it, and wait until its cache has synced. */
export type RunnableInformer = Pick<SharedInformer<KubeObject>, 'run' | 'waitForSync'>;

export interface RunnerOptions {
  informers: readonly RunnableInformer[];
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
  // A replica that is shutting down or lost the lease is not ready, from the first moment.
  const readiness: Runnable = {
    name: 'readiness',
    start: ({ stopping }) => stopping.addEventListener('abort', () => opts.setReady(false), { once: true }),
  };
  await runGroup(signal, { start: [readiness, informersRunnable(opts.informers), controllerRunnable(opts)] });
}

/**
 * The informers watch until the stop begins (docs/design.md §3.2), their
 * caches readable meanwhile; started means synced, and the stop waits until
 * they have ended.
 */
function informersRunnable(informers: RunnerOptions['informers']): Runnable {
  let runs: Promise<void>[] = [];
  return {
    name: 'informers',
    async start({ stopping }) {
      runs = informers.map((i) => i.run(stopping));
      await Promise.all(informers.map((i) => i.waitForSync(stopping)));
    },
    stop: async () => void (await Promise.all(runs)),
  };
}

/** The controller built from the factory; it reports readiness itself, and ending on its own fails the run. */
function controllerRunnable(opts: RunnerOptions): Runnable {
  let running: Promise<void> = Promise.resolve();
  return {
    name: 'HyperNode controller',
    start({ stopping, failed }) {
      let controller: RunnableController;
      try {
        controller = opts.factory(opts.context);
      } catch (err) {
        throw wrapError('failed to initialize HyperNode controller', err);
      }
      running = controller
        .run(stopping, () => opts.setReady(true))
        .then(() => {
          if (!stopping.aborted) failed(new Error(CONTROLLER_STOPPED_UNEXPECTEDLY));
        }, failed);
    },
    stop: () => running,
  };
}
