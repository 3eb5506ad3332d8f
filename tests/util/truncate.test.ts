// Bounding foreign text: unchanged when it fits, otherwise a prefix, an
// ellipsis and the original length in bytes, never over the limit.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { truncateText } from '../../src/util/truncate.ts';

const bytes = (s: string) => Buffer.byteLength(s);

test('text that fits is returned unchanged, at exactly the limit too', () => {
  assert.is(truncateText('short', 1024), 'short');
  assert.is(truncateText('x'.repeat(64), 64), 'x'.repeat(64));
  assert.is(truncateText('é'.repeat(32), 64), 'é'.repeat(32));
});

test('longer text keeps a prefix, an ellipsis and its full length, within the limit', () => {
  const out = truncateText('a'.repeat(5000), 100);
  assert.ok(out.endsWith('… (5000 bytes)'), out);
  assert.is(bytes(out), 100);
  assert.ok(out.startsWith('a'.repeat(80)));
});

test('a multi-byte character at the cut is dropped whole, never split', () => {
  const out = truncateText('€'.repeat(100), 50); // 3 bytes each
  assert.ok(out.endsWith('… (300 bytes)'), out);
  assert.not.match(out, /\uFFFD/);
  assert.ok(bytes(out) <= 50);
  assert.is(out.replace(/… \(300 bytes\)$/, ''), '€'.repeat(((50 - bytes('… (300 bytes)')) / 3) | 0));
});
test.run();
