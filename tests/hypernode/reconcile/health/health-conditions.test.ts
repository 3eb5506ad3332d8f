import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { build, buildMembers } from '../../../../src/hypernode/model/hypernode-builders.ts';
import { registryValue } from '../../../support/metric-registry.ts';
import { DEFAULT_HEALTH } from '../../../../src/hypernode/config/health-config.ts';
import { STATUS_QUIET_MS } from '../../../../src/hypernode/reconcile/status-writer.ts';
import { health, rig, SOURCE, tree } from './health-rig.ts';

const ALL = ['rack-0', 'rack-1', 'rack-2', 'rack-3', 'spine-0', 'spine-1', 'zone'];
const statusWrites = (r: ReturnType<typeof rig>) =>
  r.client.actions.filter((a) => a.verb === 'updateStatus').map((a) => a.name);
const allReady = (r: ReturnType<typeof rig>) => () =>
  ALL.every((n) => r.condition(n, 'NodesReady')?.reason === 'AllNodesReady');

test('every owned HyperNode gets NodesReady=True once; an unchanged judgement writes nothing', async () => {
  const r = rig();
  await r.settle(allReady(r), 'NodesReady on all');
  assert.equal(statusWrites(r).sort(), ALL);
  assert.is(r.condition('zone', 'NodesReady')!.message, 'Every Node is Ready.');
  r.client.actions.length = 0;
  for (const n of ALL) await r.writer.sync(n);
  assert.equal(r.client.actions, [], 'no write for an unchanged judgement');
  await r.stop();
});

test('a NotReady Node marks its rack, spine and zone only; a gone Node counts too; lastTransitionTime moves only on a flip', async () => {
  const r = rig();
  await r.settle(allReady(r), 'NodesReady on all');
  const t0 = r.condition('rack-1', 'NodesReady')!.lastTransitionTime;
  r.client.actions.length = 0;
  await r.clock.advance(60_000);
  r.nodes.apply(health('n3', 'False'));
  await r.settle(() => r.condition('zone', 'NodesReady')?.status === 'False', 'zone False');
  assert.equal(statusWrites(r).sort(), ['rack-1', 'spine-0', 'zone']);
  assert.is(r.condition('rack-1', 'NodesReady')!.message, '1 of 2 Nodes not ready: n3 (NotReady).');
  const t1 = r.condition('rack-1', 'NodesReady')!.lastTransitionTime;
  assert.is.not(t1, t0);
  assert.equal(
    r.events.map((e) => `${e.type} ${e.reason}`),
    ['Warning HyperNodeUnhealthy', 'Warning HyperNodeUnhealthy', 'Warning HyperNodeUnhealthy'],
  );

  r.client.actions.length = 0;
  await r.clock.advance(60_000);
  r.nodes.remove('n2');
  await r.settle(() => r.condition('rack-1', 'NodesReady')?.message.includes('n2 (gone)') === true, 'n2 gone');
  assert.is(r.condition('rack-1', 'NodesReady')!.message, '2 of 2 Nodes not ready: n2 (gone), n3 (NotReady).');
  assert.is(r.condition('rack-1', 'NodesReady')!.lastTransitionTime, t1, 'still False: the transition time stays');
  assert.equal(statusWrites(r).sort(), ['rack-1', 'spine-0', 'zone']);
  assert.is(await registryValue(r.registry, 'hypernode_unhealthy_members', { source: SOURCE, tier: '1' }), 2);
  assert.is(
    await registryValue(r.registry, 'hypernode_unhealthy_hypernodes', {
      source: SOURCE,
      tier: '2',
      condition: 'NodesReady',
    }),
    1,
  );
  await r.stop();
});

test('a heartbeat that changes neither Ready nor cordon costs no judgement and no write', async () => {
  const r = rig();
  await r.settle(allReady(r), 'NodesReady on all');
  r.client.actions.length = 0;
  const adds = r.writer.queue.len();
  r.nodes.apply(health('n1', 'True'));
  assert.is(r.clock.pending(), 0, 'no coalescing window armed');
  assert.is(r.writer.queue.len(), adds);
  assert.equal(r.client.actions, []);
  await r.stop();
});

test('hand-made HyperNodes get their nodeCount but no condition; other conditions are kept; only status is written', async () => {
  const handMade: HyperNode = { ...build('hand', 1, buildMembers(['n0'], 'Node'), {}), status: { nodeCount: 1 } };
  const rack = {
    ...tree()[0]!,
    status: {
      nodeCount: 2,
      conditions: [
        {
          type: 'Example',
          status: 'True' as const,
          reason: 'Other',
          message: 'kept',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  };
  const r = rig([rack, handMade]);
  await r.settle(() => r.condition('rack-0', 'NodesReady') !== undefined, 'rack-0 judged');
  assert.equal(statusWrites(r), ['rack-0'], 'the hand-made one has its count already, and no condition');
  assert.equal(r.client.server('hand')!.status, { nodeCount: 1 });
  const status = r.client.server('rack-0')!.status!;
  assert.is(status.nodeCount, 2);
  assert.equal(
    status.conditions!.map((c) => c.type),
    ['Example', 'NodesReady'],
  );
  assert.equal(r.client.server('rack-0')!.spec, tree()[0]!.spec);
  await r.stop();
});

test('turning health.nodes off removes NodesReady; health.fabric off removes FabricHealthy', async () => {
  const r = rig();
  await r.settle(allReady(r), 'NodesReady on all');
  r.writer.fabric.report(
    SOURCE,
    'f',
    new Map([['rack-2', [{ switch: 'leaf-2', port: '7', what: 'link to n5 missing' }]]]),
  );
  await r.settle(() => ALL.every((n) => r.condition(n, 'FabricHealthy')), 'FabricHealthy on all');
  assert.is(r.condition('rack-2', 'FabricHealthy')!.message, '1 fabric problem: leaf-2 port 7 (link to n5 missing).');
  assert.is(r.condition('rack-3', 'FabricHealthy')!.reason, 'LinksUp');
  r.writer.setSettings({ ...DEFAULT_HEALTH, nodes: false, fabric: true });
  await r.settle(() => ALL.every((n) => !r.condition(n, 'NodesReady')), 'NodesReady removed');
  r.writer.setSettings({ ...DEFAULT_HEALTH, nodes: false, fabric: false });
  await r.settle(
    () => ALL.every((n) => r.client.server(n)!.status?.conditions === undefined),
    'every condition removed',
  );
  await r.stop();
});

test('a fabric report marks only the HyperNodes it names, and a later report without the problem clears it', async () => {
  const r = rig(tree(), { ...DEFAULT_HEALTH, nodes: false, fabric: true });
  r.writer.fabric.report(SOURCE, 'f', new Map());
  await r.settle(
    () => ALL.every((n) => r.condition(n, 'FabricHealthy')?.status === 'True'),
    'FabricHealthy True on all',
  );
  r.client.actions.length = 0;
  r.writer.fabric.report(SOURCE, 'f', new Map([['spine-1', [{ switch: 'spine-sw-1', what: 'not answering' }]]]));
  await r.settle(() => r.condition('spine-1', 'FabricHealthy')?.status === 'False', 'spine-1 False');
  assert.equal(statusWrites(r), ['spine-1']);
  r.writer.fabric.report(SOURCE, 'f', new Map());
  await r.settle(() => r.condition('spine-1', 'FabricHealthy')?.status === 'True', 'spine-1 True again');
  assert.equal(
    r.events.map((e) => e.reason),
    ['HyperNodeUnhealthy', 'HyperNodeHealthy'],
  );
  await r.stop();
});

test('Nodes failing one after another within a burst cost one write per HyperNode above them', async () => {
  const r = rig();
  await r.settle(allReady(r), 'NodesReady on all');
  r.client.actions.length = 0;
  for (const n of ['n0', 'n2', 'n4', 'n6', 'n7']) {
    r.nodes.apply(health(n, 'False'));
    await r.clock.advance(STATUS_QUIET_MS / 2);
  }
  await r.settle(
    () => r.condition('zone', 'NodesReady')?.message.startsWith('5 of 8') === true,
    'the zone judged on all five',
  );
  assert.equal(statusWrites(r).sort(), ALL, 'one write per HyperNode');
  assert.is(
    r.condition('zone', 'NodesReady')!.message,
    '5 of 8 Nodes not ready: n0 (NotReady), n2 (NotReady), n4 (NotReady), n6 (NotReady), n7 (NotReady).',
  );
  await r.stop();
});

test('a tree created HyperNode by HyperNode costs one status write each, count and conditions together', async () => {
  const r = rig([]);
  await r.clock.advance(STATUS_QUIET_MS);
  for (const hn of tree()) {
    r.client.seed(hn);
    await r.clock.advance(STATUS_QUIET_MS / 4);
  }
  await r.settle(allReady(r), 'NodesReady on all');
  assert.equal(statusWrites(r).sort(), ALL, 'one write per HyperNode');
  assert.ok(
    ALL.every((n) => r.client.server(n)!.status!.nodeCount === 2),
    'each carrying the count too',
  );
  await r.stop();
});

test.run();
