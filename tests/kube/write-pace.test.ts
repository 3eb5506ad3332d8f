import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ASSUMED_WRITE_LATENCY_MS,
  MAX_WRITE_CONCURRENCY,
  MIN_WRITE_CONCURRENCY,
  WritePace,
} from '../../src/kube/write-pace.ts';

test('before any answer the pace assumes a real server’s 10 ms: 20 writes in flight at 1000 qps, the floor of 4 at the default 50', () => {
  assert.is(ASSUMED_WRITE_LATENCY_MS, 10);
  assert.is(new WritePace(1000, 100).concurrency(), 20);
  assert.is(new WritePace(50, 100).concurrency(), MIN_WRITE_CONCURRENCY);
});

test('the pace follows the measured answer times: slower answers, more in flight, up to the cap', () => {
  const pace = new WritePace(1000, 2000);
  for (let i = 0; i < 100; i++) pace.observe(4.6);
  assert.ok(Math.abs(pace.latency() - 4.6) < 0.01, `latency ${pace.latency()}`);
  assert.is(pace.concurrency(), 10, '1000/s × 4.6 ms × 2, rounded up');
  for (let i = 0; i < 100; i++) pace.observe(19.6);
  assert.is(pace.concurrency(), 40);
  for (let i = 0; i < 100; i++) pace.observe(500);
  assert.is(pace.concurrency(), MAX_WRITE_CONCURRENCY, "never more than a quarter of kube-apiserver's 200 write seats");
});

test('never more in flight than the burst lets through at once, never fewer than one', () => {
  const pace = new WritePace(1000, 8);
  for (let i = 0; i < 100; i++) pace.observe(100);
  assert.is(pace.concurrency(), 8);
  assert.is(new WritePace(1000, 1).concurrency(), 1);
});

test('a nonsense answer time is ignored', () => {
  const pace = new WritePace(1000, 100);
  pace.observe(Number.NaN);
  pace.observe(-5);
  assert.is(pace.latency(), ASSUMED_WRITE_LATENCY_MS);
});

test.run();
