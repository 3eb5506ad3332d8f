import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from 'prom-client';
import { nullLogger } from '../../../src/log.ts';
import { build, buildMembers } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { HyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { STATUS_QUIET_MS } from '../../../src/hypernode/reconcile/status-writer.ts';
import { statusWriter } from './status-rig.ts';
import { FakeHyperNodeClient } from '../../support/fake-hypernode-client.ts';
import { FakeInformer } from '../../support/fake-informer.ts';
import { FakeClock } from '../../kube/fake-clock.ts';
import { waitFor, within } from '../../../testing/wait.ts';
import { ApiError } from '../../../src/kube/errors.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';
import { registryValue } from '../../support/metric-registry.ts';
import { DEFAULT_HEALTH } from '../../../src/hypernode/config/health-config.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../../src/hypernode/model/hypernode-labels.ts';

const node = (name: string, labels: Record<string, string> = {}): NodeMeta => ({ metadata: { name, labels } });

function setup(hyperNodes: HyperNode[], nodes: NodeMeta[] = [], logger = nullLogger) {
  const clock = new FakeClock();
  const client = new FakeHyperNodeClient();
  for (const hn of hyperNodes) client.seed(hn);
  const nodeInformer = new FakeInformer<NodeMeta>({ initial: nodes });
  const registry = new Registry();
  const sync = statusWriter({
    hyperNodes: client.informer,
    nodes: nodeInformer,
    client,
    metrics: newHyperNodeMetrics(registry),
    clock,
    logger,
  });
  return { clock, client, nodeInformer, sync, registry };
}

/** Runs the worker with the handlers registered, as the controller does. */
function start(ctx: ReturnType<typeof setup>) {
  const registrations = [
    ctx.client.informer.addEventHandler(ctx.sync.hyperNodeHandler()),
    ctx.nodeInformer.addEventHandler(ctx.sync.nodeHandler()),
  ];
  const worker = ctx.sync.run();
  return async () => {
    ctx.sync.shutDown();
    await within(worker, 2000, 'status worker exit');
    for (const r of registrations) r.remove();
  };
}

const exact = (name: string, names: string[]) => build(name, 1, buildMembers(names, 'Node'), {});
const byLabel = (name: string, labels: Record<string, string>): HyperNode =>
  build(name, 1, [{ type: 'Node', selector: { labelMatch: { matchLabels: labels } } }], {});
const byRegex = (name: string, pattern: string): HyperNode =>
  build(name, 1, [{ type: 'Node', selector: { regexMatch: { pattern } } }], {});
const statusWrites = (client: FakeHyperNodeClient) => client.actions.filter((a) => a.verb === 'updateStatus');

test('nodeCount is written once when it differs, and not again while it is right', async () => {
  const ctx = setup([exact('rack-a', ['n1', 'n2', 'n3'])]);
  await ctx.sync.sync('rack-a');
  await ctx.sync.sync('rack-a');
  assert.equal(ctx.client.verbs(), ['updateStatus rack-a']);
  assert.equal(ctx.client.server('rack-a')!.status, { nodeCount: 3 });
  assert.is(await registryValue(ctx.registry, 'hypernode_api_writes_total', { source: '', verb: 'update_status' }), 1);
});

test('an absent nodeCount counts as 0: no write for a HyperNode that resolves to nothing', async () => {
  const ctx = setup([byRegex('empty', '^gpu-')], [node('cpu-1')]);
  await ctx.sync.sync('empty');
  assert.equal(ctx.client.actions, []);
});

test('a count that drops to 0 removes the field (Go omitempty)', async () => {
  const ctx = setup([{ ...byRegex('gone', '^gpu-'), status: { nodeCount: 4 } }], [node('cpu-1')]);
  await ctx.sync.sync('gone');
  assert.equal(ctx.client.verbs(), ['updateStatus gone']);
  assert.not.ok('nodeCount' in (ctx.client.actions[0]!.body!.status ?? {}));
});

test('the status write is a copy of the cached object with its resourceVersion; the cache is untouched', async () => {
  const ctx = setup([exact('rack-a', ['n1'])]);
  const cached = ctx.client.informer.get('rack-a')!;
  await ctx.sync.sync('rack-a');
  const body = ctx.client.actions[0]!.body!;
  assert.is(body.metadata.resourceVersion, cached.metadata.resourceVersion);
  assert.equal(body.spec, cached.spec);
  assert.is(cached.status, undefined, 'the object from the cache was not modified');
});

test('a deleted HyperNode needs no status write', async () => {
  const ctx = setup([]);
  await ctx.sync.sync('missing');
  assert.equal(ctx.client.actions, []);
});

test('a 409 from a stale cache is retried with backoff and the fresh resourceVersion', async () => {
  const ctx = setup([exact('rack-a', ['n1', 'n2'])]);
  const stale = ctx.client.informer.get('rack-a')!.metadata.resourceVersion;
  // Another writer changed the object; the cache has not seen it yet.
  ctx.client.holdCache();
  await ctx.client.update({
    ...structuredClone(ctx.client.informer.get('rack-a')!),
    metadata: { ...ctx.client.informer.get('rack-a')!.metadata, labels: { team: 'x' } },
  });
  ctx.client.clearActions();
  const worker = ctx.sync.run();
  ctx.sync.queue.add('rack-a');
  await waitFor(() => statusWrites(ctx.client).length === 1 && ctx.clock.pending() === 1, {
    what: 'the conflicting status write, then the backoff',
  });
  ctx.client.releaseCache();
  await ctx.clock.advance(5);
  await waitFor(() => statusWrites(ctx.client).length === 2, { what: 'the retry' });
  const [first, second] = statusWrites(ctx.client);
  assert.is(first!.body!.metadata.resourceVersion, stale);
  assert.is.not(second!.body!.metadata.resourceVersion, stale);
  assert.equal(ctx.client.server('rack-a')!.status, { nodeCount: 2 });
  assert.equal(ctx.client.server('rack-a')!.metadata.labels, { team: 'x' });
  ctx.sync.shutDown();
  await within(worker, 2000, 'worker exit');
});

test('Node add, relabel and delete recompute label- and regex-selected HyperNodes', async () => {
  const ctx = setup([byLabel('east', { zone: 'east' }), byRegex('gpus', '^gpu-')], [node('gpu-1', { zone: 'east' })]);
  const stop = start(ctx);
  await waitFor(
    () => ctx.client.server('east')!.status?.nodeCount === 1 && ctx.client.server('gpus')!.status?.nodeCount === 1,
    { what: 'initial counts' },
  );

  ctx.nodeInformer.apply(node('gpu-2', { zone: 'east' }));
  await ctx.clock.advance(STATUS_QUIET_MS);
  await waitFor(
    () => ctx.client.server('east')!.status?.nodeCount === 2 && ctx.client.server('gpus')!.status?.nodeCount === 2,
    { what: 'counts after add' },
  );

  ctx.nodeInformer.apply(node('gpu-2', { zone: 'west' }));
  await ctx.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => ctx.client.server('east')!.status?.nodeCount === 1, { what: 'count after relabel' });

  ctx.nodeInformer.remove('gpu-1', { tombstone: true });
  await ctx.clock.advance(STATUS_QUIET_MS);
  await waitFor(
    () =>
      ctx.client.server('gpus')!.status?.nodeCount === 1 && ctx.client.server('east')!.status?.nodeCount === undefined,
    { what: 'counts after delete' },
  );
  await stop();
});

test('Node events leave exact-match HyperNodes and unchanged labels alone', async () => {
  const clock = new FakeClock();
  const client = new FakeHyperNodeClient();
  client.seed(exact('rack-a', ['n1', 'n2']));
  client.seed(byLabel('east', { zone: 'east' }));
  const nodeInformer = new FakeInformer<NodeMeta>({ initial: [node('n1', { zone: 'east' })] });
  /** The HyperNodes the writer judged (it reads each from the cache to judge it). */
  const judged: string[] = [];
  const hyperNodes = {
    list: () => client.informer.list(),
    get: (name: string) => (judged.push(name), client.informer.get(name)),
  };
  const sync = statusWriter({ hyperNodes, nodes: nodeInformer, client, clock });
  const registrations = [
    client.informer.addEventHandler(sync.hyperNodeHandler()),
    nodeInformer.addEventHandler(sync.nodeHandler()),
  ];
  const worker = sync.run();
  await clock.advance(STATUS_QUIET_MS);
  await waitFor(
    () => client.server('east')!.status?.nodeCount === 1 && client.server('rack-a')!.status?.nodeCount === 2,
    { what: 'initial counts' },
  );
  await waitFor(() => sync.queue.len() === 0, { what: 'the echoes judged' });
  judged.length = 0;
  client.clearActions();

  nodeInformer.apply(node('n1', { zone: 'east' })); // a resync: same labels
  await clock.advance(STATUS_QUIET_MS);
  assert.equal(judged, [], 'no recomputation for unchanged labels');
  assert.is(clock.pending(), 0);

  nodeInformer.apply(node('n3', { zone: 'east' }));
  await clock.advance(STATUS_QUIET_MS);
  await waitFor(() => client.server('east')!.status?.nodeCount === 2, { what: 'east recomputed after a new Node' });
  assert.equal(client.verbs(), ['updateStatus east']);
  assert.not.ok(judged.includes('rack-a'), 'rack-a names its Nodes exactly: its count does not depend on Nodes');
  sync.shutDown();
  await within(worker, 2000, 'worker exit');
  for (const r of registrations) r.remove();
});

test('a burst of Node additions is coalesced into one recomputation', async () => {
  const ctx = setup([byRegex('all', '.')]);
  const stop = start(ctx);
  for (let i = 0; i < 50; i++) ctx.nodeInformer.apply(node(`n${i}`));
  await ctx.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => ctx.client.server('all')!.status?.nodeCount === 50, { what: 'count of 50' });
  assert.equal(ctx.client.verbs(), ['updateStatus all']);
  await stop();
});

test('HyperNode add and update enqueue the HyperNode; delete does not', async () => {
  const ctx = setup([]);
  const stop = start(ctx);
  ctx.client.seed(exact('rack-a', ['n1']));
  await waitFor(() => ctx.client.server('rack-a')!.status?.nodeCount === 1, { what: 'count after add' });
  ctx.client.seed({ ...exact('rack-a', ['n1', 'n2']), status: { nodeCount: 1 } });
  await waitFor(() => ctx.client.server('rack-a')!.status?.nodeCount === 2, { what: 'count after update' });
  await ctx.client.delete('rack-a');
  assert.equal(ctx.client.verbs(), ['updateStatus rack-a', 'updateStatus rack-a', 'delete rack-a']);
  await stop();
});

test('a rejected nodeCount write is retried with backoff until it succeeds; counted each time, logged once', async () => {
  const { logger, lines } = capturingLogger();
  const ctx = setup([exact('rack-a', ['n1', 'n2'])], [], logger);
  const rejected = () =>
    new ApiError(
      'HyperNode.topology.volcano.sh "rack-a" is invalid: internal error: runtime error: index out of range',
      422,
      'Invalid',
    );
  for (let i = 0; i < 3; i++) ctx.client.failNext('updateStatus', rejected());
  const stop = start(ctx);
  await waitFor(() => statusWrites(ctx.client).length === 1, { what: 'the first status write' });
  await ctx.clock.advance(4);
  assert.is(statusWrites(ctx.client).length, 1, 'not before the 5 ms backoff');
  await ctx.clock.advance(1 + 10 + 20);
  await waitFor(() => ctx.client.server('rack-a')!.status?.nodeCount === 2, { what: 'nodeCount written' });
  assert.is(statusWrites(ctx.client).length, 4);
  assert.is(
    await registryValue(ctx.registry, 'hypernode_api_write_failures_total', {
      source: '',
      verb: 'update_status',
      code_class: '4xx',
    }),
    3,
  );
  assert.is(
    lines.filter((l) => l.includes('Error syncing HyperNode')).length,
    1,
    'three identical failures, one error line',
  );
  assert.is(lines.filter((l) => l.includes('HyperNode write recovered')).length, 1);
  await stop();
});

/** Rejections nobody handles: in the controller process each is a panic (exit 2). */
const unhandled: unknown[] = [];
process.on('unhandledRejection', (err) => unhandled.push(err));

test('hand-made HyperNodes without spec or selector count 0 and Node changes still recompute the others', async () => {
  const noSpec = { metadata: { name: 'no-spec' } } as HyperNode;
  const noSelector = { metadata: { name: 'no-selector' }, spec: { tier: 1, members: [{ type: 'Node' as const }] } };
  const ctx = setup([noSpec, noSelector, { ...byRegex('gpus', '^gpu-'), status: { nodeCount: 3 } }], [node('gpu-1')]);
  const stop = start(ctx);
  await waitFor(() => ctx.client.server('gpus')!.status?.nodeCount === 1, { what: 'initial count' });
  ctx.nodeInformer.apply(node('gpu-2'));
  await ctx.clock.advance(STATUS_QUIET_MS);
  await waitFor(() => ctx.client.server('gpus')!.status?.nodeCount === 2, { what: 'count after a Node add' });
  assert.equal(
    ctx.client.verbs(),
    ['updateStatus gpus', 'updateStatus gpus'],
    'nothing is written for the hand-made ones: their count is 0',
  );
  assert.equal(unhandled, []);
  await stop();
});

test('a failure while queueing a burst is logged, and later bursts still run', async () => {
  const { logger, lines } = capturingLogger();
  const clock = new FakeClock();
  const client = new FakeHyperNodeClient();
  client.seed({
    ...byRegex('gpus', '^gpu-'),
    metadata: { name: 'gpus', labels: { 'volcano.sh/network-topology-source': 'label' } },
  });
  let poisoned = true;
  // A cache whose list throws stands for any bug in the window's callback.
  const hyperNodes = {
    list: () => {
      if (poisoned) throw new Error('unreadable cache');
      return client.informer.list();
    },
    get: (name: string) => client.informer.get(name),
  };
  const nodeInformer = new FakeInformer<NodeMeta>();
  const sync = statusWriter({ hyperNodes, nodes: nodeInformer, client, clock, logger });
  const registrations = [
    client.informer.addEventHandler(sync.hyperNodeHandler()),
    nodeInformer.addEventHandler(sync.nodeHandler()),
  ];
  const worker = sync.run();
  await waitFor(() => sync.queue.len() === 0, { what: 'the replayed add synced' });
  sync.setSettings(DEFAULT_HEALTH); // a rescan lists every HyperNode at the end of the window
  await clock.advance(STATUS_QUIET_MS);
  await waitFor(
    () =>
      lines.some((l) => l.includes('Failed to queue HyperNodes for their status') && l.includes('unreadable cache')),
    { what: 'the logged failure' },
  );
  poisoned = false;
  nodeInformer.apply(node('gpu-1'));
  nodeInformer.apply(node('gpu-2'));
  await clock.advance(STATUS_QUIET_MS);
  await waitFor(() => client.server('gpus')!.status?.nodeCount === 2, { what: 'the next burst' });
  assert.equal(unhandled, []);
  sync.shutDown();
  await within(worker, 2000, 'worker exit');
  for (const r of registrations) r.remove();
});

test("a source's HyperNodes wait for its spec round, others do not; its end judges them from the cache it leaves", async () => {
  const owned = (name: string, source: string, nodes: string[]): HyperNode => {
    const hn = exact(name, nodes);
    return { ...hn, metadata: { ...hn.metadata, labels: { [NETWORK_TOPOLOGY_SOURCE_LABEL]: source } } };
  };
  const ctx = setup([owned('leaf-1', 'ufm', ['n1', 'n2']), owned('rack-1', 'label', ['n3'])]);
  ctx.sync.beginSpecRound('ufm');
  await ctx.sync.sync('leaf-1');
  await ctx.sync.sync('rack-1');
  // A status write here would turn the round's spec update of leaf-1 into a 409.
  assert.equal(ctx.client.verbs(), ['updateStatus rack-1']);
  const stop = start(ctx);
  ctx.sync.endSpecRound('ufm');
  await waitFor(() => ctx.client.verbs().length === 2, { what: 'leaf-1 judged after the round' });
  assert.equal(ctx.client.verbs(), ['updateStatus rack-1', 'updateStatus leaf-1']);
  assert.equal(ctx.client.server('leaf-1')!.status, { nodeCount: 2 });
  await stop();
});

test.run();
