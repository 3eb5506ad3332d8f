// The first scrape of a running controller already carries what alerts need:
// every failure counter at 0 for each configured source (increase() cannot see
// a failure that creates its series), the per-source last-success, interval and
// uncovered-Node gauges, HyperNodes per source and tier, the in-flight workqueue
// gauges and the worker-error count of every queue (the label discoverer's
// included) and the build-info gauge.
// What it exports is what docs/metrics.md lists, both ways: every family has a
// row and every row (but those marked "with `--dry-run` only") is exported;
// the documented work queues are the running ones.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundAddress } from '../../src/app/http-listen.ts';
import { BUILD_INFO_METRIC, createMetrics } from '../../src/app/metrics.ts';
import { runServer } from '../../src/app/server.ts';
import { SNAPSHOT_RULES } from '../../src/hypernode/hypernode-metrics.ts';
import { nullLogger } from '../../src/log.ts';
import { hypernodeControllerRbac, startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { computerPorts, UfmServer } from '../../testing/ufm-server.ts';
import { discoverySecret } from '../../testing/discovery-secret.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { documentedMetrics, documentedQueues } from '../deploy/support/metrics-doc.ts';
import { testOptions } from './options-fixture.ts';

const NS = 'volcano-system';
const SA = `system:serviceaccount:${NS}:hypernode-controller`;
const SOURCES = ['label', 'ufm'];

let api: ApiServer;
let ufm: UfmServer;
let dir: string;

test.before(async () => {
  api = await startApiServer({ namespaces: [NS] });
  ufm = await new UfmServer({ plain: true }).start();
  ufm.answer = { kind: 'ports', ports: computerPorts(['n1', 'n2'], ['leaf-1']) };
  dir = mkdtempSync(join(tmpdir(), 'first-scrape-'));
  const credentials = { username: ufm.username, password: ufm.password };
  api.store.create(discoverySecret(NS, 'ufm', credentials, { endpoints: [ufm.endpoint()], plainHttp: true }));
  for (const name of ['n1', 'n2'])
    api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { rack: 'r1' } } });
  const conf = [
    'networkTopologyDiscovery:',
    '  - source: label',
    '    enabled: true',
    '    config: {networkTopologyTypes: {rack: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}}',
    '  - source: ufm',
    '    enabled: true',
    '    interval: 10m',
    `    credentials: {secretRef: {name: ufm, namespace: ${NS}}}`,
    `    config: {endpoint: "${ufm.endpoint()}"}`,
  ].join('\n');
  api.store.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'volcano-controller-configmap', namespace: NS },
    data: { 'volcano-controller.conf': conf },
  });
});
test.after(async () => {
  await ufm.close();
  await api.close();
  rmSync(dir, { recursive: true });
});

/** `name{labels} value` lines of the exposition, keyed by `name{labels}`. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

test('right after start: every failure counter at 0 for each configured source, and the alerting families present', async () => {
  const kubeconfig = api.writeKubeconfig(dir, {
    token: api.addUser(SA, hypernodeControllerRbac(NS, 'vc-hypernode-controller-manager')),
  });
  const stop = new AbortController();
  let metricsServer: Server | undefined;
  const done = runServer({ ...testOptions(), kubeconfig }, nullLogger, {
    env: {},
    handleSignals: false,
    hostname: 'pod-a',
    metrics: createMetrics(),
    signal: stop.signal,
    exit: () => assert.unreachable('exit'),
    onListening: (s) => (metricsServer = s.metrics),
  });
  try {
    const address = await waitFor(() => metricsServer && boundAddress(metricsServer), { what: 'metrics server' });
    const scrapeText = async () => (await fetch(`http://${address}/metrics`)).text();
    const scrape = async () => samples(await scrapeText());
    // The first scrape after both sources were configured.
    const first = await waitFor(
      async () => {
        const s = await scrape();
        return SOURCES.every((source) => s.has(`hypernode_discoverer_failures_total{source="${source}"}`))
          ? s
          : undefined;
      },
      { what: 'both sources configured' },
    );
    for (const source of SOURCES) {
      const zero = [
        `hypernode_discoverer_failures_total{source="${source}"}`,
        `hypernode_discovery_failures_total{source="${source}"}`,
        `hypernode_reconcile_failures_total{source="${source}"}`,
        ...['create', 'update', 'delete'].flatMap((verb) =>
          ['4xx', '5xx', 'network'].map(
            (c) => `hypernode_api_write_failures_total{source="${source}",verb="${verb}",code_class="${c}"}`,
          ),
        ),
        ...SNAPSHOT_RULES.map((rule) => `hypernode_snapshot_rejected_total{source="${source}",rule="${rule}"}`),
        `hypernode_deletes_held{source="${source}"}`,
        `hypernode_uncovered_nodes{source="${source}"}`,
      ];
      for (const sample of zero) assert.is(first.get(sample), 0, sample);
      for (const family of [
        'hypernode_discovery_last_success_timestamp_seconds',
        'hypernode_reconcile_last_success_timestamp_seconds',
      ]) {
        assert.ok(first.has(`${family}{source="${source}"}`), `${family} for ${source}`);
      }
    }
    assert.is(first.get('hypernode_discovery_interval_seconds{source="ufm"}'), 600);
    assert.not.ok(
      first.has('hypernode_discovery_interval_seconds{source="label"}'),
      'the label source runs on Node changes: no interval (docs/metrics.md)',
    );
    assert.ok(
      [...first.keys()].some((k) => k.startsWith(`${BUILD_INFO_METRIC}{`)),
      'build info',
    );

    // Once both sources wrote their topology: timestamps, HyperNodes per tier, every queue's in-flight gauges.
    const now = Date.now() / 1000;
    const later = await waitFor(
      async () => {
        const s = await scrape();
        // hypernode_hypernodes counts the HyperNode cache, which sees the written objects a watch event after the
        // reconcile.
        const reconciled = SOURCES.every(
          (source) => (s.get(`hypernode_reconcile_last_success_timestamp_seconds{source="${source}"}`) ?? 0) > 0,
        );
        const cached =
          s.has('hypernode_hypernodes{source="label",tier="1"}') &&
          (s.get('hypernode_hypernodes{source="ufm",tier="1"}') ?? 0) >= 1;
        return reconciled && cached ? s : undefined;
      },
      { what: 'both sources reconciled, their HyperNodes (rack r1, a ufm leaf) in the cache' },
    );
    for (const source of SOURCES) {
      const discovered = later.get(`hypernode_discovery_last_success_timestamp_seconds{source="${source}"}`)!;
      assert.ok(Math.abs(discovered - now) < 60, `${source} discovered at ${discovered}, now ${now}`);
    }
    assert.is(later.get('hypernode_hypernodes{source="label",tier="1"}'), 1, 'rack r1');
    for (const queue of ['hypernode-configmap', 'hypernode-write-retry', 'hypernode-status', 'label-discovery']) {
      for (const family of ['workqueue_unfinished_work_seconds', 'workqueue_longest_running_processor_seconds']) {
        assert.ok(later.has(`${family}{name="${queue}"}`), `${family} for ${queue}`);
      }
      // Every queue's worker errors reach the process's handler, which starts the queue's count at 0.
      assert.is(later.get(`hypernode_worker_errors_total{name="${queue}"}`), 0, `worker errors of ${queue}`);
    }

    // docs/metrics.md against this scrape, both ways.
    const text = await scrapeText();
    const families = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    const rows = documentedMetrics();
    const runtime = (name: string) => name.startsWith('process_') || name.startsWith('nodejs_');
    assert.equal(
      [...families.keys()].filter((n) => !runtime(n) && !rows.has(n)).sort(),
      [],
      'exported families without a row in docs/metrics.md',
    );
    assert.equal(
      [...rows].filter(([n, row]) => !row.dryRunOnly && !families.has(n)).map(([n]) => n),
      [],
      'rows of docs/metrics.md the running controller does not export',
    );
    const queues = [
      ...new Set(
        [...text.matchAll(/^workqueue_longest_running_processor_seconds\{name="([^"]+)"\}/gm)].map((m) => m[1]!),
      ),
    ].sort();
    assert.equal(documentedQueues(), queues, 'the work queues docs/metrics.md names');
  } finally {
    stop.abort();
    await within(done, 10_000, 'runServer after stop');
  }
});

test.run();
