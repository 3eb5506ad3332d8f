import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorMessage, wrapError } from '../../src/util/error-message.ts';

test('errorMessage reads an Error and prints anything else that was thrown', () => {
  assert.is(errorMessage(new TypeError('bad input')), 'bad input');
  assert.is(errorMessage('a string'), 'a string');
  assert.is(errorMessage(42), '42');
  assert.is(errorMessage(undefined), 'undefined');
});

test('wrapError prefixes the message and keeps the original as the cause', () => {
  const inner = new Error('connection refused');
  const wrapped = wrapError('failed to send request', inner);
  assert.is(wrapped.message, 'failed to send request: connection refused');
  assert.is(wrapped.cause, inner);
  assert.is(wrapError('cannot read x', 'EOF').message, 'cannot read x: EOF');
});

test.run();
