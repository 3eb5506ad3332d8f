// What a message may show of foreign input: a short, printable fragment of a
// string, the kind and size of anything larger, never a control character.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeInput, quoteInput, safeFragment } from '../../src/util/input-fragment.ts';

test('a short value is shown as written; a long one as its first 40 bytes and its size', () => {
  assert.is(quoteInput('10x'), '"10x"');
  assert.is(quoteInput(1.5), '1.5');
  assert.is(quoteInput(true), 'true');
  assert.is(quoteInput(undefined), 'nothing');
  const long = `eyJhbGciOiJSUzI1NiJ9.${'x'.repeat(900)}`;
  assert.is(quoteInput(long), `"${long.slice(0, 40)}…" (${long.length} bytes)`);
  // A multi-byte character at the cut is left out whole.
  assert.is(quoteInput('€'.repeat(20)), `"${'€'.repeat(13)}…" (60 bytes)`);
});

test('lists and mappings are named by kind and size, never by content', () => {
  assert.is(quoteInput({ password: 'hunter2', user: 'admin' }), 'a mapping of 2 keys');
  assert.is(quoteInput(['secret']), 'a list of 1 item');
  assert.is(describeInput('a-token'), 'a string of 7 bytes');
  assert.is(describeInput(''), 'an empty string');
  assert.is(describeInput(7), 'a number');
});

test('control, bidi and zero-width characters are removed; line breaks become one space', () => {
  const hostile = 'sw\u001b]0;owned\u0007itch\u202e1\u200b\r\n2\u0085\u009b';
  assert.is(safeFragment(hostile), 'sw]0;owneditch1 2');
  assert.is(quoteInput('a\nb'), '"a b"');
  assert.is(quoteInput(`${'\u001b'.repeat(500)}x`), '"…" (501 bytes)');
});

test('a megabyte is cut without being copied whole', () => {
  const big = 'a'.repeat(2 ** 20);
  assert.is(safeFragment(big), `${'a'.repeat(40)}… (${2 ** 20} bytes)`);
  assert.is(safeFragment(big, 96).length, 96 + `… (${2 ** 20} bytes)`.length);
});

test.run();
