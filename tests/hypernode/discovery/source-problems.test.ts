import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { SourceProblems } from '../../../src/hypernode/discovery/source-problems.ts';
import { newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { FakeClock } from '../../kube/fake-clock.ts';
import { RecordingEvents } from '../../support/controller-fixtures.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';
import { registryValue } from '../../support/metric-registry.ts';

function rig(logOptions: Parameters<typeof capturingLogger>[0] = {}) {
  const registry = new Registry();
  const events = new RecordingEvents();
  const log = capturingLogger(logOptions);
  const clock = new FakeClock();
  const problems = new SourceProblems({
    clock,
    source: 'ufm',
    logger: log.logger,
    events,
    metrics: newHyperNodeMetrics(registry),
    regarding: () => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'volcano-controller-configmap', namespace: 'volcano-system' },
    }),
  });
  return { registry, events, log, problems, clock };
}

test('a UFM outage that repeats the same error yields one Event and one error line, but every failure is counted', async () => {
  const { registry, events, log, problems } = rig();
  for (let i = 0; i < 5; i++)
    problems.failed('Failed to fetch UFM data', new Error('failed to send request: connect ECONNREFUSED 127.0.0.1:1'));
  assert.is(events.events.length, 1);
  assert.is(events.events[0]!.type, 'Warning');
  assert.is(events.events[0]!.reason, 'DiscoveryFailed');
  assert.match(
    events.events[0]!.message,
    /"ufm" produced no result, its HyperNodes are kept: Failed to fetch UFM data: failed to send request/,
  );
  assert.is(
    log.lines.filter((l) => l.includes('Failed to fetch UFM data') && !l.includes('repeated=true')).length,
    1,
    'one error line; repeats only at V(2)',
  );
  assert.is(await registryValue(registry, 'hypernode_discovery_failures_total', { source: 'ufm' }), 5);
});

test('a different error is reported again; recovery is logged once and re-arms reporting', () => {
  const { events, log, problems } = rig();
  problems.failed('Failed to fetch UFM data', new Error('unexpected status code: 401 Unauthorized'));
  problems.failed('Failed to fetch UFM data', new Error('unexpected status code: 500 Internal Server Error'));
  assert.is(events.events.length, 2);
  problems.recovered();
  problems.recovered();
  assert.is(log.messages().filter((m) => m === 'Network topology discovery recovered').length, 1);
  problems.failed('Failed to fetch UFM data', new Error('unexpected status code: 500 Internal Server Error'));
  assert.is(events.events.length, 3, 'the same error after a recovery is a new outage');
});

test('a warning is one log line and one Warning Event with its own reason, counted as no failure', async () => {
  const { registry, events, log, problems } = rig();
  problems.warning(
    'CleartextCredentials',
    'WARNING: the UFM endpoint http://ufm/ufmRest/resources/ports is plain http',
  );
  assert.equal(
    events.events.map((e) => [e.type, e.reason, e.message]),
    [
      [
        'Warning',
        'CleartextCredentials',
        'Discovery source "ufm": WARNING: the UFM endpoint http://ufm/ufmRest/resources/ports is plain http',
      ],
    ],
  );
  assert.is(log.lines.filter((l) => l.includes('is plain http')).length, 1);
  assert.is(await registryValue(registry, 'hypernode_discovery_failures_total', { source: 'ufm' }), 0);
});

test('what a run left out is an info line naming the source, with no Event and no failure counted', async () => {
  const { registry, events, log, problems } = rig({ headers: true });
  problems.leftOut('UFM hosts that match no Node are left out', { fabric: 'ufm', count: 1, hosts: 'storage-1' });
  assert.is(log.lines.length, 1);
  const line = 'UFM hosts that match no Node are left out source="ufm" fabric="ufm" count=1 hosts="storage-1"';
  assert.ok(/^I\d{4} [\d:.]+ +\d+\] /.test(log.lines[0]!), log.lines[0]);
  assert.ok(log.lines[0]!.endsWith(`] ${line}`), log.lines[0]);
  assert.equal(events.events, []);
  assert.is(await registryValue(registry, 'hypernode_discovery_failures_total', { source: 'ufm' }), 0);
});

test('every successful run stamps the last-success time of its source, failures leave it alone', async () => {
  const { registry, problems, clock } = rig();
  const lastSuccess = () =>
    registryValue(registry, 'hypernode_discovery_last_success_timestamp_seconds', { source: 'ufm' });
  problems.recovered();
  assert.is(await lastSuccess(), clock.now() / 1000);
  const first = clock.now();
  await clock.advance(60_000);
  problems.failed('Failed to fetch UFM data', new Error('unexpected status code: 401 Unauthorized'));
  assert.is(await lastSuccess(), first / 1000);
  await clock.advance(60_000);
  problems.recovered();
  assert.is(await lastSuccess(), clock.now() / 1000);
});

test.run();
