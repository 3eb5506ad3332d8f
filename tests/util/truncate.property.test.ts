// Generated cases for truncateText: never over the limit, a true prefix of the
// input (no character split), and the original byte length reported.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { truncateText } from '../../src/util/truncate.ts';
import { propertyParameters } from '../support/property.ts';

test('the result fits the limit, starts with a whole-character prefix of the input and names its length', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 24, max: 600 }), (text, limit) => {
      const out = truncateText(text, limit);
      const length = Buffer.byteLength(text);
      if (length <= limit) return assert.is(out, text);
      assert.ok(Buffer.byteLength(out) <= limit, 'within the limit');
      const suffix = `… (${length} bytes)`;
      assert.ok(out.endsWith(suffix), 'ellipsis and original length');
      const prefix = out.slice(0, -suffix.length);
      assert.ok(text.startsWith(prefix), 'a prefix of the input');
      assert.not.match(prefix, /[\uD800-\uDBFF]$/, 'no lone high surrogate at the cut');
    }),
    propertyParameters(),
  );
});

test.run();
