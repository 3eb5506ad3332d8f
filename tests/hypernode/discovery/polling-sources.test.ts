// What the polling sources (ufm, graph, lldp, ibnetdiscover) share through their base
// and the fabric layer: an interval under the floor is raised to it and said
// once, in the same words, by each of them; and a poll over several fabrics
// reads the Node cache once, however many fabrics it has.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscovererFactory, DiscoveryEntry } from '../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../src/hypernode/model/hypernode-types.ts';
import { createUfmDiscovererFactory } from '../../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import { createGraphDiscovererFactory } from '../../../src/hypernode/discovery/graph/graph-discoverer.ts';
import { createLldpDiscovererFactory } from '../../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import { createIbnetdiscoverDiscovererFactory } from '../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { FakeClock } from '../../kube/fake-clock.ts';
import { FakeInformer } from '../../support/fake-informer.ts';
import { FakeSecrets } from '../../support/fake-secrets.ts';
import { RecordingMetrics } from '../../support/recording-metrics.ts';
import { RecordingProblems } from '../../support/recording-problems.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';
import { nullLogger } from '../../../src/log.ts';
import { REPO_ROOT } from '../../../testing/executables.ts';
import { waitFor } from '../../../testing/wait.ts';
import { unexpectedWorkerError } from '../../support/worker-errors.ts';

/** Source, title, factory, config, and whether its entry names a Secret (ibnetdiscover uses none and refuses one). */
const SOURCES: ReadonlyArray<readonly [string, string, DiscovererFactory, Record<string, unknown>, boolean?]> = [
  ['ufm', 'UFM', createUfmDiscovererFactory({ readResourceBody: async () => '[]' }), { endpoint: 'https://ufm' }],
  [
    'graph',
    'Fabric graph',
    createGraphDiscovererFactory({ readGraph: async () => '' }),
    { fabric: 'lab', url: 'https://inventory.example.com/lab.yaml' },
  ],
  [
    'lldp',
    'LLDP',
    createLldpDiscovererFactory({ captured: async () => [] }),
    { fabric: 'roce', switches: ['10.0.0.1'], snmp: { version: '2c' } },
  ],
  [
    'ibnetdiscover',
    'InfiniBand',
    createIbnetdiscoverDiscovererFactory({ readOutput: async () => '' }),
    { fabric: 'compute' },
    false,
  ],
];

for (const [source, title, factory, config, secret = true] of SOURCES) {
  test(`${source}: an interval under one second is raised to it, with a warning`, async () => {
    const { logger, lines } = capturingLogger();
    const entry: DiscoveryEntry = {
      source,
      enabled: true,
      intervalMs: 10,
      maxDeletePercent: 50,
      config,
      ...(secret ? { credentials: { secretRef: { name: 's', namespace: 'volcano-system' } } } : {}),
    };
    await factory(entry, {
      nodes: new FakeInformer<NodeMeta>(),
      hyperNodes: new FakeInformer(),
      secrets: new FakeSecrets(),
      clock: new FakeClock(),
      logger,
      workerErrors: unexpectedWorkerError,
      problems: new RecordingProblems(logger),
      metrics: new RecordingMetrics(),
    });
    const warnings = lines.filter((l) => l.includes('poll interval too short'));
    assert.is(warnings.length, 1, lines.join('\n'));
    assert.match(
      warnings[0]!,
      `${title} poll interval too short, using the minimum source="${source}" interval="10ms" minimum="1000ms"`,
    );
  });
}

/** A Node cache that counts how often it is read whole and by name. */
class CountingNodes extends FakeInformer<NodeMeta> {
  lists = 0;
  gets = 0;
  override list(matchLabels?: Record<string, string>): NodeMeta[] {
    this.lists++;
    return super.list(matchLabels);
  }
  override get(key: string): NodeMeta | undefined {
    this.gets++;
    return super.get(key);
  }
}

/** The ibsim lab's subnet, whose hosts are gpu001 … gpu006 and one HCA without a host name. */
const IB_OUTPUT = readFileSync(join(REPO_ROOT, 'tests/cmd/ibnetdiscover-capture/compute.txt'), 'utf8');
const SECRET = { credentials: { secretRef: { name: 's', namespace: 'volcano-system' } } };
/** The subnet's hosts, and one more named by hostGuids. */
const NODES = ['gpu001', 'gpu002', 'gpu003', 'gpu004', 'gpu005', 'gpu006', 'gpu007'];

/** Sources with several fabrics: factory, config with fabrics a and b, and the rest of the entry. */
type MultiFabric = readonly [string, DiscovererFactory, Record<string, unknown>, Partial<DiscoveryEntry>];
const MULTI_FABRIC: readonly MultiFabric[] = [
  [
    'ufm',
    createUfmDiscovererFactory({ readResourceBody: async () => '[]' }),
    {
      mode: 'fabric',
      fabrics: [
        { name: 'a', endpoint: 'https://ufm-a' },
        { name: 'b', endpoint: 'https://ufm-b' },
      ],
    },
    SECRET,
  ],
  [
    'lldp',
    createLldpDiscovererFactory({ captured: async () => [] }),
    {
      fabrics: [
        { name: 'a', switches: ['10.0.0.1'] },
        { name: 'b', switches: ['10.0.0.2'] },
      ],
    },
    SECRET,
  ],
  [
    'ibnetdiscover',
    createIbnetdiscoverDiscovererFactory({ readOutput: async () => IB_OUTPUT }),
    // hostGuids names its Node directly: whether that Node exists is asked of the round's index too.
    { hostGuids: '0x0000000000100008 gpu007', fabrics: [{ name: 'a' }, { name: 'b' }] },
    {},
  ],
];

for (const [source, factory, config, rest] of MULTI_FABRIC) {
  test(`${source}: one poll of two fabrics reads the Node cache once, and no Node by name`, async () => {
    const nodes = new CountingNodes({ initial: NODES.map((name) => ({ metadata: { name } })) });
    const problems = new RecordingProblems(nullLogger);
    const entry: DiscoveryEntry = { source, enabled: true, intervalMs: 60_000, maxDeletePercent: 50, config, ...rest };
    const hyperNodes = new FakeInformer<HyperNode>();
    const fakes = { nodes, hyperNodes, secrets: new FakeSecrets(), clock: new FakeClock() };
    const d = await factory(entry, { ...fakes, problems, logger: nullLogger, workerErrors: unexpectedWorkerError });
    const out = await d.start();
    try {
      // Both fabrics failed (no snapshot), or both succeeded (one snapshot).
      const done = () => problems.failures.length === 2 || problems.recoveries === 1;
      void out.recv();
      await waitFor(done, { what: `${source}: the first poll of both fabrics` });
    } finally {
      await d.stop();
    }
    assert.equal({ lists: nodes.lists, gets: nodes.gets }, { lists: 1, gets: 0 }, problems.failures.join('\n'));
  });
}

test.run();
