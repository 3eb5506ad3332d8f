// ExpiringCache: an answer is kept for its TTL from when it resolved, shared
// by callers while pending, dropped at once when it fails, and the oldest
// entry makes room when the cache is full; an answer the owner says not to
// keep is shared while pending and dropped once resolved; peek and set.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExpiringCache } from '../../src/kube/expiring-cache.ts';
import { FakeClock } from './fake-clock.ts';

function counting(clock = new FakeClock(), ttlMs = 1_000, maxEntries = 3) {
  const cache = new ExpiringCache<string>(clock, ttlMs, maxEntries);
  const loads: string[] = [];
  const get = (key: string) =>
    cache.get(key, async () => {
      loads.push(key);
      return `${key}@${clock.now()}`;
    });
  return { cache, clock, loads, get };
}

test('an answer is kept for the TTL counted from when it resolved, then loaded again', async () => {
  const { clock, loads, get } = counting();
  const first = await get('a');
  await clock.advance(999);
  assert.is(await get('a'), first);
  await clock.advance(1);
  assert.is.not(await get('a'), first);
  assert.equal(loads, ['a', 'a']);
});

test('callers of a pending answer share it; a failed answer is not kept', async () => {
  const clock = new FakeClock();
  const cache = new ExpiringCache<number>(clock, 1_000, 10);
  let release!: (n: number) => void;
  let loads = 0;
  const pending = () =>
    cache.get('k', () => {
      loads++;
      return new Promise<number>((r) => (release = r));
    });
  const both = Promise.all([pending(), pending()]);
  release(7);
  assert.equal(await both, [7, 7]);
  assert.is(loads, 1);

  let fail = true;
  const flaky = () => cache.get('f', () => (fail ? Promise.reject(new Error('down')) : Promise.resolve(1)));
  await flaky().then(
    () => assert.unreachable('should fail'),
    (err: Error) => assert.is(err.message, 'down'),
  );
  fail = false;
  assert.is(await flaky(), 1, 'the failure was not remembered');
});

test('a full cache drops its oldest entry first', async () => {
  const { loads, get } = counting();
  for (const k of ['a', 'b', 'c', 'd']) await get(k);
  await get('b');
  await get('d');
  assert.equal(loads, ['a', 'b', 'c', 'd']);
  await get('a');
  assert.equal(loads, ['a', 'b', 'c', 'd', 'a'], 'a was evicted to make room for d');
});

test('an answer the owner does not keep is shared while pending and dropped once resolved; set and peek', async () => {
  const clock = new FakeClock();
  const cache = new ExpiringCache<string | undefined>(clock, 1_000, 10, (v) => v !== undefined);
  let loads = 0;
  const load = () =>
    cache.get('k', async () => {
      loads++;
      return undefined;
    });
  assert.equal(await Promise.all([load(), load()]), [undefined, undefined]);
  assert.is(loads, 1, 'shared while pending');
  assert.is(cache.peek('k'), undefined, 'not kept');
  await load();
  assert.is(loads, 2);
  cache.set('s', 'kept');
  assert.is(await cache.peek('s'), 'kept');
  await clock.advance(1_000);
  assert.is(cache.peek('s'), undefined, 'a set answer expires like a loaded one');
});

test.run();
