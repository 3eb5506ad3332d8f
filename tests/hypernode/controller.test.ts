import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { newHyperNodeController } from '../../src/hypernode/controller.ts';
import { newDiscovererRegistry, type DiscovererRegistry } from '../../src/hypernode/discovery/registry.ts';
import { build, buildMembers } from '../../src/hypernode/model/hypernode-builders.ts';
import type { ConfigMap, HyperNode, NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { FakeHyperNodeClient } from '../support/fake-hypernode-client.ts';
import { FakeInformer } from '../support/fake-informer.ts';
import { settle } from '../kube/fake-clock.ts';
import { waitFor, within } from '../../testing/wait.ts';
import {
  AutoClock,
  CM_LOCATION,
  RecordingEvents,
  ScriptedSource,
  discoveryConfigMap,
  discoveryYaml,
} from '../support/controller-fixtures.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { registryValue } from '../support/metric-registry.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { TopologyStateRecorder } from '../../src/hypernode/reconcile/topology-state.ts';
import { unexpectedWorkerError } from '../support/worker-errors.ts';

interface SetupOptions {
  configMap?: ConfigMap;
  nodes?: NodeMeta[];
  hyperNodes?: HyperNode[];
  /** Scripted sources to register instead of the built-in discoverers. */
  scripted?: string[];
  topologyState?: TopologyStateRecorder;
}

function setup(opts: SetupOptions) {
  const nodes = new FakeInformer<NodeMeta>({ initial: opts.nodes ?? [] });
  const configMaps = new FakeInformer<ConfigMap>({ initial: opts.configMap ? [opts.configMap] : [] });
  const client = new FakeHyperNodeClient();
  for (const hn of opts.hyperNodes ?? []) client.seed(hn);
  const sources = Object.fromEntries((opts.scripted ?? []).map((s) => [s, new ScriptedSource(s)]));
  const discoverers: DiscovererRegistry | undefined = opts.scripted
    ? newDiscovererRegistry(Object.fromEntries(opts.scripted.map((s) => [s, sources[s]!.factory])))
    : undefined;
  const events = new RecordingEvents();
  const log = capturingLogger();
  const registry = new Registry();
  const controller = newHyperNodeController({
    nodes,
    hyperNodes: client.informer,
    configMaps,
    hyperNodeClient: client,
    secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no secrets here')) },
    events,
    configMap: CM_LOCATION,
    clock: new AutoClock(),
    logger: log.logger,
    workerErrors: unexpectedWorkerError,
    registry,
    discoverers,
    ...(opts.topologyState ? { topologyState: opts.topologyState } : {}),
  });
  const abort = new AbortController();
  let started = 0;
  const running = controller.run(abort.signal, () => started++);
  const stop = async () => {
    abort.abort();
    await within(running, 3000, 'controller run() after abort');
  };
  return { nodes, configMaps, client, sources, events, log, registry, started: () => started, stop };
}

const labelOwned = { 'volcano.sh/network-topology-source': 'label' };
const rack = (name: string, members: string[]) => build(name, 1, buildMembers(members, 'Node'), labelOwned);

test('run() starts everything, signals started once, and on abort stops in order leaving no handler behind', async () => {
  const t = setup({ configMap: discoveryConfigMap(discoveryYaml([{ source: 'label' }])), scripted: ['label'] });
  await waitFor(() => t.sources.label!.instances.length === 1, { what: 'discoverer started from the ConfigMap add' });
  assert.is(t.started(), 1);
  // HyperNodes feed the one status writer (nodeCount and conditions); the ConfigMap only the
  // manager, which hands the configuration it applied to the followers, health among them.
  assert.equal([t.nodes.handlerCount(), t.client.informer.handlerCount(), t.configMaps.handlerCount()], [1, 1, 1]);

  await t.stop();
  assert.equal([t.nodes.handlerCount(), t.client.informer.handlerCount(), t.configMaps.handlerCount()], [0, 0, 0]);
  assert.ok(t.sources.label!.current.stopped);
  const messages = t.log.messages();
  const at = (m: string) => messages.indexOf(m);
  assert.ok(at('Network topology discovery manager started') < at('HyperNode controller started'));
  assert.ok(at('HyperNode controller started') < at('Network topology discovery manager stopped'));
  assert.is(messages.at(-1), 'HyperNode controller stopped');
  assert.is(t.started(), 1);

  // Nothing reacts any more: the queues are shut down and the handlers gone.
  t.client.seed(rack('late', ['n1']));
  t.configMaps.apply(discoveryConfigMap(discoveryYaml([{ source: 'label', config: { v: 2 } }])));
  await settle();
  assert.equal(t.client.actions, []);
  assert.is(t.sources.label!.instances.length, 1);
});

test('a snapshot is reconciled and counted, its nodeCount written, and an identical snapshot costs zero writes', async () => {
  const t = setup({ configMap: discoveryConfigMap(discoveryYaml([{ source: 'label' }])), scripted: ['label'] });
  await waitFor(() => t.sources.label!.instances.length === 1, { what: 'discoverer' });
  const producer = t.sources.label!.current;
  await producer.emit([rack('rack-a', ['n1', 'n2'])]);
  await waitFor(() => t.client.server('rack-a')?.status?.nodeCount === 2, { what: 'created with nodeCount 2' });
  assert.equal(t.client.verbs(), ['create rack-a', 'updateStatus rack-a']);
  assert.is(producer.acks, 1);
  assert.is(await registryValue(t.registry, 'hypernode_discovery_results_total', { source: 'label' }), 1);

  t.client.clearActions();
  await producer.emit([rack('rack-a', ['n1', 'n2'])]);
  await waitFor(() => producer.acks === 2, { what: 'second result acknowledged' });
  await settle();
  assert.equal(t.client.actions, [], 'zero writes for an unchanged topology');
  await t.stop();
});

test('every result is acknowledged, also when its reconcile fails', async () => {
  const t = setup({ configMap: discoveryConfigMap(discoveryYaml([{ source: 'label' }])), scripted: ['label'] });
  await waitFor(() => t.sources.label!.instances.length === 1, { what: 'discoverer' });
  t.client.informer.failReads(new Error('cache unavailable'));
  await t.sources.label!.current.emit([rack('rack-a', ['n1'])]);
  await waitFor(() => t.sources.label!.current.acks === 1, { what: 'acknowledgement' });
  assert.equal(t.client.actions, []);
  t.client.informer.failReads(undefined);
  await t.stop();
});

test('deleting the ConfigMap stops the discoverers and keeps their HyperNodes', async () => {
  const t = setup({ configMap: discoveryConfigMap(discoveryYaml([{ source: 'label' }])), scripted: ['label'] });
  await waitFor(() => t.sources.label!.instances.length === 1, { what: 'discoverer' });
  await t.sources.label!.current.emit([rack('rack-a', ['n1']), rack('rack-b', ['n2'])]);
  await waitFor(() => t.sources.label!.current.acks === 1, { what: 'first result reconciled' });
  t.configMaps.remove(`${CM_LOCATION.namespace}/${CM_LOCATION.name}`);
  await waitFor(() => t.sources.label!.current.stopped, { what: 'discoverer stopped' });
  await t.stop();
  assert.equal(t.client.serverNames(), ['rack-a', 'rack-b']);
  assert.not.ok(t.client.verbs().some((v) => v.startsWith('delete')));
});

test('a ConfigMap created after start starts the discoverers', async () => {
  const t = setup({ scripted: ['label'] });
  await waitFor(() => t.started() === 1, { what: 'started' });
  assert.is(t.sources.label!.attempts, 0, 'nothing runs without the ConfigMap');
  t.configMaps.apply(discoveryConfigMap(discoveryYaml([{ source: 'label' }])));
  await waitFor(() => t.sources.label!.instances.length === 1, { what: 'discoverer started on add' });
  await t.stop();
});

// --- with the built-in label discoverer ---------------------------------------

const SPINE = 'example.com/spine';
const ZONE = 'example.com/zone';
const RACK = 'example.com/rack';
const node = (name: string, spine: string, zone: string, rackName: string): NodeMeta => ({
  metadata: { name, labels: { [SPINE]: spine, [ZONE]: zone, [RACK]: rackName, 'kubernetes.io/hostname': name } },
});
const labelConfig = () =>
  discoveryConfigMap(
    'networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    config:\n      networkTopologyTypes:\n        net:\n' +
      [SPINE, ZONE, RACK, 'kubernetes.io/hostname'].map((l) => `          - nodeLabel: ${l}\n`).join(''),
  );
const membersOf = (hn: HyperNode) => memberNames(hn).join(',');

test('with the label discoverer, a Node moving to a rack in another zone costs at most tiers+1 writes', async () => {
  const t = setup({
    configMap: labelConfig(),
    nodes: [
      node('n1', 's1', 'z1', 'r1'),
      node('n2', 's1', 'z1', 'r1'),
      node('n3', 's1', 'z1', 'r2'),
      node('n4', 's1', 'z2', 'r3'),
    ],
  });
  // 3 racks + 2 zones + 1 spine, each with its nodeCount written.
  await waitFor(
    () =>
      t.client.serverNames().length === 6 && t.client.serverNames().every((n) => t.client.server(n)!.status?.nodeCount),
    {
      what: 'the initial topology with counts',
    },
  );
  const tier1 = () =>
    t.client
      .serverNames()
      .map((n) => t.client.server(n)!)
      .filter((hn) => hn.spec!.tier === 1)
      .map(membersOf)
      .sort();
  assert.equal(tier1(), ['n1,n2', 'n3', 'n4']);
  t.client.clearActions();

  t.nodes.apply(node('n2', 's1', 'z2', 'r3'));
  await waitFor(() => tier1().join(' ') === 'n1 n2,n4 n3', { what: 'n2 moved to r3' });
  await waitFor(() => t.client.serverNames().every((n) => t.client.server(n)!.status?.nodeCount), {
    what: 'counts settled',
  });
  await settle();
  const specWrites = t.client.actions.filter((a) => a.verb !== 'updateStatus');
  assert.ok(specWrites.length >= 1 && specWrites.length <= 3 + 1, `spec writes: ${t.client.verbs().join(', ')}`);
  assert.is(specWrites.filter((a) => a.verb !== 'update').length, 0, 'no create or delete: same names');
  await t.stop();
});

test('the topology state follows each reconciled snapshot: the tree as kept (held deletes in it), result, held deletes, a rejection while it lasts', async () => {
  const state = new TopologyStateRecorder();
  const t = setup({
    configMap: discoveryConfigMap(discoveryYaml([{ source: 'label' }])),
    scripted: ['label'],
    topologyState: state,
  });
  await waitFor(() => t.sources.label!.instances.length === 1, { what: 'discoverer' });
  assert.equal(state.current(), { running: true, sources: [] });
  const producer = t.sources.label!.current;
  const racks = Array.from({ length: 12 }, (_, i) => rack(`rack-${String(i).padStart(2, '0')}`, [`n${i}`]));
  await producer.emit(racks);
  await waitFor(() => producer.acks === 1, { what: 'first snapshot reconciled' });
  let label = state.current().sources[0]!;
  assert.is(label.source, 'label');
  assert.equal(
    label.desired.map((hn) => hn.metadata.name),
    racks.map((r) => r.metadata.name),
  );
  assert.equal(
    [label.lastResult?.created, label.lastResult?.rejected, label.heldDeletes, label.rejected],
    [12, false, [], undefined],
  );
  const firstAt = label.lastSnapshotAt;
  assert.ok(firstAt !== undefined);

  // Eleven of twelve gone at once: more than the default 50 %, so the deletes are held.
  await waitFor(() => t.client.informer.list().length === 12, { what: 'the cache holding the twelve' });
  await producer.emit(racks.slice(0, 1));
  await waitFor(() => producer.acks === 2, { what: 'shrunk snapshot reconciled' });
  label = state.current().sources[0]!;
  assert.equal(
    label.heldDeletes,
    racks.slice(1).map((r) => r.metadata.name),
  );
  assert.is(label.lastResult?.held, 11);
  assert.equal(
    label.desired.map((hn) => hn.metadata.name),
    racks.map((r) => r.metadata.name),
    'the tree as kept: the one written and the eleven the guard holds',
  );

  // A snapshot breaking a rule is refused whole: the last accepted one still stands.
  await producer.emit([rack('Not_A_DNS_Name', ['n1'])]);
  await waitFor(() => producer.acks === 3, { what: 'rejected snapshot acknowledged' });
  label = state.current().sources[0]!;
  assert.is(label.lastResult?.rejected, true);
  assert.match(label.rejected?.violations ?? '', /^name: /);
  assert.equal(
    label.desired.map((hn) => hn.metadata.name),
    racks.map((r) => r.metadata.name),
  );

  await producer.emit(racks);
  await waitFor(() => producer.acks === 4, { what: 'good snapshot again' });
  label = state.current().sources[0]!;
  assert.equal([label.rejected, label.heldDeletes, label.lastResult?.rejected], [undefined, [], false]);
  await t.stop();
  assert.is(state.current().running, false);
});

test.run();
