// Label discovery CPU with profiles: one discovery run over 10,000 Nodes of a
// mixed fleet in four profiles (H100 leaf/spine, GB200 NVLink domain from the
// clique label/leaf/spine, GB200 without a clique yet, L40S racks/zones by
// preset-free selectors), and the same fleet labelled as NVIDIA Topograph
// labels it under `preset: topograph` with `nvlink: domain`, against the
// single legacy type over the benchmark's sample cluster. The profiles and
// the preset select, walk more levels and hash new names; the target is at
// most twice the single-type figure.
// Run: node --import tsx scripts/bench-label-profiles.ts

import { stringify } from 'yaml';
import type { KubeObject } from '../src/kube/types.ts';
import { SAMPLE_DISCOVERY_CONFIG } from '../testing/sample-cluster.ts';
import { MIXED_CONFIG } from '../testing/mixed-cluster.ts';
import { benchNodes } from './lib/bench-cluster.ts';
import { measureDiscoveryCpu, type DiscoveryCpuFigures } from './lib/bench-discovery-cpu.ts';

const RUNS = 15;
const WARMUP = 5;
const TARGET_RATIO = 2;

const KUBELET = {
  'kubernetes.io/arch': 'amd64',
  'kubernetes.io/os': 'linux',
  'beta.kubernetes.io/arch': 'amd64',
  'beta.kubernetes.io/os': 'linux',
};

const PROFILES = {
  ...MIXED_CONFIG,
  l40s: {
    nodeSelector: { matchLabels: { 'nvidia.com/gpu.product': 'NVIDIA-L40S' } },
    levels: [
      { nodeLabel: 'topology.kubernetes.io/zone', tierName: 'zone' },
      { nodeLabel: 'example.com/leaf', tierName: 'leaf' },
      { nodeLabel: 'kubernetes.io/hostname' },
    ],
  },
};

const CONFIG = stringify({
  networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: PROFILES } }],
});

/**
 * 4,000 H100 (8 per leaf, 25 leaves per spine), 3,600 GB200 in 200 NVL72 racks of 18 (2 per leaf), 400 GB200 without a
 * clique, 2,000 L40S.
 */
function mixedFleet(): KubeObject[] {
  const out: KubeObject[] = [];
  const add = (name: string, labels: Record<string, string>) =>
    out.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { ...KUBELET, 'kubernetes.io/hostname': name, ...labels } },
    });
  for (let i = 0; i < 4000; i++) {
    add(`h100-${i}`, {
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
      'example.com/leaf': `h-leaf-${i >> 3}`,
      'example.com/spine': `h-spine-${Math.floor(i / 200)}`,
    });
  }
  for (let i = 0; i < 4000; i++) {
    const rack = Math.floor(i / 18);
    const labels: Record<string, string> = {
      'nvidia.com/gpu.product': 'NVIDIA-GB200',
      'example.com/leaf': `g-leaf-${rack >> 1}`,
      'example.com/spine': `g-spine-${Math.floor(rack / 20)}`,
    };
    if (i < 3600)
      labels['nvidia.com/gpu.clique'] =
        `${String(rack).padStart(8, '0')}-c8aa-45e1-9e07-e1e51be99c31.${i % 18 < 9 ? 1 : 2}`;
    add(`gb200-${i}`, labels);
  }
  for (let i = 0; i < 2000; i++) {
    add(`l40s-${i}`, {
      'nvidia.com/gpu.product': 'NVIDIA-L40S',
      'example.com/leaf': `l-leaf-${i >> 4}`,
      'topology.kubernetes.io/zone': `zone-${(i >> 4) % 4}`,
    });
  }
  return out;
}

/** The H100 and GB200 Nodes of mixedFleet with Topograph's keys for leaf and spine instead of example.com's. */
function topographFleet(): KubeObject[] {
  return mixedFleet()
    .filter((n) => !n.metadata.name.startsWith('l40s-'))
    .map((n) => {
      const { 'example.com/leaf': leaf, 'example.com/spine': spine, ...labels } = n.metadata.labels!;
      return {
        ...n,
        metadata: {
          ...n.metadata,
          labels: { ...labels, 'fabric.topograph.run/tier-0': leaf!, 'fabric.topograph.run/tier-1': spine! },
        },
      };
    });
}

const PRESET_CONFIG = stringify({
  networkTopologyDiscovery: [
    {
      source: 'label',
      enabled: true,
      config: { networkTopologyTypes: { fabric: { preset: 'topograph', nvlink: 'domain' } } },
    },
  ],
});

const line = (what: string, f: DiscoveryCpuFigures) =>
  `${what}: ${f.hyperNodes} HyperNodes; cold ${f.coldMs.toFixed(1)} ms, empty cache median ${f.emptyCacheMedianMs.toFixed(1)} ms, full cache median ${f.fullCacheMedianMs.toFixed(1)} ms (${f.runs} runs)`;

const single = await measureDiscoveryCpu(benchNodes(), SAMPLE_DISCOVERY_CONFIG, RUNS, WARMUP);
const mixed = await measureDiscoveryCpu(mixedFleet(), CONFIG, RUNS, WARMUP);
const preset = await measureDiscoveryCpu(topographFleet(), PRESET_CONFIG, RUNS, WARMUP);
console.log(line('single legacy type, 10,000 Nodes', single));
console.log(line('four profiles, 10,000 Nodes', mixed));
console.log(line('topograph preset with nvlink: domain, 8,000 Nodes', preset));
let ok = true;
for (const [what, f] of [
  ['four profiles', mixed],
  ['topograph preset', preset],
] as const) {
  const ratio = f.fullCacheMedianMs / single.fullCacheMedianMs;
  const ratioEmpty = f.emptyCacheMedianMs / single.emptyCacheMedianMs;
  console.log(
    `${what} ratio (full cache, every later run): ${ratio.toFixed(2)}×; (empty cache, first run): ${ratioEmpty.toFixed(2)}×; target ≤ ${TARGET_RATIO}×`,
  );
  ok &&= ratio <= TARGET_RATIO && ratioEmpty <= TARGET_RATIO;
}
process.exitCode = ok ? 0 : 1;
