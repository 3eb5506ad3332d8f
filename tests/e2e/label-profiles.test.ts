// Label profiles end to end: the built executable against the API server
// stand-in under the chart's RBAC discovers a mixed H100 + GB200 fleet into
// independent trees (H100 leaf/spine; GB200 NVLink domain from the clique
// label/leaf/spine; GB200 Nodes without a clique yet in a fabric-only tree),
// each HyperNode carrying its profile label; a GB200 Node whose clique label
// arrives moves trees with writes to the affected HyperNodes only. A preset
// on a fleet with one mislabelled Node keeps every other Node's HyperNodes
// updated and names that Node in a Warning Event and the uncovered metric.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify } from 'yaml';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { MIXED_CONFIG, MIXED_UUIDS, mixedNodes } from '../../testing/mixed-cluster.ts';
import {
  NS,
  answeredHyperNodeWrites,
  assertNoForbidden,
  describeWrites,
  hyperNodes,
  node,
  nodeCount,
  seedConfigMap,
  setNodeLabels,
} from './cluster.ts';
import { session } from './session.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';

const PROFILE = 'volcano.sh/network-topology-profile';
const CLIQUE = 'nvidia.com/gpu.clique';
const s = session(test);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));

const CONFIG = stringify({
  networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: MIXED_CONFIG } }],
});

/** `profile tier tierName value ← members #nodeCount` (a HyperNode above tier 1 counts its children), sorted. */
function trees(hns: HyperNode[]): string[] {
  const byName = new Map(hns.map((h) => [h.metadata.name, h]));
  const value = (h: HyperNode) =>
    Object.entries(h.metadata.labels ?? {}).find(([k]) => !k.startsWith('volcano.sh/network-topology-'))![1];
  return hns
    .map(
      (h) =>
        `${h.metadata.labels?.[PROFILE]} ${h.spec?.tier} ${h.spec?.tierName} ${value(h)} ← ${memberNames(h)
          .map((m) => (byName.has(m!) ? value(byName.get(m!)!) : m))
          .sort()
          .join(',')} #${nodeCount(h)}`,
    )
    .sort();
}

test('a mixed H100 + GB200 fleet becomes independent profile trees; a clique arriving moves one Node with writes to the affected HyperNodes only', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of mixedNodes()) api.store.create(node(n.metadata.name, n.metadata.labels!));
  seedConfigMap(api, CONFIG);
  s.controller = await startControllerBinary({ kubeconfig, namespace: NS });
  const [u0, u1] = MIXED_UUIDS as [string, string];
  const want = [
    `gb200 1 nvl-domain ${u0} ← gb200-0,gb200-1,gb200-2,gb200-3 #4`,
    `gb200 1 nvl-domain ${u1} ← gb200-4,gb200-5,gb200-6 #3`,
    `gb200 2 leaf leaf-g0 ← ${[u0, u1].sort().join(',')} #2`,
    'gb200 3 spine spine-g ← leaf-g0 #1',
    'gb200-pending 1 leaf leaf-g0 ← gb200-7 #1',
    'gb200-pending 2 spine spine-g ← leaf-g0 #1',
    'h100 1 leaf leaf-h0 ← h100-0,h100-1,h100-2,h100-3 #4',
    'h100 1 leaf leaf-h1 ← h100-4,h100-5,h100-6,h100-7 #4',
    'h100 2 spine spine-h ← leaf-h0,leaf-h1 #2',
  ].sort();
  let seen: string[] = [];
  await s
    .converge(
      () => JSON.stringify((seen = trees(hyperNodes(api, 'label')))) === JSON.stringify(want),
      'the three profile trees',
    )
    .catch((err: Error) => {
      throw new Error(`${err.message}\n--- trees seen ---\n${seen.join('\n')}`);
    });
  const before = new Map(
    hyperNodes(api).map((h) => [
      h.metadata.labels?.[PROFILE] +
        ' ' +
        h.metadata.labels?.['example.com/leaf'] +
        ' ' +
        h.metadata.labels?.['example.com/spine'] +
        ' ' +
        h.metadata.labels?.[CLIQUE],
      h.metadata.name,
    ]),
  );
  const pending = [
    before.get('gb200-pending leaf-g0 undefined undefined')!,
    before.get('gb200-pending undefined spine-g undefined')!,
  ];
  const domain = before.get(`gb200 undefined undefined ${u1}`)!;
  assert.ok(pending.every(Boolean) && domain, [...before.keys()].join('\n'));
  api.requests.clear();

  setNodeLabels(api, 'gb200-7', { [CLIQUE]: `${u1}.2` });
  await s.converge(
    () =>
      hyperNodes(api, 'label').length === 7 &&
      memberNames(hyperNodes(api).find((h) => h.metadata.name === domain)).includes('gb200-7'),
    'gb200-7 in its NVLink domain, the pending tree gone',
  );
  const writes = describeWrites(await answeredHyperNodeWrites(api));
  const touched = new Set(writes.map((w) => w.split(' ')[1]!.split('/')[0]));
  assert.equal([...touched].sort(), [...pending, domain].sort(), writes.join('\n'));
  assert.ok(
    writes.includes(`delete ${pending[0]} → 200`) &&
      writes.includes(`delete ${pending[1]} → 200`) &&
      writes.includes(`update ${domain} → 200`),
    writes.join('\n'),
  );
  assertNoForbidden(api);
});

test('a preset with one mislabelled Node: the others are placed and updated; the Node is named in a NodesLeftOut Event and counted', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const k = (n: number) => `fabric.topograph.run/tier-${n}`;
  for (let i = 0; i < 4; i++) api.store.create(node(`dgx-${i}`, { [k(0)]: `S-${i >> 1}`, [k(1)]: 'S-spine' }));
  api.store.create(node('dgx-bad', { [k(1)]: 'S-spine' }));
  seedConfigMap(
    api,
    stringify({
      networkTopologyDiscovery: [
        { source: 'label', enabled: true, config: { networkTopologyTypes: { fabric: { preset: 'topograph' } } } },
      ],
    }),
  );
  s.controller = await startControllerBinary({ kubeconfig, namespace: NS });
  const leafOf = (n: string) => hyperNodes(api, 'label').find((h) => h.spec?.tier === 1 && memberNames(h).includes(n));
  await s.converge(
    () => hyperNodes(api, 'label').length === 3 && leafOf('dgx-0') && leafOf('dgx-3'),
    'two leaves and a spine for the well-labelled Nodes',
  );
  type Ev = { type: string; reason: string; message: string; involvedObject: { kind: string } };
  const leftOut = () =>
    (api.store.list('events', NS) as unknown as Ev[]).filter(
      (e) => e.type === 'Warning' && e.reason === 'NodesLeftOut' && e.involvedObject.kind === 'ConfigMap',
    );
  await s.converge(() => leftOut().length === 1, 'a NodesLeftOut Warning Event');
  assert.match(leftOut()[0]!.message, `dgx-bad: it carries ${k(1)}=S-spine but no ${k(0)}`);
  const metrics = async () => s.controller!.metrics();
  await s.converge(
    async () =>
      seriesValue(await metrics(), 'hypernode_uncovered_nodes', { source: 'label', reason: 'missing-level' }) === 1,
    'hypernode_uncovered_nodes{reason="missing-level"} = 1',
  );

  // The rest of the cluster keeps being updated while the bad Node stays bad.
  api.store.create(node('dgx-4', { [k(0)]: 'S-0', [k(1)]: 'S-spine' }));
  await s.converge(() => memberNames(leafOf('dgx-0')).includes('dgx-4'), 'dgx-4 joins leaf S-0');
  setNodeLabels(api, 'dgx-bad', { [k(0)]: 'S-1' });
  await s.converge(() => memberNames(leafOf('dgx-3')).includes('dgx-bad'), 'fixed, dgx-bad joins leaf S-1');
  await s.converge(
    async () =>
      seriesValue(await metrics(), 'hypernode_uncovered_nodes', { source: 'label', reason: 'missing-level' }) === 0,
    'back to 0',
  );
  assertNoForbidden(api);
});

test.run();
