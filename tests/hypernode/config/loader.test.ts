import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import {
  enabledSources,
  entryOf,
  loadConfig,
  parseConfig,
  sourceEntry,
  warnConfigProblems,
} from '../../../src/hypernode/config/loader.ts';
import { configMapLocation } from '../../../src/hypernode/config/location.ts';
import { isNotFound } from '../../../src/kube/errors.ts';
import { nullLogger } from '../../../src/log.ts';
import type { ConfigMap } from '../../../src/hypernode/model/hypernode-types.ts';
import { FakeInformer } from '../../support/fake-informer.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';

const HOUR = 3_600_000;
const loc = configMapLocation({});
const cm = (data?: Record<string, string>): ConfigMap => ({
  metadata: { name: loc.name, namespace: loc.namespace },
  data,
});

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

/** The error `load` rejects with; fails the test when it resolves. */
async function loadError(load: Promise<unknown>): Promise<Error> {
  try {
    await load;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the load to fail');
}

test('location defaults and environment overrides (empty means default)', () => {
  assert.equal(
    { ...configMapLocation({}) },
    { namespace: 'volcano-system', name: 'volcano-controller-configmap', key: 'volcano-controller.conf' },
  );
  assert.equal(
    { ...configMapLocation({ KUBE_POD_NAMESPACE: '', HELM_RELEASE_NAME: '' }) },
    { ...configMapLocation({}) },
  );
  const custom = configMapLocation({ KUBE_POD_NAMESPACE: 'ops', HELM_RELEASE_NAME: 'vc' });
  assert.is(custom.namespace, 'ops');
  assert.is(custom.name, 'vc-controller-configmap');
});

test('a missing ConfigMap is a NotFound error with the Go text', async () => {
  const err = await loadError(loadConfig(new FakeInformer<ConfigMap>(), loc, nullLogger));
  assert.ok(isNotFound(err));
  assert.is(err.message, 'configmap "volcano-controller-configmap" not found');
});

test('a missing key is not NotFound and names the key', async () => {
  const err = await loadError(loadConfig(new FakeInformer({ initial: [cm({ other: 'x' })] }), loc, nullLogger));
  assert.not.ok(isNotFound(err));
  assert.is(err.message, 'config key not found in ConfigMap: volcano-controller.conf');
});

test('text that is not YAML fails the whole load with the contractual prefix', async () => {
  const err = await loadError(
    loadConfig(new FakeInformer({ initial: [cm({ 'volcano-controller.conf': 'invalid yaml: :' })] }), loc, nullLogger),
  );
  assert.match(err.message, /^failed to parse config: \S/);
  assert.not.match(err.message, /\n/);
});

test('an alias whose anchor is never set fails the load with the prefix; in an ignored document it is only named', () => {
  assert.match(errorOf(() => parseConfig('*a')).message, /^failed to parse config: Unresolved alias/);
  assert.equal(parseConfig('networkTopologyDiscovery: []\n---\n*x\n').ignoredDocuments, ['line 3: a YAML document']);
});

test('a non-list networkTopologyDiscovery or a non-mapping document fails the whole load', () => {
  assert.match(
    errorOf(() => parseConfig('networkTopologyDiscovery: label')).message,
    /^failed to parse config: networkTopologyDiscovery must be a list/,
  );
  assert.match(errorOf(() => parseConfig('- source: label')).message, /^failed to parse config: /);
});

test('empty value, null list and a document without the key mean no sources', () => {
  for (const text of ['', 'networkTopologyDiscovery:', 'controllers: "*"\nother: {a: 1}']) {
    assert.equal(enabledSources(parseConfig(text)), [], text);
  }
});

test('the example configuration loads from the ConfigMap', async () => {
  const text = readFileSync(new URL('./fixtures/discovery-config-example.yaml', import.meta.url), 'utf8');
  const cfg = await loadConfig(
    new FakeInformer({ initial: [cm({ 'volcano-controller.conf': text })] }),
    loc,
    nullLogger,
  );
  assert.equal(enabledSources(cfg), ['ufm', 'label']);
  const ufm = entryOf(sourceEntry(cfg, 'ufm'))!;
  assert.is(ufm.intervalMs, 10 * 60_000);
  assert.equal(ufm.credentials, { secretRef: { name: 'ufm-credentials', namespace: 'volcano-system' } });
  assert.equal(ufm.config, { endpoint: 'https://ufm-server:8080', insecureSkipVerify: true });
  assert.is(sourceEntry(cfg, 'roce'), undefined, 'disabled');
  const label = entryOf(sourceEntry(cfg, 'label'))!;
  assert.is(label.intervalMs, HOUR);
  assert.ok(
    Object.isFrozen(label) &&
      Object.isFrozen(label.config) &&
      Object.isFrozen((label.config as any).networkTopologyTypes),
  );
});

const bools: [string, boolean][] = [
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['yes', true],
  ['Yes', true],
  ['YES', true],
  ['y', true],
  ['Y', true],
  ['on', true],
  ['On', true],
  ['ON', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
  ['no', false],
  ['No', false],
  ['NO', false],
  ['n', false],
  ['N', false],
  ['off', false],
  ['Off', false],
  ['OFF', false],
];
for (const [spelling, value] of bools) {
  test(`enabled: ${spelling} is the boolean ${value}`, () => {
    assert.equal(
      enabledSources(parseConfig(`networkTopologyDiscovery:\n- source: label\n  enabled: ${spelling}`)),
      value ? ['label'] : [],
    );
  });
}

test('a quoted "true" fails that entry only, naming the source and the field', () => {
  const cfg = parseConfig(
    'networkTopologyDiscovery:\n- source: ufm\n  enabled: "true"\n- source: label\n  enabled: true',
  );
  assert.equal(enabledSources(cfg), ['ufm', 'label'], 'the broken entry is reported, not silently disabled');
  const bad = sourceEntry(cfg, 'ufm')!;
  assert.ok('error' in bad);
  assert.match(
    (bad as { error: string }).error,
    /networkTopologyDiscovery\[0\] \(source "ufm", line 2\): enabled: must be a YAML boolean/,
  );
  assert.ok(entryOf(sourceEntry(cfg, 'label')));
});

const intervals: [string, number][] = [
  ['10m', 600_000],
  ['1h30m', 5_400_000],
  ['90s', 90_000],
  ['1.5h', 5_400_000],
  ['300ms', 300],
  ['"2m"', 120_000],
  ['-5m', HOUR],
  ['0', HOUR],
  ['"0s"', HOUR],
  ['~', HOUR],
  ['null', HOUR],
];
for (const [yaml, ms] of intervals) {
  test(`interval: ${yaml} → ${ms} ms`, () => {
    const e = entryOf(
      sourceEntry(parseConfig(`networkTopologyDiscovery:\n- source: ufm\n  enabled: yes\n  interval: ${yaml}`), 'ufm'),
    );
    assert.is(e?.intervalMs, ms);
  });
}

for (const bad of ['600', '1.5', '1d', 'ten minutes', '1h30', '.s', 'true']) {
  test(`interval: ${bad} fails that source with advice`, () => {
    const cfg = parseConfig(
      `networkTopologyDiscovery:\n- source: label\n  enabled: yes\n- source: ufm\n  enabled: yes\n  interval: ${bad}`,
    );
    const r = sourceEntry(cfg, 'ufm') as { error: string };
    assert.match(r.error, /source "ufm", line 4\): interval: /);
    assert.match(r.error, /"10m"/);
    assert.ok(entryOf(sourceEntry(cfg, 'label')), 'other sources still load');
  });
}

test('an integer interval says it would be nanoseconds', () => {
  const r = sourceEntry(
    parseConfig('networkTopologyDiscovery:\n- source: ufm\n  enabled: true\n  interval: 600'),
    'ufm',
  ) as { error: string };
  assert.match(r.error, /600 nanoseconds/);
});

test('schema keys are case-sensitive and unknown keys are ignored', () => {
  const cfg = parseConfig(
    'networkTopologyDiscovery:\n- Source: label\n  source: ufm\n  Enabled: true\n  enabled: true\n  extra: 1',
  );
  assert.equal(enabledSources(cfg), ['ufm']);
  const cfg2 = parseConfig('NetworkTopologyDiscovery:\n- source: ufm\n  enabled: true');
  assert.equal(enabledSources(cfg2), []);
});

test('enabled sources keep document order; two enabled entries of one source fail it, naming both', () => {
  const cfg = parseConfig(
    'networkTopologyDiscovery:\n- {source: ufm, enabled: false, interval: 1m}\n- {source: label, enabled: true}\n- {source: ufm, enabled: true, interval: 2m}\n- {source: ufm, enabled: true, interval: 3m}',
  );
  assert.equal(enabledSources(cfg), ['label', 'ufm', 'ufm']);
  const ufm = sourceEntry(cfg, 'ufm') as { error: string };
  assert.is(
    ufm.error,
    'networkTopologyDiscovery[2] (source "ufm", line 4): source "ufm" has 2 enabled entries, networkTopologyDiscovery[2] (source "ufm", line 4) and networkTopologyDiscovery[3] (source "ufm", line 5); keep one (merge their config, or set enabled: false on the others)',
  );
  assert.ok(entryOf(sourceEntry(cfg, 'label')), 'the other sources load');
  assert.is(sourceEntry(cfg, 'roce'), undefined);
});

test('YAML errors give the line and column; the documents after the first are ignored and named', () => {
  assert.match(
    errorOf(() => parseConfig('networkTopologyDiscovery:\n- source: label\n  config:\n    - a\n    b: c\n')).message,
    /^failed to parse config: line 5, column \d+: \S/,
  );
  const cfg = parseConfig(
    'networkTopologyDiscovery:\n- {source: lldp, enabled: true}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: lldp-snmp}\n',
  );
  assert.equal(enabledSources(cfg), ['lldp']);
  assert.equal(cfg.ignoredDocuments, ['line 4: Secret lldp-snmp']);
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  warnConfigProblems(cfg, logger);
  assert.match(
    lines.join(''),
    /Ignoring the documents after the first in the discovery configuration, as Go does; only the first is read documents=\["line 4: Secret lldp-snmp"\]/,
  );
});

test('config values keep YAML 1.1 scalar types', () => {
  const e = entryOf(
    sourceEntry(
      parseConfig(
        'networkTopologyDiscovery:\n- source: x\n  enabled: on\n  config: {num: 10, f: 1.5, b: yes, s: "10", z: ~, l: [a, 1]}',
      ),
      'x',
    ),
  )!;
  assert.equal(e.config, { num: 10, f: 1.5, b: true, s: '10', z: null, l: ['a', 1] });
});

test('wrong types in credentials or config fail that entry', () => {
  const cfg = parseConfig(
    'networkTopologyDiscovery:\n- {source: ufm, enabled: true, config: [a]}\n- {source: x, enabled: true, credentials: {secretRef: {name: 5}}}',
  );
  assert.match((sourceEntry(cfg, 'ufm') as { error: string }).error, /config: must be a mapping/);
  assert.match((sourceEntry(cfg, 'x') as { error: string }).error, /credentials\.secretRef\.name: must be a string/);
});

test('an entry that is not a mapping is reported by position', () => {
  const cfg = parseConfig('networkTopologyDiscovery:\n- label\n- {source: ufm, enabled: true}\n- [source, ufm]');
  assert.match(
    (cfg.entries[0] as { error: string }).error,
    /^networkTopologyDiscovery\[0\] \(line 2\): must be a mapping/,
  );
  assert.ok(entryOf(sourceEntry(cfg, 'ufm')));
  assert.match(
    (cfg.entries[2] as { error: string }).error,
    /^networkTopologyDiscovery\[2\] \(line 4\): must be a mapping/,
  );
});

test('misspelled entry keys are warned about by name; the entry is read as Go reads it', async () => {
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  const text =
    'networkTopologyDiscovery:\n  - source: label\n    enable: true\n    confg: {}\n  - source: ufm\n    enabled: false\n';
  const config = await loadConfig(
    new FakeInformer({ initial: [cm({ 'volcano-controller.conf': text })] }),
    loc,
    logger,
  );
  assert.equal(enabledSources(config), [], '`enable` is not `enabled`: the label source stays off, as in Go');
  const warning = lines.find((l) => l.includes('Ignoring unknown keys'));
  assert.ok(warning, lines.join(''));
  assert.match(
    warning!,
    /where="networkTopologyDiscovery\[0\] \(source \\"label\\", line 2\)" unknown=\["enable","confg"\]/,
  );
  assert.is(lines.filter((l) => l.includes('Ignoring unknown keys')).length, 1, 'nothing about the well-formed entry');
});

test.run();

test('a fractional interval is exact, as Go counts whole nanoseconds (2.3h is 8280000 ms, not 8279999.999999999)', () => {
  const e = entryOf(
    sourceEntry(parseConfig('networkTopologyDiscovery:\n- source: ufm\n  enabled: yes\n  interval: 2.3h'), 'ufm'),
  );
  assert.is(e?.intervalMs, 8_280_000);
});
