// For tests in which no worker should throw: a throw the worker did not
// handle fails the run loudly (an uncaught error naming the queue and key)
// rather than being retried unseen.

import type { WorkerErrorHandler } from '../../src/kube/rate-limiting-queue.ts';
import { errorMessage } from '../../src/util/error-message.ts';

export function unexpectedWorkerError(queueName: string): WorkerErrorHandler {
  return (key, err) => {
    throw new Error(`worker of queue ${queueName} threw for key ${key}: ${errorMessage(err)}`, { cause: err });
  };
}
