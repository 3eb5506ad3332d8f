// What the polling sources (ufm, graph, lldp, ibnetdiscover) share through their base:
// an interval under the floor is raised to it and said once, in the same
// words, by each of them.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DiscovererFactory, DiscoveryEntry } from '../../src/hypernode/model/contracts.ts';
import type { NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { createUfmDiscovererFactory } from '../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import { createGraphDiscovererFactory } from '../../src/hypernode/discovery/graph/graph-discoverer.ts';
import { createLldpDiscovererFactory } from '../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import { createIbnetdiscoverDiscovererFactory } from '../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { FakeClock } from '../kube/fake-clock.ts';
import { FakeInformer } from '../support/fake-informer.ts';
import { FakeSecrets } from '../support/fake-secrets.ts';
import { RecordingMetrics } from '../support/recording-metrics.ts';
import { RecordingProblems } from '../support/recording-problems.ts';
import { capturingLogger } from '../support/capturing-logger.ts';

/** Source, title, factory, config, and whether its entry names a Secret (ibnetdiscover uses none and refuses one). */
const SOURCES: ReadonlyArray<readonly [string, string, DiscovererFactory, Record<string, unknown>, boolean?]> = [
  ['ufm', 'UFM', createUfmDiscovererFactory({ readResourceBody: async () => '[]' }), { endpoint: 'https://ufm' }],
  ['graph', 'Fabric graph', createGraphDiscovererFactory({ readGraph: async () => '' }), { fabric: 'lab', url: 'https://inventory.example.com/lab.yaml' }],
  ['lldp', 'LLDP', createLldpDiscovererFactory({ captured: async () => [] }), { fabric: 'roce', switches: ['10.0.0.1'], snmp: { version: '2c' } }],
  ['ibnetdiscover', 'InfiniBand', createIbnetdiscoverDiscovererFactory({ readOutput: async () => '' }), { fabric: 'compute' }, false],
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
      problems: new RecordingProblems(logger),
      metrics: new RecordingMetrics(),
    });
    const warnings = lines.filter((l) => l.includes('poll interval too short'));
    assert.is(warnings.length, 1, lines.join('\n'));
    assert.match(warnings[0]!, `${title} poll interval too short, using the minimum source="${source}" interval="10ms" minimum="1000ms"`);
  });
}

test.run();
