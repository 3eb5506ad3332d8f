#!/usr/bin/env node
// How long `render` takes on a large cluster: 10,000 Nodes labelled in three
// tiers (zone → spine → rack) as `kubectl get nodes -o json` would write
// them, rendered by the shipped executable. Prints the wall time of each run
// and the median; the target is under 1 s. On Linux it also prints the CPU
// time the child used, which stays meaningful on a machine shared with other
// work (where the wall time mostly measures waiting for a core).
//
// Usage: node scripts/bench-render.mjs [--nodes N] [--runs N]   (build first: node scripts/build.mjs)

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtBinary, option } from './lib/bench-render-child.mjs';

const TARGET_MS = 1_000;
const NODES_PER_RACK = 40;
const RACKS_PER_SPINE = 10;
const SPINES_PER_ZONE = 5;

/**
 * CPU ms used by waited-for children so far (utime + stime of /proc/self/stat, at 100 ticks/s), or undefined off Linux.
 */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // After the command name: field 14 (cutime) and 15 (cstime) of proc(5) are at index 13 and 14 here.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

function nodeList(count) {
  const items = [];
  for (let i = 0; i < count; i++) {
    const rack = Math.floor(i / NODES_PER_RACK);
    const spine = Math.floor(rack / RACKS_PER_SPINE);
    const zone = Math.floor(spine / SPINES_PER_ZONE);
    const name = `node-${String(i).padStart(5, '0')}`;
    items.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          'kubernetes.io/hostname': name,
          'topology.example.com/zone': `zone-${zone}`,
          'volcano.sh/hypercluster': `spine-${spine}`,
          'volcano.sh/hypernode': `rack-${rack}`,
        },
      },
    });
  }
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
}

const CONFIG = `networkTopologyDiscovery:
  - source: label
    enabled: true
    config:
      networkTopologyTypes:
        datacenter:
          - nodeLabel: topology.example.com/zone
          - nodeLabel: volcano.sh/hypercluster
          - nodeLabel: volcano.sh/hypernode
          - nodeLabel: kubernetes.io/hostname
`;

function main() {
  const binary = builtBinary();
  const count = option('nodes', 10_000);
  const runs = option('runs', 5);
  const dir = mkdtempSync(join(tmpdir(), 'hn-bench-render-'));
  try {
    const nodes = join(dir, 'nodes.json');
    const config = join(dir, 'config.yaml');
    writeFileSync(nodes, JSON.stringify(nodeList(count)));
    writeFileSync(config, CONFIG);
    const times = [];
    let items = 0;
    for (let run = 0; run < runs; run++) {
      const cpuBefore = childrenCpuMs();
      const started = process.hrtime.bigint();
      const result = spawnSync(binary, ['render', '--config', config, '--nodes', nodes, '-o', 'json'], {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`render exited ${result.status}: ${result.stderr}`);
      items = JSON.parse(result.stdout).items.length;
      times.push(ms);
      const cpu = cpuBefore === undefined ? undefined : childrenCpuMs() - cpuBefore;
      console.log(`run ${run + 1}: ${ms.toFixed(0)} ms wall${cpu === undefined ? '' : `, ${cpu} ms CPU`}`);
    }
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
    console.log(
      `render of ${count} Nodes (3 tiers, ${items} HyperNodes): median ${median.toFixed(0)} ms over ${runs} runs (target < ${TARGET_MS} ms)`,
    );
    return median < TARGET_MS ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exit(main());
