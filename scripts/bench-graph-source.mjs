#!/usr/bin/env node
// CPU and peak memory of the graph source, and so of the fabric layer every
// link-based source shares, on a rail-optimised three-tier fabric of
// 64 scalable units x 8 rails = 8,192 hosts and 1,024 switches (512 leaves,
// 256 spines in 8 spine-leaf groups, 256 cores), about 70,000 links. The
// graph document is generated, then (1) parsed and layered in this process,
// best of --runs, and (2) rendered by the shipped executable's
// `render --graph-file`, which reads, checks and layers it exactly as the
// controller would. Prints the sizes, the in-process times, the child's CPU
// time (user + system) and its peak RSS; the targets are 2 s of CPU and 300 MB.
//
// Usage: node scripts/bench-graph-source.mjs [--sus N] [--runs N]   (build first: node scripts/build.mjs)

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { register } from 'tsx/esm/api';
import { builtBinary, option, timedRender } from './lib/bench-render-child.mjs';

register();
const binary = builtBinary();
const TARGET_CPU_MS = 2_000;
const TARGET_RSS_MB = 300;
const RAILS = 8;
const HOSTS_PER_SU = 128;
const SUS_PER_GROUP = 8;
const SPINES_PER_RAIL = 4;
const CORES_PER_RAIL = 32;

/**
 * Leaves per (unit, rail); per spine-leaf group and rail a few spines; per rail a plane of cores every spine of that
 * rail reaches.
 */
function generate(sus) {
  const switches = [];
  const links = [];
  const hosts = [];
  const groups = Math.ceil(sus / SUS_PER_GROUP);
  for (let r = 1; r <= RAILS; r++) for (let c = 1; c <= CORES_PER_RAIL; c++) switches.push({ id: `core-r${r}-${c}` });
  for (let g = 1; g <= groups; g++) {
    for (let r = 1; r <= RAILS; r++) {
      for (let k = 1; k <= SPINES_PER_RAIL; k++) {
        const spine = `spine-g${g}-r${r}-${k}`;
        switches.push({ id: spine });
        for (let c = 1; c <= CORES_PER_RAIL / SPINES_PER_RAIL; c++)
          links.push({
            a: { switch: spine, port: `up${c}` },
            b: { switch: `core-r${r}-${(k - 1) * (CORES_PER_RAIL / SPINES_PER_RAIL) + c}`, port: `g${g}` },
          });
      }
    }
  }
  for (let s = 1; s <= sus; s++) {
    const g = Math.ceil(s / SUS_PER_GROUP);
    for (let h = 1; h <= HOSTS_PER_SU; h++) hosts.push(`su${s}-h${h}`);
    for (let r = 1; r <= RAILS; r++) {
      const leaf = `leaf-su${s}-r${r}`;
      switches.push({ id: leaf });
      for (let k = 1; k <= SPINES_PER_RAIL; k++)
        links.push({ a: { switch: leaf, port: `up${k}` }, b: { switch: `spine-g${g}-r${r}-${k}`, port: `su${s}` } });
      for (let h = 1; h <= HOSTS_PER_SU; h++)
        links.push({ a: { host: `su${s}-h${h}`, port: `eth${r}` }, b: { switch: leaf, port: `p${h}` } });
    }
  }
  return { doc: { switches, links }, hosts };
}

const { parseGraphDocument } = await import('../src/hypernode/discovery/graph/graph-fabric-graph.ts');
const { fabricHyperNodes } = await import('../src/hypernode/discovery/fabric/fabric-hypernodes.ts');
const { nullLogger } = await import('../src/log.ts');

const sus = option('sus', 64);
const runs = option('runs', 3);
const { doc, hosts } = generate(sus);
const text = JSON.stringify(doc);
const dir = mkdtempSync(join(tmpdir(), 'bench-graph-source-'));
try {
  console.log(
    `fabric: ${sus} SUs x ${RAILS} rails, ${hosts.length} hosts, ${doc.switches.length} switches, ${doc.links.length} links; document ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB`,
  );
  let parseMs = Infinity;
  let layerMs = Infinity;
  let result;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const graph = parseGraphDocument(text);
    const t1 = performance.now();
    result = fabricHyperNodes({ graph, fabric: 'bench', source: 'graph', mapHost: (h) => h, logger: nullLogger });
    const t2 = performance.now();
    parseMs = Math.min(parseMs, t1 - t0);
    layerMs = Math.min(layerMs, t2 - t1);
  }
  const perTier = {};
  for (const h of result.snapshot) perTier[h.spec.tierName] = (perTier[h.spec.tierName] ?? 0) + 1;
  console.log(
    `in process (best of ${runs}): parse + check ${parseMs.toFixed(0)} ms, layers + HyperNodes ${layerMs.toFixed(0)} ms; ${result.snapshot.length} HyperNodes ${JSON.stringify(perTier)}, ${result.problems.length} problems`,
  );

  const graphFile = join(dir, 'graph.json');
  writeFileSync(graphFile, text);
  const conf = join(dir, 'conf.yaml');
  writeFileSync(
    conf,
    'networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    config:\n      fabric: bench\n      file: /etc/fabric-graph/graph.json\n',
  );
  const nodes = join(dir, 'nodes.json');
  writeFileSync(
    nodes,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: hosts.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })),
    }),
  );
  const figures = [];
  for (let i = 0; i < runs; i++) {
    const { hyperNodes, cpuMs, rssMb } = timedRender(binary, [
      '--config',
      conf,
      '--nodes',
      nodes,
      '--graph-file',
      graphFile,
    ]);
    figures.push({ cpuMs, rssMb });
    console.log(`render run ${i + 1}: ${hyperNodes.length} HyperNodes, CPU ${cpuMs} ms, peak RSS ${rssMb} MB`);
  }
  const worst = { cpuMs: Math.max(...figures.map((f) => f.cpuMs)), rssMb: Math.max(...figures.map((f) => f.rssMb)) };
  const ok = worst.cpuMs <= TARGET_CPU_MS && worst.rssMb <= TARGET_RSS_MB;
  console.log(
    `worst render: CPU ${worst.cpuMs} ms (target ${TARGET_CPU_MS}), peak RSS ${worst.rssMb} MB (target ${TARGET_RSS_MB}): ${ok ? 'ok' : 'OVER'}`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
