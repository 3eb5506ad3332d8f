// Work written once as a generator (src/util/sliced-work.ts): run whole it
// returns what it returns; run in slices, timers and I/O run between slices,
// and an abort between slices stops it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runInSlices, runWhole } from '../../src/util/sliced-work.ts';

/** `n` steps of `stepMs` busy work each; returns n. */
function* busy(n: number, stepMs: number) {
  for (let i = 0; i < n; i++) {
    const until = performance.now() + stepMs;
    while (performance.now() < until) {}
    yield;
  }
  return n;
}

test('run whole, the work returns its result without a turn of the event loop', () => {
  assert.is(runWhole(busy(3, 0)), 3);
});

test('run in slices, a timer due meanwhile fires before the work ends', async () => {
  const fired: number[] = [];
  const started = performance.now();
  setTimeout(() => fired.push(performance.now() - started), 0);
  const result = await runInSlices(busy(40, 5), undefined, 20);
  assert.is(result, 40);
  assert.is(fired.length, 1);
  assert.ok(fired[0]! < 150, `the timer waited ${fired[0]!.toFixed(0)} ms of 200 ms of work`);
});

test('an abort between slices stops the work', async () => {
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 0);
  let error: unknown;
  try {
    await runInSlices(busy(1_000, 5), abort.signal, 10);
  } catch (err) {
    error = err;
  }
  assert.ok(error, 'aborted');
});

test.run();
