import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Latch } from '../../src/util/latch.ts';
import { within } from '../../testing/wait.ts';

test('waiters are released when the latch opens, and later waits resolve at once', async () => {
  const latch = new Latch();
  let released = false;
  const waiting = latch.wait().then(() => (released = true));
  await new Promise((r) => setImmediate(r));
  assert.is(released, false);
  latch.open();
  await within(waiting, 1000, 'release');
  await within(latch.wait(), 1000, 'wait on an open latch');
  assert.ok(latch.isOpen());
});

test('an aborted wait rejects with the signal reason and does not block opening', async () => {
  const latch = new Latch();
  const ac = new AbortController();
  const waiting = latch.wait(ac.signal);
  ac.abort(new Error('stopped'));
  await waiting.then(
    () => assert.unreachable('must reject'),
    (err: Error) => assert.is(err.message, 'stopped'),
  );
  latch.open();
  assert.ok(latch.isOpen());
});

test.run();
