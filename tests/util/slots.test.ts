import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mapBounded, Slots } from '../../src/util/slots.ts';
import { waitFor } from '../../testing/wait.ts';

/** Calls that stay open until the test ends them, by item. */
function held<T>() {
  const open = new Map<T, (v: string) => void>();
  const started: T[] = [];
  let peak = 0;
  const fn = (item: T) =>
    new Promise<string>((resolve) => {
      started.push(item);
      open.set(item, resolve);
      peak = Math.max(peak, open.size);
    });
  const finish = (item: T) => {
    const resolve = open.get(item)!;
    open.delete(item);
    resolve(`done ${item}`);
  };
  return { open, started, fn, finish, peak: () => peak };
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => 'no failure',
    (err: Error) => err.message,
  );

test('mapBounded keeps at most `limit` calls in flight, starts them in input order and returns results in input order', async () => {
  const h = held<number>();
  const all = mapBounded([0, 1, 2, 3, 4], 2, h.fn);
  await waitFor(() => h.open.size === 2, { what: 'two calls' });
  h.finish(1);
  await waitFor(() => h.started.length === 3, { what: 'the third call' });
  for (const i of [0, 2, 3, 4]) {
    await waitFor(() => h.open.has(i), { what: `call ${i}` });
    h.finish(i);
  }
  assert.equal(await all, ['done 0', 'done 1', 'done 2', 'done 3', 'done 4']);
  assert.equal(h.started, [0, 1, 2, 3, 4]);
  assert.is(h.peak(), 2);
});

test('a limit given as a function is read again for every call', async () => {
  const h = held<number>();
  let limit = 1;
  const all = mapBounded([0, 1, 2, 3], () => limit, h.fn);
  await waitFor(() => h.open.size === 1, { what: 'one call' });
  limit = 3;
  h.finish(0);
  await waitFor(() => h.open.size === 3, { what: 'three calls under the raised limit' });
  for (const i of [1, 2, 3]) h.finish(i);
  await all;
  assert.is(h.peak(), 3);
});

test('after a call fails no new one starts, and the error comes once the started ones ended', async () => {
  const started: number[] = [];
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  let settled = false;
  const all = mapBounded([0, 1, 2, 3], 2, async (i) => {
    started.push(i);
    if (i === 0) await slow;
    if (i === 1) throw new Error('item 1 failed');
    return i;
  }).finally(() => (settled = true));
  await waitFor(() => started.length === 2, { what: 'two calls' });
  await new Promise((r) => setImmediate(r));
  assert.is(settled, false, 'waits for the call still running');
  release();
  assert.match(await failureOf(all), 'item 1 failed');
  assert.equal(started, [0, 1]);
});

test('a synchronous throw counts as a failed call', async () => {
  const all = mapBounded([1], 1, () => {
    throw new Error('sync');
  });
  assert.is(await failureOf(all), 'sync');
});

test('Slots never hands out fewer than one slot, whatever the limit says', async () => {
  const slots = new Slots(() => 0);
  await slots.acquire();
  assert.is(slots.inUse(), 1);
  let second = false;
  void slots.acquire().then(() => (second = true));
  await new Promise((r) => setImmediate(r));
  assert.is(second, false);
  slots.release();
  await waitFor(() => second, { what: 'the second slot after a release' });
});

test.run();
