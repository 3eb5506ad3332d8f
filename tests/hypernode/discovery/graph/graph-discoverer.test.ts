// The graph source end to end against a ConfigMap, a file on disk and an HTTPS stand-in:
// the tree a user sees from a rail-optimised graph, re-reading the file on the
// next poll (a new unit adds HyperNodes and renames none), a bearer token and
// a private CA from the Secret, and the faults that must publish nothing (a
// missing file, a broken document, a 401, a wrong CA, a graph without Nodes),
// each reported with the reason.

import { TEST_INPUT_POLICY } from '../../../support/input-policy.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGraphDiscovererFactory } from '../../../../src/hypernode/discovery/graph/graph-discoverer.ts';
import type { Discoverer, DiscoveryEntry, Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { realClock } from '../../../../src/kube/clock.ts';
import type { Channel } from '../../../../src/util/channel.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { FakeSecrets } from '../../../support/fake-secrets.ts';
import { RecordingMetrics } from '../../../support/recording-metrics.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { GraphServer, railGraphDocument } from '../../../../testing/graph-server.ts';
import { OTHER_CA, TEST_CA } from '../../../../testing/ufm-server.ts';
import { waitFor, within } from '../../../../testing/wait.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const TOKEN = 'inventory-token';

interface Rig {
  dir: string;
  lines: string[];
  secrets: FakeSecrets;
  /** `namespace/name` → data of the ConfigMaps the source may read. */
  configMaps: Map<string, Record<string, string>>;
  metrics: RecordingMetrics;
  problems: RecordingProblems;
  start(config: Record<string, unknown>, nodes: string[], secret?: boolean): Promise<Channel<Snapshot>>;
}

async function withRig(fn: (rig: Rig) => Promise<void>): Promise<void> {
  const { logger, lines } = capturingLogger({ verbosity: 10 });
  const started: Discoverer[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'graph-source-'));
  const rig: Rig = {
    dir,
    lines,
    secrets: new FakeSecrets(),
    configMaps: new Map(),
    metrics: new RecordingMetrics(),
    problems: new RecordingProblems(logger),
    async start(config, nodes, secret = false) {
      const entry: DiscoveryEntry = {
        source: 'graph',
        enabled: true,
        intervalMs: 1_000,
        maxDeletePercent: 50,
        config,
        ...(secret ? { credentials: { secretRef: { name: 'inventory', namespace: 'volcano-system' } } } : {}),
      };
      // No CA in the tuning: only a ca.crt in the Secret makes the stand-in's certificate trusted.
      const factory = createGraphDiscovererFactory({ retryBaseMs: 20, timeoutMs: 5_000 });
      const d = await factory(entry, {
        nodes: new FakeInformer<NodeMeta>({ initial: nodes.map((name) => ({ metadata: { name } })) }),
        hyperNodes: new FakeInformer({ initial: [] }),
        secrets: rig.secrets,
        configMaps: {
          get: async (ns, name) =>
            rig.configMaps.has(`${ns}/${name}`) ? { data: rig.configMaps.get(`${ns}/${name}`)! } : undefined,
        },
        clock: realClock,
        logger,
        workerErrors: unexpectedWorkerError,
        inputPolicy: TEST_INPUT_POLICY,
        problems: rig.problems,
        metrics: rig.metrics,
      });
      started.push(d);
      return d.start();
    },
  };
  try {
    await fn(rig);
  } finally {
    for (const d of started) await d.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const next = (ch: Channel<Snapshot>) => within(ch.recv(), 10_000, 'a snapshot').then((r) => r.value!);
const shape = (s: Snapshot) =>
  s.map(
    (h) =>
      `${h.metadata.name} ${h.spec.tier} ${h.spec.tierName}: ${h.spec.members.map((m) => m.selector!.exactMatch!.name).join(',')}`,
  );
const hostsOf = (sus: number, perSu: number) =>
  Array.from({ length: sus }, (_, s) => Array.from({ length: perSu }, (_, h) => `su${s + 1}-h${h + 1}`)).flat();
/** No snapshot within a short while (the source published nothing). */
async function nothingPublished(ch: Channel<Snapshot>): Promise<void> {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  assert.is((await ch.recv(ac.signal).catch(() => ({ value: undefined }))).value, undefined, 'no snapshot');
}

test('a graph file: one leaf group per unit named after its lowest leaf id, a spine group above, source label graph; the next poll picks up a new unit and renames nothing', () =>
  withRig(async (rig) => {
    const file = join(rig.dir, 'graph.json');
    writeFileSync(file, JSON.stringify(railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 })));
    const ch = await rig.start({ fabric: 'lab', file }, hostsOf(3, 2));
    const first = await next(ch);
    assert.equal(shape(first), [
      'lab-leaf-leaf-su1-r1 1 leaf: su1-h1,su1-h2',
      'lab-leaf-leaf-su2-r1 1 leaf: su2-h1,su2-h2',
      'lab-spine-spine-1 2 spine: lab-leaf-leaf-su1-r1,lab-leaf-leaf-su2-r1',
    ]);
    assert.equal(first[0]!.metadata.labels, { 'volcano.sh/network-topology-source': 'graph' });
    assert.equal(rig.problems.recoveries, 1);

    writeFileSync(file, JSON.stringify(railGraphDocument({ sus: 3, rails: 2, hostsPerSu: 2, spines: 2 })));
    const grown = await waitFor(
      async () => {
        const s = await next(ch);
        return s.length === 4 ? s : undefined;
      },
      { what: 'the third unit', timeoutMs: 10_000 },
    );
    assert.equal(shape(grown), [
      ...shape(first).slice(0, 2),
      'lab-leaf-leaf-su3-r1 1 leaf: su3-h1,su3-h2',
      'lab-spine-spine-1 2 spine: lab-leaf-leaf-su1-r1,lab-leaf-leaf-su2-r1,lab-leaf-leaf-su3-r1',
    ]);
  }));

test('a missing file and a broken document publish nothing and report the file and the bad entry; fixing the file publishes again', () =>
  withRig(async (rig) => {
    const file = join(rig.dir, 'graph.yaml');
    const ch = await rig.start({ file }, hostsOf(1, 2));
    await waitFor(() => rig.problems.failures.length >= 1, { what: 'the missing file reported' });
    assert.match(
      rig.problems.failures[0]!,
      `Failed to read the fabric graph from file ${file}; keeping the existing graph HyperNodes: cannot read ${file}: no such file (is the ConfigMap mounted there?)`,
    );
    await nothingPublished(ch);
    writeFileSync(file, 'switches: [leaf-1]\nlinks:\n  - {a: {host: su1-h1}, b: {switch: leaf-2}}\n');
    await waitFor(
      () => rig.problems.failures.some((f) => f.includes('links[0].b.switch "leaf-2" is not in switches')),
      { what: 'the bad entry named' },
    );
    assert.ok(
      rig.problems.failures.some((f) =>
        f.startsWith(`The fabric graph from file ${file} is invalid; keeping the existing graph HyperNodes`),
      ),
    );
    await nothingPublished(ch);
    writeFileSync(file, 'switches: [leaf-1]\nlinks:\n  - {a: {host: su1-h1}, b: {switch: leaf-1}}\n');
    assert.equal(shape(await next(ch)), ['graph-leaf-leaf-1 1 leaf: su1-h1']);
  }));

test('a ConfigMap key: read at every poll (an edit publishes the new tree); a missing ConfigMap or key publishes nothing and says which keys there are', () =>
  withRig(async (rig) => {
    const configMap = { namespace: 'volcano-system', name: 'fabric-graph', key: 'graph.json' };
    const ch = await rig.start({ fabric: 'lab', configMap }, hostsOf(2, 2));
    await waitFor(() => rig.problems.failures.length >= 1, { what: 'the missing ConfigMap reported' });
    assert.match(
      rig.problems.failures[0]!,
      'Failed to read the fabric graph from ConfigMap volcano-system/fabric-graph key graph.json; keeping the existing graph HyperNodes: ConfigMap volcano-system/fabric-graph not found',
    );
    rig.configMaps.set('volcano-system/fabric-graph', { 'graph.yaml': '{}' });
    await waitFor(
      () => rig.problems.failures.some((f) => f.endsWith('has no key "graph.json"; its keys: graph.yaml')),
      { what: 'the missing key named' },
    );
    await nothingPublished(ch);
    rig.configMaps.set('volcano-system/fabric-graph', {
      'graph.json': JSON.stringify(railGraphDocument({ sus: 1, rails: 2, hostsPerSu: 2, spines: 1 })),
    });
    assert.equal(shape(await next(ch)), ['lab-leaf-leaf-su1-r1 1 leaf: su1-h1,su1-h2']);
    rig.configMaps.set('volcano-system/fabric-graph', {
      'graph.json': JSON.stringify(railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 1 })),
    });
    const grown = await waitFor(
      async () => {
        const s = await next(ch);
        return s.length === 3 ? s : undefined;
      },
      { what: 'the edited ConfigMap', timeoutMs: 10_000 },
    );
    assert.equal(shape(grown)[0], 'lab-leaf-leaf-su1-r1 1 leaf: su1-h1,su1-h2');
  }));

test('cables the layer cannot place still publish the rest and are logged once as warnings naming them, not every poll', () =>
  withRig(async (rig) => {
    const file = join(rig.dir, 'graph.yaml');
    writeFileSync(
      file,
      'switches: [leaf-1]\nlinks:\n  - {a: {host: su1-h1}, b: {switch: leaf-1}}\n  - {a: {switch: leaf-1, port: swp7}, b: {switch: leaf-1, port: swp8}}\n',
    );
    const ch = await rig.start({ file }, hostsOf(1, 1));
    assert.equal(shape(await next(ch)), ['graph-leaf-leaf-1 1 leaf: su1-h1']);
    await next(ch);
    const warnings = rig.lines.filter((l) => l.includes('Fabric graph entry joins no group as written'));
    assert.is(warnings.length, 1);
    assert.match(warnings[0]!, 'switch leaf-1 is cabled to itself (port swp7 – port swp8)');
  }));

test('a graph whose hosts are no Nodes publishes nothing; hosts that match no Node are counted and logged once', () =>
  withRig(async (rig) => {
    const file = join(rig.dir, 'graph.json');
    writeFileSync(file, JSON.stringify(railGraphDocument({ sus: 2, rails: 1, hostsPerSu: 2, spines: 1 })));
    const ch = await rig.start({ file, hostMapping: { stripSuffix: '.lab' } }, ['elsewhere']);
    await waitFor(() => rig.problems.failures.length >= 2, { what: 'two failed runs' });
    assert.match(
      rig.problems.failures[0]!,
      'names no Kubernetes Node; keeping the existing graph HyperNodes: none of its 4 hosts is a Node; check config.hostMapping',
    );
    await nothingPublished(ch);
    assert.equal(rig.metrics.unmapped.get('graph'), 4);
    assert.is(rig.lines.filter((l) => l.includes('Fabric graph hosts that match no Node are left out')).length, 1);
  }));

test("a URL: the Secret's token as a bearer token and its private CA; the token is never logged at -v=10", async () => {
  const server = await new GraphServer().start();
  try {
    await withRig(async (rig) => {
      server.answer = {
        status: 200,
        body: JSON.stringify(railGraphDocument({ sus: 1, rails: 2, hostsPerSu: 2, spines: 1 })),
      };
      rig.secrets.put(
        'volcano-system',
        'inventory',
        { token: TOKEN, 'ca.crt': TEST_CA },
        { endpoints: [server.url()] },
      );
      const snap = await next(await rig.start({ url: server.url() }, hostsOf(1, 2), true));
      assert.equal(shape(snap), ['graph-leaf-leaf-su1-r1 1 leaf: su1-h1,su1-h2']);
      assert.is(server.authorizations[0], `Bearer ${TOKEN}`);
      assert.not.ok(
        rig.lines.some((l) => l.includes(TOKEN)),
        'a log line holds the token',
      );
    });
  } finally {
    await server.close();
  }
});

for (const [what, secret, answer, expect] of [
  [
    'a revoked token',
    { token: 'old-token', 'ca.crt': TEST_CA },
    { status: 200, body: '' },
    /unexpected status code 401 Unauthorized/,
  ],
  ['a wrong private CA', { token: TOKEN, 'ca.crt': OTHER_CA }, { status: 200, body: '' }, /certificate/],
  [
    'a server error',
    { token: TOKEN, 'ca.crt': TEST_CA },
    { status: 503, body: '' },
    /unexpected status code 503 Service Unavailable/,
  ],
  // The graph's own words: no talk of UFM, whose client and Secret reading it shares.
  [
    'a Secret without token',
    { 'ca.crt': TEST_CA },
    { status: 200, body: '' },
    /token not found in secret volcano-system\/inventory \(the fabric graph URL needs its bearer token under the key "token"\)$/,
  ],
] as const) {
  test(`${what} at the URL publishes nothing and is reported`, async () => {
    const server = await new GraphServer().start();
    try {
      await withRig(async (rig) => {
        server.answer = answer;
        rig.secrets.put('volcano-system', 'inventory', secret, { endpoints: [server.url()] });
        const ch = await rig.start({ url: server.url() }, ['su1-h1'], true);
        await waitFor(() => rig.problems.failures.length >= 2, { what: 'a failure and a retry' });
        assert.match(
          rig.problems.failures[0]!,
          `Failed to read the fabric graph from ${server.url()}; keeping the existing graph HyperNodes`,
        );
        assert.match(rig.problems.failures[0]!, expect);
        await nothingPublished(ch);
      });
    } finally {
      await server.close();
    }
  });
}

test('a plain-http URL with a token draws the cleartext warning', () =>
  withRig(async (rig) => {
    await rig.start({ url: 'http://127.0.0.1:9/graph.yaml' }, [], true);
    assert.equal(
      rig.problems.warnings.map((w) => w.split(':')[0]),
      ['CleartextCredentials'],
    );
    assert.match(rig.problems.warnings[0]!, 'the fabric graph URL http://127.0.0.1:9/graph.yaml is plain http');
  }));

test.run();
