// A throw of a work queue's worker in the running process: one "Reconciler
// error" line per throw naming the worker and the key, one count per throw in
// hypernode_worker_errors_total{name} (there at 0 before any), and the key
// retried with its backoff until it is done.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMetrics, WORKER_ERRORS_METRIC } from '../../src/app/metrics.ts';
import { workerErrorReporter } from '../../src/app/worker-errors.ts';
import { runWorker } from '../../src/kube/queue-workers.ts';
import { RateLimitingQueue } from '../../src/kube/rate-limiting-queue.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { FakeClock } from '../kube/fake-clock.ts';

/** The value of the sample `name{labels}` in the text exposition, undefined when absent. */
function sampleValue(text: string, sample: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

test('a worker that throws is logged once per throw with its name and key, counted by name, and retried with backoff', async () => {
  const metrics = createMetrics();
  const log = capturingLogger();
  const clock = new FakeClock();
  const reporter = workerErrorReporter(metrics, log.logger);
  const name = 'hypernode-node-labels';
  const q = new RateLimitingQueue({ name, clock, onError: reporter(name) });
  const series = `${WORKER_ERRORS_METRIC}{name="${name}"}`;
  assert.is(sampleValue(await metrics.registry.metrics(), series), 0, 'at 0 before any throw');

  let syncs = 0;
  const worker = runWorker(q, async () => {
    syncs++;
    if (syncs <= 2) throw new Error(`the API server refused pass ${syncs}`);
    return 'done';
  });
  q.add('pass');
  await waitFor(() => syncs === 1, { what: 'the first sync' });
  await clock.advance(4);
  assert.is(syncs, 1, 'not retried before the 5 ms backoff');
  await clock.advance(1);
  await waitFor(() => syncs === 2, { what: 'the retry after 5 ms' });
  await clock.advance(10);
  await waitFor(() => syncs === 3, { what: 'the retry after 10 more ms' });

  assert.equal(log.lines, [
    'Reconciler error worker="hypernode-node-labels" key="pass" err="the API server refused pass 1"',
    'Reconciler error worker="hypernode-node-labels" key="pass" err="the API server refused pass 2"',
  ]);
  assert.is(sampleValue(await metrics.registry.metrics(), series), 2, 'one count per throw');
  q.shutDown();
  await within(worker, 1000, 'the worker ends');
});

test('each queue counts under its own name; a thrown non-Error is logged as its string form, never as a dumped object', async () => {
  const metrics = createMetrics();
  const log = capturingLogger();
  const reporter = workerErrorReporter(metrics, log.logger);
  const status = reporter('hypernode-status');
  reporter('hypernode-write-retry');
  status('hn-a', { secret: 'content of an input' });
  const text = await metrics.registry.metrics();
  assert.is(sampleValue(text, `${WORKER_ERRORS_METRIC}{name="hypernode-status"}`), 1);
  assert.is(sampleValue(text, `${WORKER_ERRORS_METRIC}{name="hypernode-write-retry"}`), 0);
  assert.equal(log.lines, ['Reconciler error worker="hypernode-status" key="hn-a" err="[object Object]"']);
});

test.run();
