// The one rule for fabric names (src/hypernode/model/fabric-names.ts): a
// printable name is kept, a name with a control, bidi or zero-width character
// is shown as the hex of its bytes, a long one is cut to 255 bytes with a
// visible mark and shares no memory with the original, and text printed from
// the cluster is escaped character by character.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  FABRIC_NAME_MAX_BYTES,
  fabricName,
  fabricNameFromBytes,
  printableText,
  terminalText,
} from '../../../src/hypernode/model/fabric-names.ts';

test('printable names are kept as they are, non-ASCII included', () => {
  for (const name of ['node01', 'node01 HCA-1', 'MF0;SPINE-1:MQM9700/U1', 'nöde-ü', '🙂', ''])
    assert.is(fabricName(name), name);
});

test('a name with a C0 or C1 control, a bidi or zero-width character or a lone surrogate becomes the hex of its bytes', () => {
  assert.is(fabricName('esc\u001b[31mred'), '65:73:63:1b:5b:33:31:6d:72:65:64');
  assert.is(fabricName('tab\tname'), '74:61:62:09:6e:61:6d:65');
  assert.is(fabricName('c1\u0085'), '63:31:c2:85');
  assert.is(fabricName('ab\u202ecd'), '61:62:e2:80:ae:63:64');
  assert.is(fabricName('ab\u2066cd'), '61:62:e2:81:a6:63:64');
  assert.is(fabricName('a\u200bb'), '61:e2:80:8b:62');
  assert.is(fabricName('a\ufeffb'), '61:ef:bb:bf:62');
  assert.is(fabricName('\ud800x'), 'ef:bf:bd:78');
});

test('a long name is cut to 255 bytes at a character with a visible mark; a long unsafe one too', () => {
  const cut = fabricName('x'.repeat(300 * 1024));
  assert.is(Buffer.byteLength(cut), FABRIC_NAME_MAX_BYTES);
  assert.ok(cut.endsWith('…'));
  const wide = fabricName('é'.repeat(200));
  assert.ok(Buffer.byteLength(wide) <= FABRIC_NAME_MAX_BYTES && /^é+…$/.test(wide), wide);
  const hex = fabricName(`\u001b${'x'.repeat(1000)}`);
  assert.ok(Buffer.byteLength(hex) <= FABRIC_NAME_MAX_BYTES && hex.startsWith('1b:78:78') && hex.endsWith('…'), hex);
});

test('bytes a switch answered: printable text as text, trailing NULs cut, binary and unsafe as hex', () => {
  assert.is(printableText(Buffer.from('sw1\0\0')), 'sw1');
  assert.is(printableText(Buffer.from([0x6e, 0xff])), undefined);
  assert.is(fabricNameFromBytes(Buffer.from('leaf-1')), 'leaf-1');
  assert.is(fabricNameFromBytes(Buffer.from([0x02, 0xaa, 0x00, 0x01])), '02:aa:00:01');
  assert.is(fabricNameFromBytes(Buffer.from('a\u202eb')), '61:e2:80:ae:62');
});

test('text printed from the cluster keeps its lines and shows every other unsafe character escaped', () => {
  assert.is(
    terminalText('line1\nesc\u001b]0;t\u0007 rlo\u202e zw\u200b\ttab'),
    'line1\nesc\\x1b]0;t\\x07 rlo\\u202e zw\\u200b\\x09tab',
  );
  assert.is(terminalText('plain — ünïcode'), 'plain — ünïcode');
});

test.run();
