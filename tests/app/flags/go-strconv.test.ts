import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatFloat32,
  parseBool,
  parseFloat32,
  parseGoInt,
  parseUint,
  quote,
  quoteRune,
} from '../../../src/app/flags/go-strconv.ts';
import { errorOf } from '../../support/error-of.ts';

test('ParseBool accepts exactly Go spellings and names the input in its error', () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.is(parseBool(t), true, t);
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.is(parseBool(f), false, f);
  for (const bad of ['yes', 'tRUE', '', ' true', 'on']) assert.throws(() => parseBool(bad), undefined, bad);
  assert.is(
    errorOf(() => parseBool('yes')),
    'strconv.ParseBool: parsing "yes": invalid syntax',
  );
});

test('ParseInt with base 0 reads Go literals: prefixes, legacy octal, underscores, signs', () => {
  const table: [string, bigint][] = [
    ['100', 100n],
    ['0x64', 100n],
    ['0X64', 100n],
    ['0o144', 100n],
    ['0144', 100n],
    ['0b1100100', 100n],
    ['+100', 100n],
    ['-100', -100n],
    ['0', 0n],
    ['-0', 0n],
    ['1_000', 1000n],
    ['0x_64', 100n],
    ['0_7', 7n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
  ];
  for (const [text, want] of table) assert.is(parseGoInt(text, 0, 64), want, text);
});

test('ParseInt errors carry the whole input and Go reason', () => {
  const table: [string, string][] = [
    ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['+', 'strconv.ParseInt: parsing "+": invalid syntax'],
    ['08', 'strconv.ParseInt: parsing "08": invalid syntax'],
    ['0x', 'strconv.ParseInt: parsing "0x": invalid syntax'],
    ['1__0', 'strconv.ParseInt: parsing "1__0": invalid syntax'],
    ['_1', 'strconv.ParseInt: parsing "_1": invalid syntax'],
    ['1_', 'strconv.ParseInt: parsing "1_": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    [' 1', 'strconv.ParseInt: parsing " 1": invalid syntax'],
    ['-5x', 'strconv.ParseInt: parsing "-5x": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['-9223372036854775809', 'strconv.ParseInt: parsing "-9223372036854775809": value out of range'],
  ];
  for (const [text, want] of table)
    assert.is(
      errorOf(() => parseGoInt(text, 0, 64)),
      want,
      text,
    );
});

test('ParseInt with base 10 (klog levels) refuses prefixes and underscores and checks int32 range', () => {
  assert.is(parseGoInt('4', 10, 32), 4n);
  assert.is(parseGoInt('-1', 10, 32), -1n);
  assert.is(parseGoInt('010', 10, 32), 10n);
  assert.is(
    errorOf(() => parseGoInt('0x10', 10, 32)),
    'strconv.ParseInt: parsing "0x10": invalid syntax',
  );
  assert.is(
    errorOf(() => parseGoInt('1_0', 10, 32)),
    'strconv.ParseInt: parsing "1_0": invalid syntax',
  );
  assert.is(
    errorOf(() => parseGoInt('2147483648', 10, 32)),
    'strconv.ParseInt: parsing "2147483648": value out of range',
  );
  // Go notices the overflow before it reaches the bad character.
  assert.is(
    errorOf(() => parseGoInt('9999999999x', 10, 32)),
    'strconv.ParseInt: parsing "9999999999x": value out of range',
  );
});

test('ParseUint rejects signs and values beyond 64 bits', () => {
  assert.is(parseUint('18446744073709551615', 0, 64), 18446744073709551615n);
  assert.is(
    errorOf(() => parseUint('-1', 0, 64)),
    'strconv.ParseUint: parsing "-1": invalid syntax',
  );
  assert.is(
    errorOf(() => parseUint('18446744073709551616', 0, 64)),
    'strconv.ParseUint: parsing "18446744073709551616": value out of range',
  );
});

test('ParseFloat(32) accepts decimal, scientific, hex, underscores and the special values', () => {
  const table: [string, number][] = [
    ['50', 50],
    ['1e2', 100],
    ['.5', 0.5],
    ['5.', 5],
    ['-2.5', -2.5],
    ['+3', 3],
    ['1E-2', Math.fround(0.01)],
    ['1_000.5', 1000.5],
    ['0x1p-2', 0.25],
    ['0x1.8p1', 3],
    ['0.1', Math.fround(0.1)],
    ['Inf', Infinity],
    ['+inf', Infinity],
    ['-Inf', -Infinity],
    ['infinity', Infinity],
    ['1e-50', 0],
  ];
  for (const [text, want] of table) assert.is(parseFloat32(text), want, text);
  assert.ok(Number.isNaN(parseFloat32('NaN')));
  assert.ok(Number.isNaN(parseFloat32('nan')));
});

test('ParseFloat(32) errors: bad syntax and values beyond float32', () => {
  const table: [string, string][] = [
    ['abc', 'strconv.ParseFloat: parsing "abc": invalid syntax'],
    ['', 'strconv.ParseFloat: parsing "": invalid syntax'],
    ['.', 'strconv.ParseFloat: parsing ".": invalid syntax'],
    ['1e', 'strconv.ParseFloat: parsing "1e": invalid syntax'],
    ['0x10', 'strconv.ParseFloat: parsing "0x10": invalid syntax'],
    ['+nan', 'strconv.ParseFloat: parsing "+nan": invalid syntax'],
    ['infin', 'strconv.ParseFloat: parsing "infin": invalid syntax'],
    ['1__0', 'strconv.ParseFloat: parsing "1__0": invalid syntax'],
    ['1e1_', 'strconv.ParseFloat: parsing "1e1_": invalid syntax'],
    [' 1', 'strconv.ParseFloat: parsing " 1": invalid syntax'],
    ['1e39', 'strconv.ParseFloat: parsing "1e39": value out of range'],
    ['-1e39', 'strconv.ParseFloat: parsing "-1e39": value out of range'],
  ];
  for (const [text, want] of table)
    assert.is(
      errorOf(() => parseFloat32(text)),
      want,
      text,
    );
});

test("FormatFloat(v, 'g', -1, 32) prints the shortest float32 text like Go", () => {
  const table: [number, string][] = [
    [50, '50'],
    [0.5, '0.5'],
    [Math.fround(0.1), '0.1'],
    [100000, '100000'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [Math.fround(0.0001), '0.0001'],
    [Math.fround(0.00001), '1e-05'],
    [-2.5, '-2.5'],
    [0, '0'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ];
  for (const [value, want] of table) assert.is(formatFloat32(value), want, String(value));
});

test('Quote and QuoteRune escape like Go %q', () => {
  assert.is(quote('2>&1'), '"2>&1"');
  assert.is(quote('a"b\\c'), '"a\\"b\\\\c"');
  assert.is(quote('tab\there\n'), '"tab\\there\\n"');
  assert.is(quote('\x01\x7f'), '"\\x01\\x7f"');
  assert.is(quote('héllo µs'), '"héllo µs"');
  assert.is(quote('\u2028'), '"\\u2028"');
  assert.is(quoteRune('x'), "'x'");
  assert.is(quoteRune("'"), "'\\''");
});

test.run();
