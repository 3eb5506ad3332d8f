// A mixed GPU fleet for label discovery tests: H100 racks (Node → leaf →
// spine) beside GB200 NVL72 racks (Node → NVLink domain → leaf → spine), with
// the profile configuration that discovers it.

import type { NodeMeta } from '../src/hypernode/model/hypernode-types.ts';

const HOST = { nodeLabel: 'kubernetes.io/hostname' };
const node = (name: string, labels: Record<string, string>): NodeMeta => ({ metadata: { name, labels } });

// The mixed fleet: H100 racks (Node → leaf → spine) beside GB200 NVL72 racks
// (Node → NVLink domain → leaf → spine), the NVLink domain being the
// ClusterUUID of nvidia.com/gpu.clique; GB200 Nodes whose clique label is not
// there yet fall back to the GB200 fabric-only profile.
export const MIXED_CONFIG = {
  h100: {
    nodeSelector: { matchLabels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' } },
    levels: [
      { nodeLabel: 'example.com/spine', tierName: 'spine' },
      { nodeLabel: 'example.com/leaf', tierName: 'leaf' },
      HOST,
    ],
  },
  gb200: {
    nodeSelector: {
      matchLabels: { 'nvidia.com/gpu.product': 'NVIDIA-GB200' },
      matchExpressions: [{ key: 'nvidia.com/gpu.clique', operator: 'Exists' }],
    },
    levels: [
      { nodeLabel: 'example.com/spine', tierName: 'spine' },
      { nodeLabel: 'example.com/leaf', tierName: 'leaf' },
      { nodeLabel: 'nvidia.com/gpu.clique', valuePattern: '^(.+)\\.[0-9]+$', tierName: 'nvl-domain' },
      HOST,
    ],
  },
  'gb200-pending': {
    nodeSelector: {
      matchLabels: { 'nvidia.com/gpu.product': 'NVIDIA-GB200' },
      matchExpressions: [{ key: 'nvidia.com/gpu.clique', operator: 'DoesNotExist' }],
    },
    levels: [
      { nodeLabel: 'example.com/spine', tierName: 'spine' },
      { nodeLabel: 'example.com/leaf', tierName: 'leaf' },
      HOST,
    ],
  },
};
export const MIXED_UUIDS = ['7b968a6d-c8aa-45e1-9e07-e1e51be99c31', '0f3c1e2a-5b6d-4e7f-8a9b-0c1d2e3f4a5b'];
export function mixedNodes(): NodeMeta[] {
  const out: NodeMeta[] = [];
  for (let i = 0; i < 8; i++) {
    out.push(
      node(`h100-${i}`, {
        'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
        'example.com/leaf': `leaf-h${i >> 2}`,
        'example.com/spine': 'spine-h',
      }),
    );
  }
  for (let i = 0; i < 8; i++) {
    const labels: Record<string, string> = {
      'nvidia.com/gpu.product': 'NVIDIA-GB200',
      'example.com/leaf': 'leaf-g0',
      'example.com/spine': 'spine-g',
    };
    // Two NVL72 racks (4 Nodes each here), the first split into two partitions; g-7 has no clique yet.
    if (i < 7) labels['nvidia.com/gpu.clique'] = `${MIXED_UUIDS[i >> 2]}.${i < 2 ? 1 : 2}`;
    out.push(node(`gb200-${i}`, labels));
  }
  return out;
}
