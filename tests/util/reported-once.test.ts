// The one "say it once while it holds" rule: the same message again is not
// new, a different one is, per key, and forgetting a key is a recovery
// exactly when something was reported.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LastReported } from '../../src/util/reported-once.ts';

test('a repeat is not new, a change is, each key on its own; forgetting reports a recovery once', () => {
  const reported = new LastReported();
  assert.equal(
    ['down', 'down', 'timeout', 'down'].map((m) => reported.isNew(m, 'ufm')),
    [true, false, true, true],
  );
  assert.is(reported.isNew('down', 'graph'), true, 'another key has its own memory');
  assert.equal(reported.keys(), ['ufm', 'graph']);
  assert.equal([reported.forget('ufm'), reported.forget('ufm')], [true, false]);
  assert.is(reported.isNew('down', 'ufm'), true, 'after a recovery the same trouble is new again');
});

test.run();
