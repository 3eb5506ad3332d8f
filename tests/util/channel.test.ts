import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Channel } from '../../src/util/channel.ts';
import { within } from '../../testing/wait.ts';

test('an unbuffered send completes only when a receiver takes the value', async () => {
  const ch = new Channel<number>();
  let sent = false;
  const p = ch.send(1).then((ok) => (sent = ok));
  await new Promise((r) => setImmediate(r));
  assert.is(sent, false);
  assert.equal(await ch.recv(), { value: 1, done: false });
  await p;
  assert.is(sent, true);
});

test('trySend on a full buffered channel reports full and keeps the buffer', async () => {
  const ch = new Channel<number>(2);
  assert.is(ch.trySend(1), 'sent');
  assert.is(ch.trySend(2), 'sent');
  assert.is(ch.trySend(3), 'full');
  assert.equal((await ch.recv()).value, 1);
  assert.equal((await ch.recv()).value, 2);
});

test('close wakes receivers with done and fails pending sends', async () => {
  const ch = new Channel<number>();
  const r = ch.recv();
  const ch2 = new Channel<number>();
  const s = ch2.send(5);
  ch.close();
  ch2.close();
  assert.equal(await within(r, 1000), { value: undefined, done: true });
  assert.is(await within(s, 1000), false);
});

test('an aborted send is withdrawn and never delivered', async () => {
  const ch = new Channel<number>();
  const ac = new AbortController();
  const s = ch.send(7, ac.signal);
  ac.abort();
  assert.is(await s, false);
  assert.is(ch.trySend(8), 'full', 'no receiver yet');
  const r = ch.recv();
  assert.is(ch.trySend(9), 'sent');
  assert.equal((await r).value, 9);
});

test.run();
