// Figure 1 of scripts/bench-controller.ts: the CPU time of one label discovery
// run, in this process, over informer-like caches (frozen; Nodes as name +
// labels, as src/kube/informer.ts keeps them). It times exactly what
// LabelDiscoverer.runOnce does between its two log lines:
// discoverSnapshot(nodes.list(), types, hyperNodes). Beside it, the other half
// of a quiet round: TopologyReconciler.reconcile of that unchanged snapshot
// against the cached HyperNodes, with a client that refuses every write. measureDiscoveryCpuOn runs
// the same measurement in a child on another Node.js (the pinned one we ship),
// by running this file as a script: `<node> --import tsx <this file> <runs> <warmup>`.

import { spawnSync } from 'node:child_process';
import { Registry } from 'prom-client';
import { realClock } from '../../src/kube/clock.ts';
import { Store } from '../../src/kube/store.ts';
import { keepNameAndLabels } from '../../src/kube/informer.ts';
import type { HyperNodeClient } from '../../src/hypernode/model/contracts.ts';
import {
  HYPERNODE_API_VERSION,
  HYPERNODE_KIND,
  type DiscoveredHyperNode,
  type HyperNode,
  type NodeMeta,
} from '../../src/hypernode/model/hypernode-types.ts';
import { entryOf, parseConfig, sourceEntry } from '../../src/hypernode/config/loader.ts';
import { discoverSnapshot } from '../../src/hypernode/discovery/label/label-grouping.ts';
import { LABEL_SOURCE, NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../src/hypernode/model/hypernode-labels.ts';
import { topologyTypes } from '../../src/hypernode/discovery/label/label-config.ts';
import { newHyperNodeMetrics } from '../../src/hypernode/hypernode-metrics.ts';
import { TopologyReconciler } from '../../src/hypernode/reconcile/reconciler.ts';
import { nullLogger } from '../../src/log.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { SAMPLE_DISCOVERY_CONFIG } from '../../testing/sample-cluster.ts';
import { benchNodes } from './bench-cluster.ts';
import { percentile } from './bench-stats.ts';

/** A child measurement that takes longer than this has hung. */
const CHILD_TIMEOUT_MS = 120_000;

export interface DiscoveryCpuFigures {
  hyperNodes: number;
  /** The process's first run: cold JIT, empty HyperNode cache (every name derived). */
  coldMs: number;
  /** Median after warm-up, empty HyperNode cache: the first run against a new cluster. */
  emptyCacheMedianMs: number;
  /** Median after warm-up, the snapshot's HyperNodes cached (names adopted): every later run. */
  fullCacheMedianMs: number;
  /** Median after warm-up of reconciling the unchanged snapshot (no write is due). */
  reconcileUnchangedMedianMs: number;
  runs: number;
}

async function cpuMs(run: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function medianCpuMs(run: () => unknown, runs: number, warmup: number): Promise<number> {
  for (let i = 0; i < warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await cpuMs(run));
  return percentile(samples, 50);
}

/** A snapshot HyperNode as the informer caches it once written: what the API server adds, and its nodeCount. */
function asCached(hn: HyperNode, revision: number): HyperNode {
  const copy = structuredClone(hn);
  return {
    apiVersion: HYPERNODE_API_VERSION,
    kind: HYPERNODE_KIND,
    metadata: {
      ...copy.metadata,
      labels: { ...copy.metadata.labels, [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE },
      uid: `00000000-0000-4000-8000-${String(revision).padStart(12, '0')}`,
      resourceVersion: String(revision),
      generation: 1,
      creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [
        {
          manager: 'vc-hypernode-controller-manager',
          operation: 'Update',
          apiVersion: HYPERNODE_API_VERSION,
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
        },
      ],
    } as HyperNode['metadata'],
    spec: copy.spec,
    status: { nodeCount: copy.spec!.members?.length ?? 0 },
  };
}

/** A quiet round writes nothing: any call is a measurement error. */
const refusingClient: HyperNodeClient = {
  create: () => Promise.reject(new Error('unexpected create: the snapshot is unchanged')),
  update: () => Promise.reject(new Error('unexpected update: the snapshot is unchanged')),
  updateStatus: () => Promise.reject(new Error('unexpected status update: the snapshot is unchanged')),
  delete: () => Promise.reject(new Error('unexpected delete: the snapshot is unchanged')),
};

export async function measureDiscoveryCpu(
  nodeObjects: readonly KubeObject[],
  discoveryConfig: string,
  runs: number,
  warmup: number,
): Promise<DiscoveryCpuFigures> {
  const entry = entryOf(sourceEntry(parseConfig(discoveryConfig), LABEL_SOURCE));
  if (!entry) throw new Error(`the discovery configuration has no usable "${LABEL_SOURCE}" entry`);
  const types = topologyTypes(entry.config, nullLogger);
  const nodes = new Store<NodeMeta>();
  for (const n of nodeObjects) nodes.upsert(keepNameAndLabels(structuredClone(n)) as NodeMeta);
  const empty = new Store<HyperNode>();
  const discover = (hyperNodes: Store<HyperNode>) => discoverSnapshot(nodes.list(), types, hyperNodes);

  let snapshot: DiscoveredHyperNode[] = [];
  const coldMs = await cpuMs(() => (snapshot = discover(empty)));
  const full = new Store<HyperNode>();
  for (const [i, hn] of snapshot.entries()) full.upsert(asCached(hn, i + 1));
  const reconciler = new TopologyReconciler({
    hyperNodes: full,
    client: refusingClient,
    events: { event: () => {} },
    regarding: () => ({ metadata: { name: 'bench' } }),
    metrics: newHyperNodeMetrics(new Registry()),
    clock: realClock,
    logger: nullLogger,
    // Only reconciles run here, never the retry worker: nothing reaches its queue's worker.
    onWorkerError: () => {},
  });
  const reconcileUnchanged = async () => {
    const summary = await reconciler.reconcile(LABEL_SOURCE, snapshot);
    if (summary.unchanged !== snapshot.length)
      throw new Error(`reconciling the unchanged snapshot did not find it unchanged: ${JSON.stringify(summary)}`);
  };
  return {
    hyperNodes: snapshot.length,
    coldMs,
    emptyCacheMedianMs: await medianCpuMs(() => discover(empty), runs, warmup),
    fullCacheMedianMs: await medianCpuMs(() => discover(full), runs, warmup),
    reconcileUnchangedMedianMs: await medianCpuMs(reconcileUnchanged, runs, warmup),
    runs,
  };
}

/** The same figures for benchNodes() measured by `nodeExecutable` in a child process. */
export function measureDiscoveryCpuOn(
  nodeExecutable: string,
  runs: number,
  warmup: number,
): DiscoveryCpuFigures & { runtime: string } {
  const child = spawnSync(nodeExecutable, ['--import', 'tsx', import.meta.filename, String(runs), String(warmup)], {
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0)
    throw new Error(
      `${nodeExecutable} could not measure label discovery (exit ${child.status ?? child.signal}); run it by hand to see why`,
    );
  return JSON.parse(child.stdout) as DiscoveryCpuFigures & { runtime: string };
}

if (process.argv[1] === import.meta.filename) {
  measureDiscoveryCpu(benchNodes(), SAMPLE_DISCOVERY_CONFIG, Number(process.argv[2]), Number(process.argv[3])).then(
    (figures) => process.stdout.write(JSON.stringify({ ...figures, runtime: `node ${process.version}` }) + '\n'),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
