// Figure 1 of scripts/bench-controller.ts: the CPU time of one label discovery
// run, in this process, over informer-like caches (frozen, name + labels only,
// as src/kube/informer.ts keeps them). It times exactly what
// LabelDiscoverer.runOnce does between its two log lines:
// discoverSnapshot(nodes.list(), types, hyperNodes). measureDiscoveryCpuOn runs
// the same measurement in a child on another Node.js (the pinned one we ship),
// by running this file as a script: `<node> --import tsx <this file> <runs> <warmup>`.

import { spawnSync } from 'node:child_process';
import { Store } from '../../src/kube/store.ts';
import { keepNameAndLabels } from '../../src/kube/informer.ts';
import type { HyperNode, NodeMeta } from '../../src/hypernode/api/types.ts';
import { entryOf, parseConfig, sourceEntry } from '../../src/hypernode/config/loader.ts';
import { discoverSnapshot } from '../../src/hypernode/discovery/label/grouping.ts';
import { LABEL_SOURCE } from '../../src/hypernode/discovery/label/naming.ts';
import { topologyTypes } from '../../src/hypernode/discovery/label/tiers.ts';
import { nullLogger } from '../../src/log.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { SAMPLE_DISCOVERY_CONFIG } from '../../tests/support/sample-cluster.ts';
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
  runs: number;
}

function cpuMs(run: () => unknown): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

export function measureDiscoveryCpu(nodeObjects: readonly KubeObject[], discoveryConfig: string, runs: number, warmup: number): DiscoveryCpuFigures {
  const entry = entryOf(sourceEntry(parseConfig(discoveryConfig), LABEL_SOURCE));
  if (!entry) throw new Error(`the discovery configuration has no usable "${LABEL_SOURCE}" entry`);
  const types = topologyTypes(entry.config, nullLogger);
  const nodes = new Store<NodeMeta>();
  for (const n of nodeObjects) nodes.upsert(keepNameAndLabels(structuredClone(n)) as NodeMeta);
  const empty = new Store<HyperNode>();
  const discover = (hyperNodes: Store<HyperNode>) => discoverSnapshot(nodes.list(), types, hyperNodes);

  let snapshot: HyperNode[] = [];
  const coldMs = cpuMs(() => (snapshot = discover(empty)));
  const full = new Store<HyperNode>();
  for (const [i, hn] of snapshot.entries()) full.upsert({ ...structuredClone(hn), metadata: { ...structuredClone(hn.metadata), resourceVersion: String(i + 1) } });

  const sample = (cache: Store<HyperNode>) => {
    for (let i = 0; i < warmup; i++) discover(cache);
    return percentile(
      Array.from({ length: runs }, () => cpuMs(() => discover(cache))),
      50,
    );
  };
  return { hyperNodes: snapshot.length, coldMs, emptyCacheMedianMs: sample(empty), fullCacheMedianMs: sample(full), runs };
}

/** The same figures for benchNodes() measured by `nodeExecutable` in a child process. */
export function measureDiscoveryCpuOn(nodeExecutable: string, runs: number, warmup: number): DiscoveryCpuFigures & { runtime: string } {
  const child = spawnSync(nodeExecutable, ['--import', 'tsx', import.meta.filename, String(runs), String(warmup)], {
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`${nodeExecutable} could not measure label discovery (exit ${child.status ?? child.signal}); run it by hand to see why`);
  return JSON.parse(child.stdout) as DiscoveryCpuFigures & { runtime: string };
}

if (process.argv[1] === import.meta.filename) {
  const figures = measureDiscoveryCpu(benchNodes(), SAMPLE_DISCOVERY_CONFIG, Number(process.argv[2]), Number(process.argv[3]));
  process.stdout.write(JSON.stringify({ ...figures, runtime: `node ${process.version}` }) + '\n');
}
