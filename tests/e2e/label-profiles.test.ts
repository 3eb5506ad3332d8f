// Label profiles end to end: the built executable against the API server
// stand-in under the chart's RBAC discovers a mixed H100 + GB200 fleet into
// independent trees (H100 leaf/spine; GB200 NVLink domain from the clique
// label/leaf/spine; GB200 Nodes without a clique yet in a fabric-only tree),
// each HyperNode carrying its profile label; a GB200 Node whose clique label
// arrives moves trees with writes to the affected HyperNodes only.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify } from 'yaml';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { MIXED_CONFIG, MIXED_UUIDS, mixedNodes } from '../../testing/mixed-cluster.ts';
import { NS, answeredHyperNodeWrites, assertNoForbidden, describeWrites, hyperNodes, node, nodeCount, seedConfigMap, setNodeLabels } from './cluster.ts';
import { session } from './session.ts';

const PROFILE = 'volcano.sh/network-topology-profile';
const CLIQUE = 'nvidia.com/gpu.clique';
const s = session(test);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));

const CONFIG = stringify({ networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: MIXED_CONFIG } }] });

/** `profile tier tierName value ← members #nodeCount` (a HyperNode above tier 1 counts its children), sorted. */
function trees(hns: HyperNode[]): string[] {
  const byName = new Map(hns.map((h) => [h.metadata.name, h]));
  const value = (h: HyperNode) => Object.entries(h.metadata.labels ?? {}).find(([k]) => !k.startsWith('volcano.sh/network-topology-'))![1];
  return hns
    .map((h) => `${h.metadata.labels?.[PROFILE]} ${h.spec?.tier} ${h.spec?.tierName} ${value(h)} ← ${memberNames(h).map((m) => (byName.has(m!) ? value(byName.get(m!)!) : m)).sort().join(',')} #${nodeCount(h)}`)
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
  await s.converge(() => JSON.stringify((seen = trees(hyperNodes(api, 'label')))) === JSON.stringify(want), 'the three profile trees').catch((err: Error) => {
    throw new Error(`${err.message}\n--- trees seen ---\n${seen.join('\n')}`);
  });
  const before = new Map(hyperNodes(api).map((h) => [h.metadata.labels?.[PROFILE] + ' ' + h.metadata.labels?.['example.com/leaf'] + ' ' + h.metadata.labels?.['example.com/spine'] + ' ' + h.metadata.labels?.[CLIQUE], h.metadata.name]));
  const pending = [before.get('gb200-pending leaf-g0 undefined undefined')!, before.get('gb200-pending undefined spine-g undefined')!];
  const domain = before.get(`gb200 undefined undefined ${u1}`)!;
  assert.ok(pending.every(Boolean) && domain, [...before.keys()].join('\n'));
  api.requests.clear();

  setNodeLabels(api, 'gb200-7', { [CLIQUE]: `${u1}.2` });
  await s.converge(() => hyperNodes(api, 'label').length === 7 && memberNames(hyperNodes(api).find((h) => h.metadata.name === domain)).includes('gb200-7'), 'gb200-7 in its NVLink domain, the pending tree gone');
  const writes = describeWrites(await answeredHyperNodeWrites(api));
  const touched = new Set(writes.map((w) => w.split(' ')[1]!.split('/')[0]));
  assert.equal([...touched].sort(), [...pending, domain].sort(), writes.join('\n'));
  assert.ok(writes.includes(`delete ${pending[0]} → 200`) && writes.includes(`delete ${pending[1]} → 200`) && writes.includes(`update ${domain} → 200`), writes.join('\n'));
  assertNoForbidden(api);
});

test.run();
