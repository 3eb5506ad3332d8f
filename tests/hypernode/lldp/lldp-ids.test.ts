// Canonical LLDP ids: one key per chassis or port whatever form the vendor
// sends it in, printed readably.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Buffer } from 'node:buffer';
import { chassisId, ipv6Text, portId } from '../../../src/hypernode/discovery/lldp/lldp-ids.ts';

test('one MAC, every vendor form: 6 bytes (EOS, NX-OS), colon text (SONiC), space text (OS9), dash, dotted and bare text; all one key', () => {
  const forms = [
    chassisId(4, Buffer.from('7486e20a0c04', 'hex')),
    chassisId(4, Buffer.from('74:86:e2:0a:0c:04')),
    chassisId(4, Buffer.from('74 86 E2 0A 0C 04')),
    chassisId(4, Buffer.from('74-86-e2-0a-0c-04')),
    chassisId(4, Buffer.from('7486.e20a.0c04')),
    chassisId(4, Buffer.from('7486e20a0c04')),
    chassisId(7, Buffer.from('74:86:e2:0a:0c:04')),
  ];
  for (const f of forms) assert.equal(f, { kind: 'mac', text: '74:86:e2:0a:0c:04', key: 'mac 74:86:e2:0a:0c:04' });
});

test('network addresses (family byte + address, or text), IPv6 compressed; names stay text; binary ids print as hex', () => {
  assert.is(chassisId(5, Buffer.from([1, 10, 0, 0, 9])).key, 'ip 10.0.0.9');
  assert.is(chassisId(5, Buffer.from('10.0.0.9')).key, 'ip 10.0.0.9');
  assert.is(chassisId(5, Buffer.from([2, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])).key, 'ip 2001:db8::1');
  assert.is(chassisId(5, Buffer.from('2001:DB8:0:0::1')).key, 'ip 2001:db8::1');
  assert.is(ipv6Text([0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]), '1:0:0:1::1', 'the longest zero run is the one shortened');
  assert.is(ipv6Text(new Array(16).fill(0)), '::');
  assert.equal(portId(5, Buffer.from('Ethernet1/1')), { kind: 'name', text: 'Ethernet1/1', key: '5 Ethernet1/1' });
  assert.is(portId(3, Buffer.from('b8cef6010203', 'hex')).text, 'b8:ce:f6:01:02:03');
  assert.equal(chassisId(7, Buffer.from([0, 1, 0x1f])), { kind: 'bytes', text: '00:01:1f', key: '7 00:01:1f' });
});

test.run();
