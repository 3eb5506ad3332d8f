// The lldp entry's config: defaults, the single-fabric and list forms, and a
// clear error naming the key for each kind of bad input (this source is new,
// so an unknown key is an error, never silently a default).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULT_MAX_REPETITIONS,
  parseLldpConfig,
  parseSwitchAddress,
} from '../../../../src/hypernode/discovery/lldp/lldp-config.ts';
import type { DiscoveryEntry } from '../../../../src/hypernode/model/contracts.ts';

const entry = (config: Record<string, unknown>, secret = true): DiscoveryEntry => ({
  source: 'lldp',
  enabled: true,
  intervalMs: 60_000,
  maxDeletePercent: 50,
  config,
  ...(secret ? { credentials: { secretRef: { name: 'snmp', namespace: 'ns' } } } : {}),
});

test('defaults: SNMPv2c, one fabric named lldp, port 161, the entry Secret', () => {
  const c = parseLldpConfig(entry({ switches: ['10.0.0.1', 'sw2.example.com:1161', '[fd00::1]:162'] }));
  assert.is(c.version, '2c');
  assert.is(c.limits.maxRepetitions, DEFAULT_MAX_REPETITIONS);
  assert.equal(
    c.fabrics.map((f) => [f.name, f.switches, f.secretRef]),
    [
      [
        'lldp',
        [
          { host: '10.0.0.1', port: 161 },
          { host: 'sw2.example.com', port: 1161 },
          { host: 'fd00::1', port: 162 },
        ],
        { name: 'snmp', namespace: 'ns' },
      ],
    ],
  );
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.fabrics));
});

test('several fabrics, SNMPv3, durations and a per-fabric Secret', () => {
  const c = parseLldpConfig(
    entry({
      snmp: { version: '3', timeout: '500ms', concurrency: 8 },
      staleAfter: '5m',
      fabrics: [
        { name: 'compute', switches: ['10.0.0.1'] },
        { name: 'storage', switches: ['10.9.0.1'], secretRef: { name: 'st' } },
      ],
    }),
  );
  assert.is(c.version, '3');
  assert.is(c.limits.timeoutMs, 500);
  assert.is(c.concurrency, 8);
  assert.is(c.staleAfterMs, 300_000);
  assert.equal(
    c.fabrics.map((f) => f.secretRef),
    [
      { name: 'snmp', namespace: 'ns' },
      { name: 'st', namespace: 'ns' },
    ],
  );
});

test('bad input is named with what to write instead', () => {
  const cases: [Record<string, unknown>, RegExp, boolean?][] = [
    [
      { switches: ['10.0.0.1'], snmp: { version: '1' } },
      /config\.snmp\.version must be "2c" or "3" \(SNMPv1 is not supported\)/,
    ],
    [{ switches: ['10.0.0.1'], swithces: [] }, /config has unknown keys "swithces"/],
    [{ switches: [] }, /config\.switches must be a non-empty list/],
    [{ switches: ['10.0.0.1', '10.0.0.1:161'] }, /config\.switches\[1\] "10\.0\.0\.1:161" is listed twice/],
    [{ switches: ['10.0.0.1:99999'] }, /port 99999 outside 1-65535/],
    [{ switches: ['10.0.0.1'], staleAfter: 'soon' }, /config\.staleAfter must be a duration like 2s or 30m/],
    [{ switches: ['10.0.0.1'], managementPorts: '(' }, /config\.managementPorts "\(" is not a usable RE2 pattern/],
    [
      {
        fabrics: [
          { name: 'a', switches: ['x'] },
          { name: 'a', switches: ['y'] },
        ],
      },
      /config\.fabrics\[1\]\.name "a" is used twice/,
    ],
    [{ fabrics: [{ name: 'Bad_Name', switches: ['x'] }] }, /must be a DNS label/],
    [
      { switches: ['10.0.0.1'] },
      /fabric lldp has no credentials: set the entry's credentials\.secretRef \(a Secret with "community"\)/,
      false,
    ],
  ];
  for (const [config, message, secret] of cases)
    assert.throws(() => parseLldpConfig(entry(config, secret ?? true)), message, JSON.stringify(config));
  assert.throws(() => parseSwitchAddress('', 'x'), /x must be a switch address/);
});

test.run();
