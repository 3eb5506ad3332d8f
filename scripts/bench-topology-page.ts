// Benchmark of /debug/topology's rendering (prints figures, asserts
// nothing): the state of a 65,000-Node label topology, ~9,300 HyperNodes
// in three tiers (8 Nodes per rack, 8 racks per spine, 16 spines per zone),
// rendered as JSON and as the HTML topology view, as a page view or a scrape
// of it costs the controller (the browser's share is scripts/bench-view.ts).
// The Nodes are members by exact name, so the page needs no Node list. Target: under 250 ms per view, so a reload never
// stalls the controller's event loop noticeably.
// Run: node --import tsx scripts/bench-topology-page.ts [nodes]

import { topologyJson } from '../src/app/topology-page.ts';
import { renderTopologyPage } from '../src/app/topology-page-html.ts';
import { build, buildMembers } from '../src/hypernode/model/hypernode-builders.ts';
import type { DiscoveredHyperNode } from '../src/hypernode/model/hypernode-types.ts';
import type { TopologyState } from '../src/hypernode/reconcile/topology-state.ts';
import { percentile } from './lib/bench-stats.ts';

const NODES = Number(process.argv[2] ?? 65_000);
const TARGET_MS = 250;
const RUNS = 5;

function topology(nodes: number): DiscoveredHyperNode[] {
  const racks: DiscoveredHyperNode[] = [];
  for (let r = 0; r * 8 < nodes; r++) {
    const members = Array.from(
      { length: Math.min(8, nodes - r * 8) },
      (_, i) => `node-${String(r * 8 + i).padStart(5, '0')}`,
    );
    racks.push(build(`rack-${r}`, 1, buildMembers(members, 'Node'), {}));
  }
  const group = (prefix: string, tier: number, children: DiscoveredHyperNode[], size: number) =>
    Array.from({ length: Math.ceil(children.length / size) }, (_, i) =>
      build(
        `${prefix}-${i}`,
        tier,
        buildMembers(
          children.slice(i * size, (i + 1) * size).map((c) => c.metadata.name),
          'HyperNode',
        ),
        {},
      ),
    );
  const spines = group('spine', 2, racks, 8);
  const zones = group('zone', 3, spines, 16);
  return [...zones, ...spines, ...racks];
}

function timed(label: string, f: () => string): void {
  let bytes = 0;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    bytes = Buffer.byteLength(f());
    times.push(performance.now() - t0);
  }
  const median = percentile(times, 50);
  console.log(
    `${label.padEnd(6)} ${median.toFixed(1).padStart(7)} ms (median of ${RUNS})  ${(bytes / 1024 / 1024).toFixed(2)} MiB  ${median <= TARGET_MS ? 'PASS' : 'MISS'} (target ${TARGET_MS} ms)`,
  );
}

const desired = topology(NODES);
const state: TopologyState = {
  running: true,
  sources: [
    {
      source: 'label',
      lastSnapshotAt: Date.now(),
      lastResult: {
        discovered: desired.length,
        created: 0,
        updated: 0,
        unchanged: desired.length,
        deleted: 0,
        failed: 0,
        foreign: 0,
        held: 0,
        rejected: false,
      },
      desired,
      heldDeletes: [],
      uncoveredNodes: { count: 0, listed: [] },
    },
  ],
};
console.log(`${NODES} Nodes, ${desired.length} HyperNodes`);
timed('json', () => topologyJson(state, Date.now()));
timed('html', () => renderTopologyPage(state, Date.now(), []));
