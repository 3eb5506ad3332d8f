// Families of the /metrics registry that are computed when scraped: client-go's
// workqueue in-flight gauges (what shows a worker stuck in one key) and the
// build-info gauge.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUILD_INFO_METRIC, createMetrics } from '../../src/app/metrics.ts';
import { RateLimitingQueue } from '../../src/kube/rate-limiting-queue.ts';
import { GIT_SHA, runtimeVersion, VERSION } from '../../src/version.ts';
import { FakeClock } from '../kube/fake-clock.ts';
import { unexpectedWorkerError } from '../support/worker-errors.ts';

/** The value of the one sample `sample` (`name{labels}`) in the text exposition, undefined when absent. */
function sampleValue(text: string, sample: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

test('workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds follow the keys being processed', async () => {
  const metrics = createMetrics();
  const clock = new FakeClock();
  const queue = new RateLimitingQueue({
    name: 'label-discovery',
    clock,
    metrics: metrics.queue('label-discovery'),
    onError: unexpectedWorkerError('label-discovery'),
  });
  const scrape = () => metrics.registry.metrics();
  const unfinished = 'workqueue_unfinished_work_seconds{name="label-discovery"}';
  const longest = 'workqueue_longest_running_processor_seconds{name="label-discovery"}';

  assert.is(sampleValue(await scrape(), unfinished), 0, 'present at 0 before any work');
  queue.add('a');
  queue.add('b');
  assert.is(await queue.get(), 'a');
  await clock.advance(30_000);
  assert.is(await queue.get(), 'b');
  await clock.advance(10_000);
  let text = await scrape();
  assert.is(sampleValue(text, unfinished), 50, 'a for 40 s plus b for 10 s');
  assert.is(sampleValue(text, longest), 40);

  queue.done('a');
  queue.done('b');
  text = await scrape();
  assert.is(sampleValue(text, unfinished), 0);
  assert.is(sampleValue(text, longest), 0);
});

test('a queue made again under the same name replaces the old one in the gauges', async () => {
  const metrics = createMetrics();
  const clock = new FakeClock();
  const old = new RateLimitingQueue({
    name: 'q',
    clock,
    metrics: metrics.queue('q'),
    onError: unexpectedWorkerError('q'),
  });
  old.add('stuck');
  await old.get();
  await clock.advance(5_000);
  new RateLimitingQueue({ name: 'q', clock, metrics: metrics.queue('q'), onError: unexpectedWorkerError('q') });
  assert.is(sampleValue(await metrics.registry.metrics(), 'workqueue_longest_running_processor_seconds{name="q"}'), 0);
});

test('the build-info gauge is 1 and names the version, commit and runtime', async () => {
  const text = await createMetrics().registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${BUILD_INFO_METRIC}{`));
  assert.ok(line, text);
  assert.ok(line.endsWith(' 1'), line);
  assert.ok(line.includes(`version="${VERSION}"`), line);
  assert.ok(line.includes(`git_commit="${GIT_SHA}"`), line);
  assert.ok(line.includes(`runtime="${runtimeVersion()}"`), line);
});

test.run();
