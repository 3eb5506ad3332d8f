// Which list the reflector sends, as client-go's reflector and pager choose:
// resourceVersion=0 first (one answer from the API server's watch cache),
// the last seen resourceVersion unpaged after an expired watch, a consistent
// paged read when the cache cannot serve either, paging kept for a server
// without a watch cache, and an expired continue token restarting the list
// whole.

import { BodyTooLargeError } from '../../src/util/body-too-large-error.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kube/errors.ts';
import { settle } from './fake-clock.ts';
import { FakeResource, gone } from './fake-lister-watcher.ts';
import { cachedNames, startInformer } from './informer-rig.ts';
import { capturingLogger } from '../support/capturing-logger.ts';

const tooLarge = () =>
  new ApiError('Too large resource version: 99, current: 7', 504, 'Timeout', {
    code: 504,
    reason: 'Timeout',
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
  });

function filled(n: number): FakeResource {
  const res = new FakeResource();
  for (let i = 0; i < n; i++) res.set(`n${String(i).padStart(4, '0')}`);
  return res;
}

test('a 410 on the resourceVersion=0 list is followed at once (no backoff) by a consistent paged list', async () => {
  const res = filled(1100);
  res.listFailures.push(gone());
  const log = capturingLogger({ verbosity: 2 });
  const { informer, stop, done } = startInformer(res, { logger: log.logger });
  await informer.waitForSync();
  assert.equal(res.listCalls, [
    { limit: 500, resourceVersion: '0' },
    { limit: 500 },
    { limit: 500, continue: '500' },
    { limit: 500, continue: '1000' },
  ]);
  assert.is(informer.list().length, 1100);
  // The line docs/troubleshooting.md quotes for it, at -v=2.
  assert.ok(log.messages().includes('The cache cannot serve the list, reading consistently'), log.lines.join('\n'));
  stop.abort();
  await done;
});

test('after an expired watch the relist asks for the last resourceVersion seen, unpaged, from the cache', async () => {
  const res = filled(3);
  const { informer, stop, done } = startInformer(res);
  await informer.waitForSync();
  await settle();
  res.set('late');
  await settle();
  res.cut(gone());
  await settle();
  assert.equal(res.listCalls, [{ limit: 500, resourceVersion: '0' }, { resourceVersion: '4' }]);
  assert.equal(cachedNames(informer), ['late', 'n0000', 'n0001', 'n0002']);
  stop.abort();
  await done;
});

test('a relist the cache cannot serve (504 too large, or 410) is retried at once as a consistent paged list, then relists use the new resourceVersion', async () => {
  for (const failure of [tooLarge(), gone()]) {
    const res = filled(2);
    const { informer, stop, done } = startInformer(res);
    await informer.waitForSync();
    await settle();
    res.listFailures.push(failure);
    res.cut(gone());
    await settle();
    res.set('after');
    await settle();
    res.cut(gone());
    await settle();
    assert.equal(
      res.listCalls,
      [{ limit: 500, resourceVersion: '0' }, { resourceVersion: '2' }, { limit: 500 }, { resourceVersion: '3' }],
      failure.message,
    );
    assert.equal(cachedNames(informer), ['after', 'n0000', 'n0001']);
    stop.abort();
    await done;
  }
});

/**
 * Runs an informer over `res` to its sync (holding `cached` objects), expires its watch once; returns the lists it
 * sent.
 */
async function listsAcrossOneExpiry(res: FakeResource, cached: number) {
  const { informer, stop, done } = startInformer(res);
  await informer.waitForSync();
  assert.is(informer.list().length, cached);
  await settle();
  res.cut(gone());
  await settle();
  stop.abort();
  await done;
  return res.listCalls;
}

test('a server that pages a resourceVersion=0 list (no watch cache) is followed page by page, and relists stay paged', async () => {
  const res = filled(700);
  res.watchCache = false;
  assert.equal(await listsAcrossOneExpiry(res, 700), [
    { limit: 500, resourceVersion: '0' },
    { limit: 500, continue: '500' },
    { limit: 500, resourceVersion: '700' },
    { limit: 500, continue: '500' },
  ]);
});

test('a whole list too large to read at once falls back to consistent pages, and relists stay paged', async () => {
  const res = filled(600);
  res.listFailures.push(
    new BodyTooLargeError(512 * 1024 * 1024, 'GET /api/v1/nodes: response body larger than the 512 MiB limit'),
  );
  assert.equal(await listsAcrossOneExpiry(res, 600), [
    { limit: 500, resourceVersion: '0' },
    { limit: 500 },
    { limit: 500, continue: '500' },
    { limit: 500, resourceVersion: '600' },
    { limit: 500, continue: '500' },
  ]);
});

test('a continue token that expires while paging restarts the list whole at the same resourceVersion', async () => {
  const res = filled(600);
  res.watchCache = false;
  res.listFailures.push(undefined, gone());
  const { informer, stop, done } = startInformer(res);
  await informer.waitForSync();
  assert.is(informer.list().length, 600);
  assert.equal(res.listCalls, [
    { limit: 500, resourceVersion: '0' },
    { limit: 500, continue: '500' },
    { resourceVersion: '0' },
  ]);
  stop.abort();
  await done;
});

test.run();
