// `render` with presets and profiles as a user tries them on a dump of their
// Nodes: a mixed-depth AWS cluster gives each tierName one tier in `-o json`,
// a mislabelled Node is named on a `warning:` line while the others are
// rendered, and hand-written profiles that give one tierName two tiers get a
// `warning:` line saying what released Volcano schedulers do with it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { render } from '../../src/cmd/render.ts';

const ARGV0 = 'vc-hypernode-controller-manager';
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-render-presets-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

const layer = (n: number) => `topology.k8s.aws/network-node-layer-${n}`;
const node = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
});

/** Renders `types` over `nodes` with `-o json`: exit code, items, stderr. */
async function renderJson(
  types: Record<string, unknown>,
  nodes: unknown[],
): Promise<{ code: number; items: HyperNode[]; stderr: string }> {
  const config = join(dir, 'conf.yaml');
  writeFileSync(
    config,
    toYaml({ networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: types } }] }),
  );
  const nodesFile = join(dir, 'nodes.json');
  writeFileSync(nodesFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: nodes }));
  const result = await render(['--config', config, '--nodes', nodesFile, '-o', 'json'], ARGV0);
  return {
    code: result.code,
    items: result.code === 0 ? (JSON.parse(result.stdout) as { items: HyperNode[] }).items : [],
    stderr: result.stderr,
  };
}

/** tierName → the tier numbers the output gives it. */
function tiersByName(items: HyperNode[]): Record<string, number[]> {
  const out: Record<string, Set<number>> = {};
  for (const h of items) (out[h.spec!.tierName!] ??= new Set()).add(h.spec!.tier);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

test('aws on 3- and 4-layer instances: every tierName at one tier, a shared layer-3 is one HyperNode; a Node with only layer-1 is named', async () => {
  const top = { [layer(1)]: 'nn-e50490a237cb0f01a', [layer(2)]: 'nn-22' };
  const nodes = [
    node('p5-0', { ...top, [layer(3)]: 'nn-33' }),
    node('p6-b200-0', { ...top, [layer(3)]: 'nn-33', [layer(4)]: 'nn-44' }),
    node('half-labelled', { [layer(1)]: 'nn-e50490a237cb0f01a' }),
  ];
  const { code, items, stderr } = await renderJson({ aws: { preset: 'aws' } }, nodes);
  assert.is(code, 0, stderr);
  assert.equal(tiersByName(items), { 'aws-layer-1': [4], 'aws-layer-2': [3], 'aws-layer-3': [2], 'aws-layer-4': [1] });
  const layer3 = items.filter((h) => h.spec!.tierName === 'aws-layer-3');
  assert.is(layer3.length, 1, 'one HyperNode for the layer-3 node both instance types hang from');
  assert.equal(
    layer3[0]!.spec!.members!.map((m) => [
      m.type,
      m.selector!.exactMatch!.name.startsWith('hypernode-aws-tier1-') ? 'layer-4' : m.selector!.exactMatch!.name,
    ]),
    [
      ['HyperNode', 'layer-4'],
      ['Node', 'p5-0'],
    ],
  );
  assert.match(
    stderr,
    /^warning: source "label": 1 Node\(s\) left out of the topology \(missing-level\), the other Nodes are placed: half-labelled: it carries topology\.k8s\.aws\/network-node-layer-1=nn-e50490a237cb0f01a but no topology\.k8s\.aws\/network-node-layer-3/m,
  );
  assert.not.match(stderr, /tierName/);
});

test('topograph with and without cliques, nebius with and without tier-0, coreweave: one tier per tierName, one leaf per leaf value', async () => {
  const CLIQUE = 'nvidia.com/gpu.clique';
  const uuid = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';
  const t = (n: number) => `fabric.topograph.run/tier-${n}`;
  const nb = (p: string) => `topology.nebius.com/${p}`;
  const cw = (fabric: string, superpod: string, leafgroup: string) => ({
    'ib.coreweave.cloud/fabric': fabric,
    'ib.coreweave.cloud/superpod': superpod,
    'ib.coreweave.cloud/leafgroup': leafgroup,
  });
  const cases: [string, Record<string, unknown>, unknown[], string, string][] = [
    [
      'topograph',
      { fabric: { preset: 'topograph', nvlink: 'domain' } },
      [
        node('gb-0', { [t(0)]: 'S-1', [t(1)]: 'S-9', [CLIQUE]: `${uuid}.1` }),
        node('gb-1', { [t(0)]: 'S-1', [t(1)]: 'S-9' }),
        node('h-0', { [t(0)]: 'S-2' }),
      ],
      t(0),
      'S-1',
    ],
    [
      'nebius',
      { nebius: { preset: 'nebius', nvlink: 'domain' } },
      [
        node('gb-0', {
          [nb('gpu-cluster-id')]: 'c1',
          [nb('tier-2')]: 's1',
          [nb('tier-1')]: 'l1',
          [nb('tier-0')]: 'nvl-1',
        }),
        node('h-0', { [nb('gpu-cluster-id')]: 'c1', [nb('tier-2')]: 's1', [nb('tier-1')]: 'l1' }),
      ],
      nb('tier-1'),
      'l1',
    ],
    [
      'coreweave',
      { cw: { preset: 'coreweave' } },
      [node('g-0', { ...cw('f1', '1', '3'), 'node.coreweave.cloud/rack': '7' }), node('g-1', cw('f1', '1', '3'))],
      'ib.coreweave.cloud/leafgroup',
      '3',
    ],
  ];
  for (const [what, types, nodes, leafKey, leafValue] of cases) {
    const { code, items, stderr } = await renderJson(types, nodes);
    assert.is(code, 0, `${what}: ${stderr}`);
    for (const [tierName, tiers] of Object.entries(tiersByName(items)))
      assert.is(tiers.length, 1, `${what}: ${tierName} at tiers ${tiers}`);
    const leaves = items.filter((h) => h.metadata.labels?.[leafKey] === leafValue);
    assert.is(leaves.length, 1, `${what}: one HyperNode for ${leafKey}=${leafValue}`);
    assert.not.match(stderr, /warning:/, what);
  }
});

test('hand-written profiles giving one tierName two tiers: rendered as written, with a warning line naming the tierName, the tiers and the consequence', async () => {
  const HOST = { nodeLabel: 'kubernetes.io/hostname' };
  const types = {
    h100: {
      nodeSelector: { matchLabels: { gpu: 'h100' } },
      levels: [{ nodeLabel: 'example.com/leaf', tierName: 'leaf' }, HOST],
    },
    gb200: {
      nodeSelector: { matchLabels: { gpu: 'gb200' } },
      levels: [
        { nodeLabel: 'example.com/leaf', tierName: 'leaf' },
        { nodeLabel: 'nvidia.com/gpu.clique', tierName: 'nvl-partition' },
        HOST,
      ],
    },
  };
  const nodes = [
    node('h-0', { gpu: 'h100', 'example.com/leaf': 'l1' }),
    node('g-0', { gpu: 'gb200', 'example.com/leaf': 'l2', 'nvidia.com/gpu.clique': 'u.1' }),
  ];
  const { code, items, stderr } = await renderJson(types, nodes);
  assert.is(code, 0, stderr);
  assert.equal(tiersByName(items), { leaf: [1, 2], 'nvl-partition': [1] });
  assert.match(
    stderr,
    /^warning: source "label": tierName "leaf" is at tiers 1 and 2 \(profiles: gb200, h100\)\. Released Volcano schedulers keep one tier per tierName and take whichever they saw last, so highestTierName resolves ambiguously there/m,
  );
});

test.run();
