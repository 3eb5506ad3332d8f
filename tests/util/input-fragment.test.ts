// The few dozen bytes of someone else's input a message may quote: control
// characters (C0, C1, bidi and zero-width marks) taken out, cut on a
// character boundary, never over the limit.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INPUT_FRAGMENT_MAX_BYTES, inputFragment } from '../../src/util/input-fragment.ts';

test('short text without control characters is quoted as it is', () => {
  assert.is(inputFragment('ibwarn: [12] mad_rpc: failed'), 'ibwarn: [12] mad_rpc: failed');
});

test('each run of control characters becomes one space: terminal escapes, tabs, bidi overrides, zero-width spaces', () => {
  assert.is(inputFragment('a\u001b]0;title\u0007\u001b[2Jb'), 'a ]0;title [2Jb');
  assert.is(inputFragment('[3]\t"H-1"'), '[3] "H-1"');
  assert.is(inputFragment('evil\u202egnp.exe\u200bx\u0085y'), 'evil gnp.exe x y');
});

test('longer text is cut to the limit with an ellipsis, a multi-byte character never split', () => {
  const cut = inputFragment('a'.repeat(400));
  assert.is(cut, `${'a'.repeat(INPUT_FRAGMENT_MAX_BYTES)}…`);
  const euros = inputFragment('€'.repeat(40), 10);
  assert.is(euros, '€€€…');
  assert.not.match(euros, /\uFFFD/);
});

test.run();
