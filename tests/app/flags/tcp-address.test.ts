import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseServices } from '../../../src/app/flags/services.ts';
import {
  ipBytes,
  lookupPort,
  resolveTcpAddress,
  splitHostPort,
  systemResolver,
  tcpAddressesConflict,
} from '../../../src/app/flags/tcp-address.ts';
import { errorOf } from '../../support/error-of.ts';

test('SplitHostPort splits like Go, including bracketed IPv6', () => {
  const table: [string, string, string][] = [
    [':8080', '', '8080'],
    ['127.0.0.1:80', '127.0.0.1', '80'],
    ['[::1]:80', '::1', '80'],
    ['[fe80::1%eth0]:80', 'fe80::1%eth0', '80'],
    ['host:', 'host', ''],
    [':', '', ''],
  ];
  for (const [input, host, port] of table) assert.equal(splitHostPort(input), { host, port }, input);
});

test('SplitHostPort errors are Go AddrError texts', () => {
  const table: [string, string][] = [
    ['host', 'address host: missing port in address'],
    ['a:b:c', 'address a:b:c: too many colons in address'],
    ['[::1]', 'address [::1]: missing port in address'],
    ['[::1]x:80', 'address [::1]x:80: missing port in address'],
    ['[::1]:80:90', 'address [::1]:80:90: too many colons in address'],
    ['[::1', "address [::1: missing ']' in address"],
    ['a[b:80', "address a[b:80: unexpected '[' in address"],
    ['a]b:80', "address a]b:80: unexpected ']' in address"],
  ];
  for (const [input, want] of table)
    assert.is(
      errorOf(() => splitHostPort(input)),
      want,
      input,
    );
});

test('LookupPort: decimal 0-65535 with an optional sign, or a service name in any case', () => {
  const services = { lookupService: (name: string) => ({ http: 80, 'http-alt': 8080 })[name] };
  assert.is(lookupPort('', services), 0);
  assert.is(lookupPort('0', services), 0);
  assert.is(lookupPort('65535', services), 65535);
  assert.is(lookupPort('+80', services), 80);
  assert.is(lookupPort('0080', services), 80);
  assert.is(lookupPort('HTTP', services), 80);
  assert.is(lookupPort('http-alt', services), 8080);
  assert.is(
    errorOf(() => lookupPort('65536', services)),
    'address 65536: invalid port',
  );
  assert.is(
    errorOf(() => lookupPort('-1', services)),
    'address -1: invalid port',
  );
  assert.is(
    errorOf(() => lookupPort('99999999999999999999', services)),
    'address 99999999999999999999: invalid port',
  );
  assert.is(
    errorOf(() => lookupPort('port', services)),
    'address tcp/port: unknown port',
  );
  assert.is(
    errorOf(() => lookupPort('--1', services)),
    'address tcp/--1: unknown port',
  );
});

test('/etc/services parsing: tcp entries, aliases, comments; later lines win', () => {
  const ports = parseServices(
    [
      '# comment',
      'http\t\t80/tcp\t\twww\t# WWW',
      'https 443/tcp',
      'https 443/udp',
      'dns 53/udp',
      'bogus x/tcp',
      'http 8000/tcp',
      '',
    ].join('\n'),
  );
  assert.is(ports.get('http'), 8000);
  assert.is(ports.get('www'), 80);
  assert.is(ports.get('https'), 443);
  assert.is(ports.get('dns'), undefined);
  assert.is(ports.get('bogus'), undefined);
});

test('the system service table knows http and https', () => {
  assert.is(systemResolver.lookupService('http'), 80);
  assert.is(systemResolver.lookupService('https'), 443);
});

test('ResolveTCPAddr: empty means all interfaces on port 0; IP literals are not looked up', async () => {
  const noLookups = {
    lookupHost: () => Promise.reject(new Error('must not look up')),
    lookupService: () => undefined,
  };
  assert.equal(await resolveTcpAddress('', noLookups), { ip: undefined, port: 0 });
  assert.equal(await resolveTcpAddress(':11251', noLookups), { ip: undefined, port: 11251 });
  assert.equal(await resolveTcpAddress('10.1.2.3:80', noLookups), { ip: '10.1.2.3', port: 80 });
  assert.equal(await resolveTcpAddress('[::1]:80', noLookups), { ip: '::1', port: 80 });
});

test('ResolveTCPAddr picks the first IPv4 address of a name, IPv6 when the name was bracketed', async () => {
  const dual = {
    lookupHost: async () => [
      { address: 'fd00::1', family: 6 },
      { address: '10.0.0.1', family: 4 },
    ],
    lookupService: () => undefined,
  };
  assert.equal(await resolveTcpAddress('dual:80', dual), { ip: '10.0.0.1', port: 80 });
  assert.equal(await resolveTcpAddress('[dual]:80', dual), { ip: 'fd00::1', port: 80 });
});

test('ipBytes puts IPv4, IPv4-mapped and IPv6 forms in one comparable shape', () => {
  const hex = (ip: string) => Buffer.from(ipBytes(ip)).toString('hex');
  assert.is(hex('127.0.0.1'), '00000000000000000000ffff7f000001');
  assert.is(hex('::ffff:127.0.0.1'), hex('127.0.0.1'));
  assert.is(hex('::1'), '00000000000000000000000000000001');
  assert.is(hex('0:0:0:0:0:0:0:1'), hex('::1'));
  assert.is(hex('fe80::1%eth0'), 'fe800000000000000000000000000001');
  assert.is(hex('2001:db8::'), '20010db8000000000000000000000000');
});

test('conflicts: same port and (a wildcard or the same IP)', () => {
  assert.ok(tcpAddressesConflict({ ip: undefined, port: 1 }, { ip: '10.0.0.1', port: 1 }));
  assert.ok(tcpAddressesConflict({ ip: '0.0.0.0', port: 1 }, { ip: '::1', port: 1 }));
  assert.ok(tcpAddressesConflict({ ip: '::', port: 1 }, { ip: '10.0.0.1', port: 1 }));
  assert.not.ok(tcpAddressesConflict({ ip: undefined, port: 1 }, { ip: undefined, port: 2 }));
  assert.not.ok(tcpAddressesConflict({ ip: '10.0.0.1', port: 1 }, { ip: '10.0.0.2', port: 1 }));
});

test.run();
