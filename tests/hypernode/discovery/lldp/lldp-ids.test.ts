// Canonical LLDP ids: one key per chassis whatever form the vendor sends it
// in, and ids printed readably.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Buffer } from 'node:buffer';
import {
  chassisKey,
  describeChassis,
  ipv6Text,
  macHex,
  portText,
} from '../../../../src/hypernode/discovery/lldp/lldp-ids.ts';

test('one MAC, every vendor form: 6 bytes (EOS, NX-OS), colon text (SONiC), space text (OS9), dash, dotted and bare text; all one key, printed readably', () => {
  const forms = [
    chassisKey(4, Buffer.from('7486e20a0c04', 'hex')),
    chassisKey(4, Buffer.from('74:86:e2:0a:0c:04')),
    chassisKey(4, Buffer.from('74 86 E2 0A 0C 04')),
    chassisKey(4, Buffer.from('74-86-e2-0a-0c-04')),
    chassisKey(4, Buffer.from('7486.e20a.0c04')),
    chassisKey(4, Buffer.from('7486e20a0c04')),
    chassisKey(7, Buffer.from('74:86:e2:0a:0c:04')),
  ];
  assert.equal(new Set(forms), new Set(['7486e20a0c04']));
  assert.is(describeChassis(forms[0]!), 'mac 74:86:e2:0a:0c:04');
  assert.is(macHex(forms[0]!), '7486e20a0c04');
});

test('network addresses (family byte + address, or text), IPv6 compressed; names stay text; binary ids print as hex', () => {
  assert.is(chassisKey(5, Buffer.from([1, 10, 0, 0, 9])), 'ip 10.0.0.9');
  assert.is(chassisKey(5, Buffer.from('10.0.0.9')), 'ip 10.0.0.9');
  assert.is(
    chassisKey(5, Buffer.from([2, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
    'ip 2001:db8::1',
  );
  assert.is(chassisKey(5, Buffer.from('2001:DB8:0:0::1')), 'ip 2001:db8::1');
  assert.is(
    ipv6Text([0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]),
    '1:0:0:1::1',
    'the longest zero run is the one shortened',
  );
  assert.is(ipv6Text(new Array(16).fill(0)), '::');
  assert.is(chassisKey(7, Buffer.from('leaf-1')), '7 leaf-1');
  assert.is(
    chassisKey(1, Buffer.from('202412310042')),
    '1 202412310042',
    'twelve bare digits are a MAC only under the MAC subtype',
  );
  assert.is(macHex('7 leaf-1'), undefined);
  assert.is(chassisKey(7, Buffer.from([0, 1, 0x1f])), '7 00:01:1f');
  assert.is(portText(5, Buffer.from('Ethernet1/1')), 'Ethernet1/1');
  assert.is(portText(3, Buffer.from('b8cef6010203', 'hex')), 'b8:ce:f6:01:02:03');
  assert.is(portText(4, Buffer.from([1, 192, 0, 2, 1])), '192.0.2.1');
});

test.run();
