// The Node label worker over in-memory caches and a recording client: a
// patch whose echo has not reached the cache yet is not sent twice; once it
// has, a round writes nothing; a discovery configuration that cannot be
// loaded changes no label (where a loaded one without the option would
// remove them all); a failed patch is retried after its backoff, and a Node
// deleted meanwhile (404) is no failure; patches go side by side, as many as
// the write pace allows.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../../../src/kube/errors.ts';
import { buildWithTierName } from '../../../../src/hypernode/model/hypernode-builders.ts';
import type { MetadataChanges } from '../../../../src/hypernode/model/contracts.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import type { KeptTopology } from '../../../../src/hypernode/reconcile/kept-topology.ts';
import { parseConfig, type DiscoveryConfig } from '../../../../src/hypernode/config/loader.ts';
import {
  NodeLabelSync,
  NODE_LABEL_COALESCE_MS,
} from '../../../../src/hypernode/exports/node-labels/node-label-sync.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import { waitFor } from '../../../../testing/wait.ts';
import { mergePatch } from '../../../../testing/apiserver/patch.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const P = 'topo.example.com';
const OWNED = 'topology.volcano.sh/owned-labels.label';
const CONF = (exports: boolean) =>
  `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n${exports ? `    exports:\n      nodeLabels: {prefix: ${P}}\n` : ''}    config: {networkTopologyTypes: {t: [{nodeLabel: example.com/rack}, {nodeLabel: kubernetes.io/hostname}]}}\n`;
/** The configuration the discovery manager would publish for `text`: none when it cannot be loaded. */
function published(text: string): DiscoveryConfig | undefined {
  try {
    return parseConfig(text);
  } catch {
    return undefined;
  }
}
/** The label source's tree as the reconciler keeps it, nothing held. */
const kept = (hyperNodes: DiscoveredHyperNode[]): KeptTopology => ({
  source: 'label',
  hyperNodes,
  heldDeletes: undefined,
  heldNodes: [],
});
const SNAPSHOT = [
  buildWithTierName(
    'rack-a',
    1,
    'example.com/rack',
    [
      { type: 'Node', selector: { exactMatch: { name: 'n1' } } },
      { type: 'Node', selector: { exactMatch: { name: 'n2' } } },
    ],
    {},
  ),
];

/** The line every pass after a snapshot ends with: what it patched, or that nothing was needed. */
const PASS_DONE = (l: string) => /Updated Node labels|Node labels match the topology/.test(l);

function rig(conf: string, nodes: NodeMeta[] = [{ metadata: { name: 'n1' } }, { metadata: { name: 'n2' } }]) {
  const clock = new FakeClock();
  const nodeCache = new FakeInformer<NodeMeta>({ initial: nodes });
  const sent: Array<{ node: string; changes: MetadataChanges }> = [];
  let fail: (node: string) => Error | undefined = () => undefined;
  const log = capturingLogger();
  const sync = new NodeLabelSync({
    nodes: nodeCache,
    clock,
    logger: log.logger,
    onWorkerError: unexpectedWorkerError('hypernode-node-labels'),
    client: {
      async patchMetadata(node, changes) {
        const err = fail(node);
        if (err) throw err;
        sent.push({ node, changes });
      },
    },
  });
  nodeCache.addEventHandler(sync.nodeHandler());
  sync.configuration(published(conf));
  const worker = sync.run();
  /** The label changes arrive in the cache, as the watch delivers the patched Node. */
  const echo = () => {
    for (const { node, changes } of sent.splice(0)) {
      const cur = nodeCache.get(node)!;
      const merge = (base: Record<string, string> | undefined, ch: Readonly<Record<string, string | null>>) =>
        mergePatch(base, ch) as Record<string, string>;
      nodeCache.apply({
        metadata: {
          name: node,
          labels: merge(cur.metadata.labels, changes.labels),
          annotations: merge(cur.metadata.annotations, changes.annotations),
        },
      });
    }
  };
  return {
    clock,
    sent,
    sync,
    lines: log.lines,
    echo,
    failWith: (f: typeof fail) => void (fail = f),
    /** Lets the coalescing window pass and waits for the pass to end: its summary line, written or not. */
    async pass() {
      const before = log.lines.filter(PASS_DONE).length;
      await clock.advance(NODE_LABEL_COALESCE_MS);
      await waitFor(() => log.lines.filter(PASS_DONE).length > before, {
        timeoutMs: 2_000,
        what: 'the label pass to end',
      });
    },
    async stop() {
      sync.shutDown();
      await worker;
    },
  };
}

test('a patch not yet seen in the cache is not sent again; once seen, a round sends nothing', async () => {
  const r = rig(CONF(true));
  r.sync.kept(kept(SNAPSHOT));
  await r.pass();
  assert.is(r.sent.length, 2);
  assert.equal(r.sent[0], {
    node: 'n1',
    changes: { labels: { [`${P}/rack`]: 'rack-a' }, annotations: { [OWNED]: `${P}/rack` } },
  });
  const first = r.sent.length;
  r.sync.kept(kept(SNAPSHOT));
  await r.pass();
  assert.is(r.sent.length, first, 'the same patches are not sent before their echo');
  r.echo();
  r.sync.kept(kept(SNAPSHOT));
  await r.pass();
  assert.equal(r.sent, [], 'nothing left to write once the cache shows the labels');
  await r.stop();
});

test('a configuration that cannot be loaded removes nothing; one without the option removes what was written', async () => {
  const labelled: NodeMeta[] = ['n1', 'n2'].map((name) => ({
    metadata: { name, labels: { [`${P}/rack`]: 'rack-a', [`${P}/other`]: 'x' }, annotations: { [OWNED]: `${P}/rack` } },
  }));
  const broken = rig('networkTopologyDiscovery: [unclosed', labelled);
  broken.sync.kept(kept(SNAPSHOT));
  await broken.pass();
  assert.equal(broken.sent, []);
  await broken.stop();

  const off = rig(CONF(false), labelled);
  off.sync.kept(kept(SNAPSHOT));
  await off.pass();
  assert.is(off.sent.length, 2);
  assert.equal(off.sent[0], {
    node: 'n1',
    changes: { labels: { [`${P}/rack`]: null }, annotations: { [OWNED]: null } },
  });
  await off.stop();
});

test('turning the option off removes every label it wrote from all Nodes, unheld by the guard, and says so first', async () => {
  const names = Array.from({ length: 12 }, (_, i) => `n${i}`);
  const labelled: NodeMeta[] = names.map((name) => ({
    metadata: { name, labels: { [`${P}/rack`]: 'rack-a' }, annotations: { [OWNED]: `${P}/rack` } },
  }));
  const off = rig(CONF(false), labelled);
  off.sync.kept(kept(SNAPSHOT));
  await off.pass();
  assert.is(off.sent.length, 12, 'all 12 Nodes, past the default maxDeletePercent');
  const said = off.lines.findIndex(
    (l) =>
      l.includes('Node labels of discovery source "label" are off') &&
      l.includes('removed from 12 Nodes, not held by maxDeletePercent'),
  );
  assert.ok(said >= 0, off.lines.join('\n'));
  assert.ok(
    said < off.lines.findIndex((l) => l.includes('Updated Node labels')),
    'the reason comes before the pass summary',
  );
  assert.not.ok(off.lines.some((l) => l.includes('so these removals are held')));
  await off.stop();
});

test('a failed patch is retried after its backoff; a Node deleted meanwhile is no failure', async () => {
  const r = rig(CONF(true));
  let failures = 1;
  r.failWith((node) =>
    node === 'n2'
      ? new ApiError('nodes "n2" not found', 404, 'NotFound')
      : failures-- > 0
        ? new ApiError('etcdserver: request timed out', 500, 'InternalError')
        : undefined,
  );
  r.sync.kept(kept(SNAPSHOT));
  await r.pass();
  assert.equal(r.sent, [], 'n1 failed once, n2 is gone');
  // The warning docs/troubleshooting.md quotes, counting n1 only.
  assert.ok(
    r.lines.some((l) =>
      l.startsWith('Failed to patch the labels of 1 Node(s), will retry: etcdserver: request timed out'),
    ),
    r.lines.join('\n'),
  );
  await r.clock.advance(1_000);
  await waitFor(() => r.sent.length === 1, { timeoutMs: 2_000, what: 'the retried patch' });
  assert.is(r.sent[0]!.node, 'n1');
  await r.stop();
});

test('patches go side by side, no more at once than the write pace allows', async () => {
  const names = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
  const clock = new FakeClock();
  const inFlight = new Map<string, () => void>();
  let peak = 0;
  const sync = new NodeLabelSync({
    nodes: new FakeInformer<NodeMeta>({ initial: names.map((name) => ({ metadata: { name } })) }),
    clock,
    logger: capturingLogger().logger,
    onWorkerError: unexpectedWorkerError('hypernode-node-labels'),
    writeConcurrency: () => 3,
    client: {
      patchMetadata: (node) =>
        new Promise<void>((resolve) => {
          inFlight.set(node, resolve);
          peak = Math.max(peak, inFlight.size);
        }),
    },
  });
  sync.configuration(published(CONF(true)));
  const worker = sync.run();
  const members = names.map((name) => ({ type: 'Node' as const, selector: { exactMatch: { name } } }));
  sync.kept(kept([buildWithTierName('rack-a', 1, 'example.com/rack', members, {})]));
  await clock.advance(NODE_LABEL_COALESCE_MS);
  await waitFor(() => inFlight.size === 3, { what: 'three patches in flight' });
  await new Promise((r) => setImmediate(r));
  assert.equal([...inFlight.keys()], ['n1', 'n2', 'n3'], 'the others wait for a free slot');
  const release = (node: string) => {
    inFlight.get(node)!();
    inFlight.delete(node);
  };
  release('n2');
  await waitFor(() => inFlight.has('n4'), { what: 'the next patch in the freed slot' });
  for (const n of ['n1', 'n3', 'n4']) release(n);
  await waitFor(() => inFlight.has('n6'), { what: 'the last patches' });
  for (const n of [...inFlight.keys()]) release(n);
  assert.is(peak, 3);
  sync.shutDown();
  await worker;
});

test.run();
