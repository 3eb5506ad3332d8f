// What a change of Topology levels costs while Kueue uses the Topology: the
// built executable against the API server stand-in serving Kueue's and KAI's
// published schemas, with the model of Kueue's Topology controller (its
// finalizer kept while a ResourceFlavor names the Topology), the label
// source over the sample cluster's zone / spine / rack labels, Node labels
// and both Topology exports on. Once everything is written and a
// ResourceFlavor names the Kueue Topology, the zone level is dropped. It
// prints:
//   - the writes of the level change by kind and verb (request log): Node
//     patches, Topology deletes and creates, HyperNode writes;
//   - how long after the ConfigMap change the hold was reported;
//   - the time from the ResourceFlavor's deletion (Kueue lets go) to the new
//     Kueue Topology being stored, and to the last dropped label removed;
//   - any moment a Topology of ours named a label a Node lacked (must be none).
//
// Run with: node --import tsx scripts/bench-topology-level-change.ts [nodes=2000] [qps=50] [burst=100]
// (build dist/ first: node scripts/build.mjs). It prints; it never fails on a figure.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINARY as binary } from '../testing/executables.ts';
import {
  KAI_TOPOLOGY_CRD_FILE,
  KUEUE_RESOURCE_FLAVOR_CRD_FILE,
  KUEUE_TOPOLOGY_CRD_FILE,
  startApiServer,
  type Obj,
  type RequestRecord,
} from '../testing/apiserver/index.ts';
import { nodeLabelOverlayRules } from '../testing/component-rbac.ts';
import { RACK_LABEL, SPINE_LABEL, ZONE_LABEL, discoveryConfigMap } from '../testing/sample-cluster.ts';
import { waitFor } from '../testing/wait.ts';
import { benchNodes } from './lib/bench-cluster.ts';
import { NAMESPACE, SERVICE_ACCOUNT, launchController } from './lib/bench-launch.ts';

const PREFIX = 'topo.example.com';
const KUEUE = 'topologies.kueue.x-k8s.io';
const KAI = 'topologies.kai.scheduler';
const NAME = 'hypernode-label';
const TIMEOUT_MS = 600_000;

function config(labels: string[]): string {
  const levels = [...labels, 'kubernetes.io/hostname'].map((k) => `          - nodeLabel: "${k}"\n`).join('');
  return `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    exports:\n      nodeLabels: {prefix: ${PREFIX}}\n      kueueTopology: true\n      kaiTopology: true\n    config:\n      networkTopologyTypes:\n        datacenter:\n${levels}`;
}

const levelsOf = (o: Obj | undefined): string[] | undefined =>
  o?.spec.levels.map((l: { nodeLabel: string }) => l.nodeLabel);

async function main(): Promise<void> {
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`node scripts/build.mjs\` first`);
  const [count = 2_000, qps = 50, burst = 100] = process.argv.slice(2).map(Number);
  const nodesPerRack = 20;
  const racks = Math.max(1, Math.round(count / nodesPerRack));
  const nodes = benchNodes({
    zones: Math.max(1, Math.round(racks / 50)),
    spinesPerZone: 5,
    racksPerSpine: 10,
    nodesPerRack,
  });
  const api = await startApiServer({
    namespaces: [NAMESPACE],
    extraCrds: [KUEUE_TOPOLOGY_CRD_FILE, KUEUE_RESOURCE_FLAVOR_CRD_FILE, KAI_TOPOLOGY_CRD_FILE],
  });
  api.startKueueTopologyController();
  const work = mkdtempSync(join(tmpdir(), 'bench-topology-levels-'));
  let stop: (() => Promise<unknown>) | undefined;
  try {
    for (const n of nodes) api.store.create(n);
    api.store.create(discoveryConfigMap(NAMESPACE, config([ZONE_LABEL, SPINE_LABEL, RACK_LABEL])));
    const { controller: c } = await launchController(
      api,
      work,
      binary,
      { qps, burst },
      { rules: nodeLabelOverlayRules() },
    );
    stop = () => c.stop();
    const wait = (what: string, ok: () => boolean, intervalMs = 20) =>
      waitFor(() => c.exitCode === null && ok(), { timeoutMs: TIMEOUT_MS, intervalMs, what });
    await wait(
      'both Topology objects written and held by Kueue',
      () =>
        levelsOf(api.store.get(KAI, NAME))?.length === 4 && api.store.get(KUEUE, NAME)?.metadata.finalizers?.length > 0,
      200,
    );
    api.store.create({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ResourceFlavor',
      metadata: { name: 'tas' },
      spec: { nodeLabels: { pool: 'gpu' }, topologyName: NAME },
    });

    // Every stored state of Nodes and Topology objects checked: no Topology of ours may name a label a Node lacks.
    let violations = 0;
    let nodeLabelsLacking = new Set<string>();
    const check = () => {
      for (const resource of [KUEUE, KAI]) {
        const keys = (levelsOf(api.store.get(resource, NAME)) ?? []).filter((k) => k !== 'kubernetes.io/hostname');
        if (keys.some((k) => nodeLabelsLacking.has(k))) violations++;
      }
    };
    const zoneKey = `${PREFIX}/zone`;
    const lacking = new Set<string>();
    const stops = [
      api.onStoreChange('nodes', (n, deleted) => {
        if (deleted || n.metadata.labels?.[zoneKey] !== undefined) lacking.delete(n.metadata.name);
        else lacking.add(n.metadata.name);
        nodeLabelsLacking = lacking.size > 0 ? new Set([zoneKey]) : new Set();
        check();
      }),
      api.onStoreChange(KUEUE, check),
      api.onStoreChange(KAI, check),
    ];

    const from = api.requests.all().length;
    const changedAt = performance.now();
    const cm = api.store.get('configmaps', 'volcano-controller-configmap', NAMESPACE)!;
    api.store.update({ ...cm, data: { 'volcano-controller.conf': config([SPINE_LABEL, RACK_LABEL]) } });
    await wait('the hold reported', () =>
      /is being deleted, held by finalizer kueue\.x-k8s\.io\/resource-in-use/.test(c.log),
    );
    const heldAfterMs = performance.now() - changedAt;

    let madeAt = 0;
    const madeStop = api.onStoreChange(KUEUE, (t, deleted) => {
      if (!deleted && t.metadata.deletionTimestamp === undefined && levelsOf(t)?.length === 3)
        madeAt ||= performance.now();
    });
    const releasedAt = performance.now();
    api.store.delete('resourceflavors.kueue.x-k8s.io', 'tas');
    await wait('the new Kueue Topology', () => madeAt > 0, 5);
    await wait(
      'the zone label removed from every Node',
      () => api.store.list('nodes').every((n) => n.metadata.labels?.[zoneKey] === undefined),
      50,
    );
    const labelsGoneMs = performance.now() - releasedAt;
    madeStop();
    for (const s of stops) s();

    const writes = api.requests
      .all()
      .slice(from)
      .filter(
        (r: RequestRecord) =>
          r.user === SERVICE_ACCOUNT &&
          ['create', 'update', 'patch', 'delete'].includes(r.verb) &&
          r.resource !== 'events' &&
          r.resource !== 'leases',
      );
    const byKind = new Map<string, number>();
    const group = (r: RequestRecord) =>
      r.path.includes('/kai.scheduler/') ? ' (KAI)' : r.path.includes('/kueue.x-k8s.io/') ? ' (Kueue)' : '';
    for (const r of writes) {
      const key = `${r.verb} ${r.resource}${group(r)}`;
      byKind.set(key, (byKind.get(key) ?? 0) + 1);
    }
    console.log(`level change (zone dropped) on ${nodes.length} Nodes, client limit qps ${qps} / burst ${burst}:`);
    console.log(`  writes: ${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ')}`);
    console.log(`  hold reported ${heldAfterMs.toFixed(0)} ms after the ConfigMap change`);
    console.log(`  ResourceFlavor deleted -> new Kueue Topology stored: ${(madeAt - releasedAt).toFixed(0)} ms`);
    console.log(
      `  ResourceFlavor deleted -> the dropped level's label gone from every Node: ${labelsGoneMs.toFixed(0)} ms`,
    );
    console.log(`  states where a Topology of ours named a label a Node lacked: ${violations}`);
  } finally {
    await stop?.();
    await api.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
