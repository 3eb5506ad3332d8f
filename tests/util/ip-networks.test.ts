// Addresses and networks as bytes: IPv4, IPv6 with `::` and a dotted tail,
// zones and brackets, and IPv4 written as IPv6 read as the IPv4 it is.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inNetwork, parseIp, parseNetwork } from '../../src/util/ip-networks.ts';

const within = (address: string, network: string) => inNetwork(parseIp(address)!, parseNetwork(network)!);

test('IPv4 and IPv6 addresses in and out of networks', () => {
  assert.ok(within('127.0.0.1', '127.0.0.0/8'));
  assert.ok(within('127.255.1.2', '127.0.0.0/8'));
  assert.not.ok(within('128.0.0.1', '127.0.0.0/8'));
  assert.ok(within('169.254.169.254', '169.254.0.0/16'));
  assert.ok(within('10.1.2.3', '0.0.0.0/0'));
  assert.ok(within('fe80::1%eth0', 'fe80::/10'));
  assert.ok(within('febf::1', 'fe80::/10'));
  assert.not.ok(within('fec0::1', 'fe80::/10'));
  assert.ok(within('[::1]', '::1'));
  assert.ok(within('fd00:ec2::254', 'fd00:ec2::254/128'));
  assert.not.ok(within('fd00:ec2::255', 'fd00:ec2::254/128'));
  assert.not.ok(within('::1', '0.0.0.0/0'), 'never across families');
});

test('an IPv4-mapped IPv6 address is the IPv4 address, written either way', () => {
  assert.equal(parseIp('::ffff:127.0.0.1'), { family: 4, bytes: Uint8Array.from([127, 0, 0, 1]) });
  assert.equal(parseIp('[::ffff:7f00:1]'), parseIp('127.0.0.1'));
  assert.ok(within('::ffff:169.254.169.254', '169.254.0.0/16'));
  assert.ok(within('127.0.0.9', '::ffff:127.0.0.0/104'));
});

test('what is no address or network is refused', () => {
  for (const text of ['localhost', '1.2.3', '::g', '']) assert.is(parseIp(text), undefined, text);
  for (const text of ['10.0.0.0/33', 'fe80::/129', '::ffff:0:0/95', 'x/8', '10.0.0.0/'])
    assert.is(parseNetwork(text), undefined, text);
  assert.is(parseNetwork(' 10.0.0.0/8 ')?.bits, 8);
  assert.is(parseNetwork('127.0.0.1')?.bits, 32);
});

test.run();
