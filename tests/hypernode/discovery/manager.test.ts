import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { newDiscovererRegistry } from '../../../src/hypernode/discovery/registry.ts';
import { DiscoveryManager, type DiscoveryResult } from '../../../src/hypernode/discovery/manager.ts';
import { newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { build } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { ConfigMap, HyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { FakeInformer } from '../../support/fake-informer.ts';
import { FakeClock, settle } from '../../kube/fake-clock.ts';
import { waitFor, within } from '../../../testing/wait.ts';
import {
  CM_LOCATION,
  RecordingEvents,
  ScriptedSource,
  discoveryConfigMap,
  discoveryYaml,
} from '../../support/controller-fixtures.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';
import { registryValue } from '../../support/metric-registry.ts';
import type { DiscoveryConfig } from '../../../src/hypernode/config/loader.ts';
import { unexpectedWorkerError } from '../../support/worker-errors.ts';

function setup(registered: string[]) {
  const clock = new FakeClock();
  const configMaps = new FakeInformer<ConfigMap>();
  const sources = Object.fromEntries(registered.map((s) => [s, new ScriptedSource(s)]));
  const events = new RecordingEvents();
  const log = capturingLogger();
  const registry = new Registry();
  /** What the followers were given, in order. */
  const published: (DiscoveryConfig | undefined)[] = [];
  const manager = new DiscoveryManager({
    configMaps,
    configMap: CM_LOCATION,
    registry: newDiscovererRegistry(Object.fromEntries(registered.map((s) => [s, sources[s]!.factory]))),
    discovererOptions: {
      nodes: new FakeInformer<NodeMeta>(),
      hyperNodes: new FakeInformer<HyperNode>(),
      secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no secrets here')) },
      clock,
      logger: log.logger,
      workerErrors: unexpectedWorkerError,
    },
    events,
    metrics: newHyperNodeMetrics(registry),
    clock,
    logger: log.logger,
    onWorkerError: unexpectedWorkerError('hypernode-configmap'),
    onConfiguration: (config) => published.push(config),
  });
  const registration = configMaps.addEventHandler(manager.configMapHandler());
  manager.start();
  const applied = () => log.messages().filter((m) => m === 'Discovery configuration applied').length;
  /** Applies `cm` and waits until the manager has processed it. */
  const apply = async (cm: ConfigMap) => {
    const before = applied();
    configMaps.apply(cm);
    await waitFor(() => applied() > before, { what: 'configuration applied' });
  };
  const stop = async () => {
    await within(manager.stop(), 2000, 'manager stop');
    registration.remove();
  };
  return { clock, configMaps, sources, events, log, registry, manager, published, applied, apply, stop };
}

const snapshot = (...names: string[]) => names.map((n) => build(n, 1, [], {}));

/** Takes the next result, failing the test if none comes within the deadline. */
async function nextResult(manager: DiscoveryManager): Promise<DiscoveryResult> {
  const r = await within(manager.results.recv(), 2000, 'next result');
  if (r.done) throw new Error('result stream closed');
  return r.value;
}

test('a ConfigMap add starts every enabled source once; a disabled one is not started', async () => {
  const t = setup(['label', 'ufm']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }, { source: 'ufm', enabled: false }])));
  assert.is(t.sources.label!.instances.length, 1);
  assert.is(t.sources.ufm!.attempts, 0);
  assert.ok(t.log.messages().includes('Successfully started all network topology discoverers'));
  assert.ok(t.log.messages().includes('Started network topology discoverer'));
  await t.stop();
});

test('the configuration of each ConfigMap change is published once, and none while it cannot be loaded or is gone', async () => {
  const t = setup(['label']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label', config: { a: 1 } }])));
  assert.equal(
    t.published.map((c) => c?.entries.map((e) => e.source)),
    [['label']],
  );
  const broken = discoveryConfigMap('networkTopologyDiscovery: [unclosed');
  t.configMaps.apply(broken);
  await waitFor(() => t.published.length === 2, { what: 'the broken document published' });
  assert.is(t.published[1], undefined, 'a document that cannot be loaded leaves the followers as they are');
  t.configMaps.remove(`${broken.metadata.namespace}/${broken.metadata.name}`);
  await waitFor(() => t.published.length === 3, { what: 'the deletion published' });
  assert.is(t.published[2], undefined, 'a missing ConfigMap leaves them as they are too');
  await t.stop();
});

test('a ConfigMap change restarts only the sources whose entry changed (Volcano #5191)', async () => {
  const t = setup(['label', 'ufm']);
  await t.apply(
    discoveryConfigMap(
      discoveryYaml([
        { source: 'label', config: { a: 1 } },
        { source: 'ufm', config: { url: 'https://ufm-1' } },
      ]),
    ),
  );
  await t.apply(
    discoveryConfigMap(
      discoveryYaml([
        { source: 'label', config: { a: 1 } },
        { source: 'ufm', config: { url: 'https://ufm-2' } },
      ]),
    ),
  );
  assert.is(t.sources.label!.instances.length, 1, 'label untouched');
  assert.is(t.sources.ufm!.instances.length, 2, 'ufm restarted');
  assert.ok(t.sources.ufm!.instances[0]!.stopped);
  assert.equal(t.sources.ufm!.current.entry.config, { url: 'https://ufm-2' });

  // Another controller's key, or metadata only: nothing restarts.
  await t.apply(
    discoveryConfigMap(
      discoveryYaml([
        { source: 'label', config: { a: 1 } },
        { source: 'ufm', config: { url: 'https://ufm-2' } },
      ]),
      { other: 'x' },
    ),
  );
  assert.is(t.sources.label!.instances.length, 1);
  assert.is(t.sources.ufm!.instances.length, 2);
  await t.stop();
});

test('an unknown or failing source is reported once, retried on its own backoff, and never blocks or restarts the others', async () => {
  const t = setup(['label', 'ufm']);
  t.sources.ufm!.failStartWith = 'UFM authentication credentials are not configured';
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'roce' }, { source: 'ufm' }, { source: 'label' }])));
  assert.is(t.sources.label!.instances.length, 1, 'label starts although earlier sources fail');
  assert.equal(
    t.events.events.map((e) => `${e.reason} ${e.kind} ${e.name}`),
    [
      'DiscovererFailed ConfigMap volcano-controller-configmap',
      'DiscovererFailed ConfigMap volcano-controller-configmap',
    ],
  );
  assert.match(t.events.events[0]!.message, 'failed to create discoverer: unsupported discoverer type: roce');
  assert.match(
    t.events.events[1]!.message,
    'failed to start discoverer: UFM authentication credentials are not configured',
  );

  // Retries back off (5 ms, 10 ms, ...) and report nothing new.
  for (const ms of [5, 10, 20]) await t.clock.advance(ms);
  await waitFor(() => t.sources.ufm!.attempts >= 4, { what: 'ufm retries' });
  assert.is(t.events.events.length, 2, 'each distinct error reported once');
  assert.is(
    await registryValue(t.registry, 'hypernode_discoverer_failures_total', { source: 'ufm' }),
    t.sources.ufm!.attempts,
  );
  assert.is(t.log.messages().filter((m) => m === 'Failed to start network topology discoverer').length, 2);

  // The credentials appear: ufm starts on its next retry, label is not restarted.
  t.sources.ufm!.failStartWith = undefined;
  await t.clock.advance(40);
  await waitFor(() => t.sources.ufm!.instances.length === 1, { what: 'ufm started' });
  assert.is(t.sources.label!.instances.length, 1);
  assert.not.ok(
    t.log.messages().includes('Successfully started all network topology discoverers'),
    'roce still is not running',
  );
  await t.stop();
});

test('a document that cannot be parsed keeps the running discoverers and is reported once', async () => {
  const t = setup(['label']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }])));
  t.configMaps.apply(discoveryConfigMap('networkTopologyDiscovery: [\n'));
  await waitFor(() => t.events.events.length === 1, { what: 'the config error event' });
  assert.is(t.events.events[0]!.reason, 'DiscoveryConfigInvalid');
  assert.match(t.events.events[0]!.message, 'failed to parse config');
  for (const ms of [5, 10, 20]) await t.clock.advance(ms);
  assert.is(t.events.events.length, 1);
  assert.is(t.sources.label!.running().length, 1, 'label keeps running');

  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }])));
  assert.is(t.sources.label!.instances.length, 1, 'same entry as before: no restart');
  await t.stop();
});

test('a broken entry fails only its source', async () => {
  const t = setup(['label', 'ufm']);
  await t.apply(
    discoveryConfigMap(
      'networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    interval: ten minutes\n  - source: label\n    enabled: true\n',
    ),
  );
  assert.is(t.sources.label!.instances.length, 1);
  assert.is(t.sources.ufm!.attempts, 0);
  assert.match(t.events.events[0]!.message, /interval/);
  await t.stop();
});

test('deleting the ConfigMap stops every discoverer; disabling an entry stops only it', async () => {
  const t = setup(['label', 'ufm']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }, { source: 'ufm' }])));
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }, { source: 'ufm', enabled: false }])));
  assert.ok(t.sources.ufm!.current.stopped);
  assert.not.ok(t.sources.label!.current.stopped);

  const before = t.applied();
  t.configMaps.remove(`${CM_LOCATION.namespace}/${CM_LOCATION.name}`, { tombstone: true });
  await waitFor(() => t.applied() > before, { what: 'the delete applied' });
  assert.ok(t.sources.label!.current.stopped);
  assert.ok(t.log.messages().filter((m) => m === 'Stopped network topology discoverer').length === 2);
  await t.stop();
});

test('per source, one result is in flight and each acknowledgement reaches its producer once', async () => {
  const t = setup(['label']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }])));
  const producer = t.sources.label!.current;
  await producer.emit(snapshot('a'));
  void producer.emit(snapshot('b'));
  const first = await nextResult(t.manager);
  assert.equal(
    first.hyperNodes.map((h) => h.metadata.name),
    ['a'],
  );

  let second: DiscoveryResult | undefined;
  void nextResult(t.manager).then((r) => (second = r));
  await settle();
  assert.is(second, undefined, 'the next result waits for the acknowledgement');
  assert.is(producer.acks, 0);

  t.manager.resultSynced('label');
  t.manager.resultSynced('label'); // a second call for the same result changes nothing
  await waitFor(() => second, { what: 'second result' });
  assert.equal(
    second!.hyperNodes.map((h) => h.metadata.name),
    ['b'],
  );
  assert.is(producer.acks, 1);
  t.manager.resultSynced('label');
  await settle();
  t.manager.resultSynced('label');
  assert.is(producer.acks, 2);
  assert.ok(t.log.messages().includes('No in-flight discovery result to acknowledge'));
  await t.stop();
});

test('a replacement never starts while its predecessor’s result is being reconciled', async () => {
  const t = setup(['label']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label', config: { v: 1 } }])));
  const old = t.sources.label!.current;
  await old.emit(snapshot('a'));
  await nextResult(t.manager); // now "being reconciled"

  t.configMaps.apply(discoveryConfigMap(discoveryYaml([{ source: 'label', config: { v: 2 } }])));
  await waitFor(() => old.stopped, { what: 'old instance stopped' });
  await settle();
  assert.is(t.sources.label!.instances.length, 1, 'no replacement yet');

  t.manager.resultSynced('label');
  await waitFor(() => t.sources.label!.instances.length === 2, { what: 'replacement started' });
  assert.is(old.acks, 1);
  assert.is(t.sources.label!.current.acks, 0);
  await t.stop();
});

test('results still inside a stopped instance are dropped, never forwarded', async () => {
  const t = setup(['label']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label', config: { v: 1 } }])));
  const old = t.sources.label!.current;
  await old.emit(snapshot('old-1'));
  await nextResult(t.manager);
  await old.emit(snapshot('old-2')); // buffered in the old discoverer

  t.configMaps.apply(discoveryConfigMap(discoveryYaml([{ source: 'label', config: { v: 2 } }])));
  await waitFor(() => old.stopped, { what: 'old instance stopped' });
  t.manager.resultSynced('label');
  await waitFor(() => t.sources.label!.instances.length === 2, { what: 'replacement started' });
  await t.sources.label!.current.emit(snapshot('new-1'));
  const next = await nextResult(t.manager);
  assert.equal(
    next.hyperNodes.map((h) => h.metadata.name),
    ['new-1'],
  );
  await t.stop();
});

test('stop() stops the worker and every source, even with a result in flight, then closes the stream', async () => {
  const t = setup(['label', 'ufm']);
  await t.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }, { source: 'ufm' }])));
  await t.sources.label!.current.emit(snapshot('a'));
  await nextResult(t.manager);
  await t.sources.ufm!.current.emit(snapshot('u')); // its processor is now offering a result
  await t.stop();
  assert.ok(t.sources.label!.current.stopped && t.sources.ufm!.current.stopped);
  assert.equal(await t.manager.results.recv(), { value: undefined, done: true });
  assert.is(t.log.messages().at(-1), 'Network topology discovery manager stopped');
});

test.run();
