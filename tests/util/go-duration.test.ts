import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  durationFromMs,
  durationToMs,
  formatDuration,
  HOUR,
  MICROSECOND,
  MILLISECOND,
  MINUTE,
  parseDuration,
  SECOND,
} from '../../src/util/go-duration.ts';
import { errorOf } from '../support/error-of.ts';

test('ParseDuration reads Go durations in nanoseconds', () => {
  const table: [string, bigint][] = [
    ['15s', 15n * SECOND],
    ['1m30s', 90n * SECOND],
    ['1.5h', 90n * MINUTE],
    ['-2s', -2n * SECOND],
    ['+2s', 2n * SECOND],
    ['0', 0n],
    ['-0', 0n],
    ['0s', 0n],
    ['500ms', 500n * MILLISECOND],
    ['500us', 500n * MICROSECOND],
    ['500µs', 500n * MICROSECOND], // micro sign
    ['500μs', 500n * MICROSECOND], // Greek mu
    ['3ns', 3n],
    ['1h2m3s4ms5us6ns', HOUR + 2n * MINUTE + 3n * SECOND + 4n * MILLISECOND + 5n * MICROSECOND + 6n],
    ['.5s', 500n * MILLISECOND],
    ['5.s', 5n * SECOND],
    ['1.0000000001s', SECOND],
    ['2562047h47m16.854775807s', 9223372036854775807n],
    ['-2562047h47m16.854775808s', -9223372036854775808n],
  ];
  for (const [text, want] of table) assert.is(parseDuration(text), want, text);
});

test('ParseDuration errors have Go texts', () => {
  const table: [string, string][] = [
    ['5', 'time: missing unit in duration "5"'],
    ['abc', 'time: invalid duration "abc"'],
    ['', 'time: invalid duration ""'],
    ['-', 'time: invalid duration "-"'],
    ['.s', 'time: invalid duration ".s"'],
    ['00', 'time: missing unit in duration "00"'],
    ['1m5', 'time: missing unit in duration "1m5"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['5 s', 'time: unknown unit " s" in duration "5 s"'],
    ['1sec', 'time: unknown unit "sec" in duration "1sec"'],
    ['2562047h47m16.854775808s', 'time: invalid duration "2562047h47m16.854775808s"'],
    ['9999999999999999999h', 'time: invalid duration "9999999999999999999h"'],
    ['5é', 'time: unknown unit "\\xc3\\xa9" in duration "5\\xc3\\xa9"'],
  ];
  for (const [text, want] of table)
    assert.is(
      errorOf(() => parseDuration(text)),
      want,
      text,
    );
});

test('Duration.String renders like Go: largest unit first, sub-second units, trimmed fractions', () => {
  const table: [bigint, string][] = [
    [0n, '0s'],
    [15n * SECOND, '15s'],
    [90n * SECOND, '1m30s'],
    [HOUR, '1h0m0s'],
    [HOUR + SECOND, '1h0m1s'],
    [1500n * MILLISECOND, '1.5s'],
    [500n * MILLISECOND, '500ms'],
    [1500n * MICROSECOND, '1.5ms'],
    [500n * MICROSECOND, '500µs'],
    [3n, '3ns'],
    [-2n * SECOND, '-2s'],
    [MINUTE + 500n * MILLISECOND, '1m0.5s'],
    [SECOND + 1n, '1.000000001s'],
    [9223372036854775807n, '2562047h47m16.854775807s'],
    [-9223372036854775808n, '-2562047h47m16.854775808s'],
  ];
  for (const [ns, want] of table) assert.is(formatDuration(ns), want, want);
});

test('milliseconds round-trip to the nanoseconds they came from', () => {
  for (const ns of [0n, 3n, 1500n * MICROSECOND, 15n * SECOND, 90n * MINUTE, 24n * HOUR + 1n]) {
    assert.is(durationFromMs(durationToMs(ns)), ns, String(ns));
  }
  assert.is(durationToMs(15n * SECOND), 15_000);
});

test.run();
