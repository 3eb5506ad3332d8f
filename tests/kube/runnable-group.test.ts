// The runnable group (kube/runnable-group.ts): runnables start in the order
// given and stop in reverse or in a declared order, each awaited before the
// next; a start that fails stops the ones started before it; a runnable that
// fails while running ends the run; and once the stop begins it must end
// within the deadline, past which the run fails naming what was still stopping.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runGroup, workerRunnable, type RunContext, type Runnable } from '../../src/kube/runnable-group.ts';
import { FakeClock, settle } from './fake-clock.ts';

/** What a start cut short by the stop rejects with. */
const CUT_SHORT = new Error('stopped before it started');
/** A signal that never aborts: the run ends on a failure. */
const RUNS_ON = new AbortController().signal;

/** Runnables that record their starts and stops in one log. */
function recorder() {
  const log: string[] = [];
  const runnable = (name: string, more: Partial<Runnable> = {}): Runnable => ({
    name,
    start: () => void log.push(`start ${name}`),
    stop: () => void log.push(`stop ${name}`),
    ...more,
  });
  return { log, runnable };
}

test('starts in the order given, reports started, and stops in reverse once the signal aborts', async () => {
  const { log, runnable } = recorder();
  const stop = new AbortController();
  const started = () => log.push('started');
  const run = runGroup(stop.signal, { start: [runnable('a'), runnable('b'), runnable('c')] }, { onStarted: started });
  await settle();
  assert.equal(log, ['start a', 'start b', 'start c', 'started']);
  stop.abort();
  await run;
  assert.equal(log.slice(4), ['stop c', 'stop b', 'stop a']);
});

test('stops in the declared order, each stop awaited in turn, after telling every runnable at once', async () => {
  const { log, runnable } = recorder();
  let finishB!: () => void;
  const dropsAtOnce = ({ stopping }: RunContext) => stopping.addEventListener('abort', () => log.push('a drops'));
  const a = runnable('a', { start: dropsAtOnce });
  const b = runnable('b', { stop: () => new Promise<void>((r) => (finishB = () => (log.push('stop b'), r()))) });
  const c = runnable('c');
  const stop = new AbortController();
  const run = runGroup(stop.signal, { start: [a, b, c], stop: [b, a, c] });
  await settle();
  stop.abort();
  await settle();
  assert.equal(log, ['start b', 'start c', 'a drops'], 'a waits for b to stop');
  finishB();
  await run;
  assert.equal(log.slice(2), ['a drops', 'stop b', 'stop a', 'stop c']);
});

test('a start that fails stops the ones started before it and fails the run with its error', async () => {
  const { log, runnable } = recorder();
  const broken = runnable('b', {
    start: () => {
      throw new Error('bind: address already in use');
    },
  });
  const err = await runGroup(RUNS_ON, { start: [runnable('a'), broken, runnable('c')] }).catch((e: Error) => e);
  assert.is((err as Error).message, 'bind: address already in use');
  assert.equal(log, ['start a', 'stop a'], 'c never starts; b, which did not start, is not stopped');
});

test('a runnable that fails while running ends the run with its error, after everything stopped', async () => {
  const { log, runnable } = recorder();
  let fail!: (err: Error) => void;
  const lease = runnable('lease', { start: ({ failed }) => void (fail = failed) });
  const run = runGroup(RUNS_ON, { start: [runnable('a'), lease] });
  await settle();
  fail(new Error('lost lease'));
  const err = await run.catch((e: Error) => e);
  assert.is((err as Error).message, 'lost lease');
  assert.equal(log, ['start a', 'stop lease', 'stop a']);
});

test('a start cut short by the stop is no error, and nothing after it starts', async () => {
  const { log, runnable } = recorder();
  const stop = new AbortController();
  const syncing = runnable('informers', {
    start: ({ stopping }) =>
      new Promise<void>((_, reject) => stopping.addEventListener('abort', () => reject(CUT_SHORT))),
  });
  const started = () => log.push('started');
  const run = runGroup(stop.signal, { start: [runnable('a'), syncing, runnable('c')] }, { onStarted: started });
  await settle();
  stop.abort();
  await run;
  assert.equal(log, ['start a', 'stop a']);
});

test('a stop that overruns the deadline fails the run naming it; the stops after it are still called', async () => {
  const clock = new FakeClock();
  const { log, runnable } = recorder();
  const stuck = runnable('controller', { stop: () => new Promise<void>(() => log.push('stop controller')) });
  const stop = new AbortController();
  const stopDeadline = { ms: 300, clock };
  const run = runGroup(stop.signal, { start: [runnable('health server'), stuck] }, { stopDeadline });
  const outcome = run.catch((e: Error) => e);
  await settle();
  stop.abort();
  await clock.advance(299);
  assert.equal(log.slice(2), ['stop controller'], 'waiting within the deadline');
  await clock.advance(1);
  assert.is(((await outcome) as Error).message, 'shutdown did not finish within 0.3 s (still stopping: controller)');
  assert.equal(log.slice(2), ['stop controller', 'stop health server']);
  assert.is(clock.pending(), 0);
});

test('a stop order that leaves out a runnable with a stop is refused before anything starts', async () => {
  const { log, runnable } = recorder();
  const a = runnable('a');
  const err = await runGroup(RUNS_ON, { start: [a, runnable('b')], stop: [a] }).catch((e: Error) => e);
  assert.match((err as Error).message, /stop order lacks \[b\]/);
  assert.equal(log, []);
});

test('a worker with shutDownAtOnce drops its queue when the stop begins and is awaited in its turn', async () => {
  const log: string[] = [];
  let endLoop!: () => void;
  const loop = new Promise<void>((r) => (endLoop = r));
  const queue = { run: () => loop, shutDown: () => log.push('retries shut down') };
  const retries = workerRunnable('retries', queue, { shutDownAtOnce: true });
  let finishFirst!: () => void;
  const first: Runnable = { name: 'manager', stop: () => new Promise<void>((r) => (finishFirst = r)) };
  const stop = new AbortController();
  const run = runGroup(stop.signal, { start: [first, retries], stop: [first, retries] });
  await settle();
  stop.abort();
  await settle();
  assert.equal(log, ['retries shut down'], 'at once, before the manager has stopped');
  finishFirst();
  await settle();
  endLoop();
  await run;
});

test.run();
