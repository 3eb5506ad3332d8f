// What the process does with a throw of a work queue's worker: one error line
// naming the worker (its queue), the key and the error, and one count in
// hypernode_worker_errors_total{name}; the queue then retries the key with
// backoff. controller-runtime's "Reconciler error" log line and
// controller_runtime_reconcile_errors_total{controller}.

import type { WorkerErrorHandler } from '../kube/rate-limiting-queue.ts';
import type { Logger } from '../log.ts';
import { errorMessage } from '../util/error-message.ts';
import type { Metrics } from './metrics.ts';

/** The handler of each queue, by its name; the queue's error count starts at 0 when it is asked for. */
export function workerErrorReporter(metrics: Pick<Metrics, 'workerErrors'>, logger: Logger) {
  return (queueName: string): WorkerErrorHandler => {
    const count = metrics.workerErrors(queueName);
    // The key names an object (a HyperNode, a Node, the ConfigMap); the error says what failed, never input content.
    return (key, err) => {
      logger.error('Reconciler error', { worker: queueName, key, err: errorMessage(err) });
      count();
    };
  };
}
