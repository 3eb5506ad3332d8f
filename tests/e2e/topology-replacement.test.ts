// A Topology object of ours is replaced only when its replacement can be
// written at once, end to end against the API server stand-in (Kueue's
// finalizer controller running, KAI deleting nothing itself). A level added
// while its Node label cannot yet be written: the store is sampled at every
// write of anyone (Nodes, both kinds of Topology, HyperNodes, the ConfigMap,
// Events), and in every sampled state
// in which a Node lacks the new level's label both objects exist with their
// old levels; the wait is logged, filed as an Event and shown by `plan`; once the labels are
// written each object is replaced once (its delete and its create one step
// apart) and carries the new levels. A rejected snapshot: turning the exports
// off, or changing the levels (another prefix), while the source's snapshot is rejected
// touches neither object, says why (the log, an Event, and `plan`, which
// refuses to plan the source and says what stays), and takes effect once a
// snapshot is accepted again.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../src/cmd/plan.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import { CLUSTER, CONTROLLER_USER, NS, RACK, setDiscoveryConfig } from './cluster.ts';
import { session } from './session.ts';
import {
  BOTH_EXPORTS,
  config,
  HOST,
  KAI,
  KUEUE,
  levels,
  PREFIX,
  startTopologyCluster,
  topo,
  topologyWrites,
} from './topology-cluster.ts';

const s = session(test);
const NEW_LABEL = `${PREFIX}/hypercluster`;
const OLD = [`${PREFIX}/hypernode`, HOST].join();
const NEW = [NEW_LABEL, `${PREFIX}/hypernode`, HOST].join();

/**
 * What one sampled state holds: each kind's levels (undefined when absent) and how many Nodes lack the new level's
 * label.
 */
interface Sample {
  kueue: string | undefined;
  kai: string | undefined;
  lacking: number;
}

/**
 * Samples the store at every write anyone makes (Nodes, both kinds of Topology, HyperNodes, the ConfigMap, Events);
 * returns the samples and the stop.
 */
function sampleEveryWrite(api: ApiServer): { samples: Sample[]; stop: () => void } {
  const samples: Sample[] = [];
  const take = () =>
    samples.push({
      kueue: levels(api, KUEUE)?.join(),
      kai: levels(api, KAI)?.join(),
      lacking: api.store.list('nodes').filter((n) => n.metadata.labels?.[NEW_LABEL] === undefined).length,
    });
  const stops = ['nodes', KUEUE, KAI, 'hypernodes', 'configmaps', 'events'].map((r) => api.onStoreChange(r, take));
  return { samples, stop: () => stops.forEach((stop) => stop()) };
}

test('a level added before its Node label can be written: both Topology objects exist in every sampled state until the labels are on the Nodes, then carry the new level', async () => {
  const api = await startTopologyCluster(s, config(BOTH_EXPORTS, [RACK]), true, {}, false);
  api.startKueueTopologyController();
  s.controller = startControllerInProcess({ kubeconfig: s.cluster!.kubeconfig, namespace: NS });
  await s.converge(
    () =>
      levels(api, KUEUE)?.join() === OLD &&
      levels(api, KAI)?.join() === OLD &&
      topo(api, KUEUE)!.metadata.finalizers?.length,
    'both written, Kueue holding its own',
  );
  const { samples, stop } = sampleEveryWrite(api);
  try {
    // The controller's label patches fail until released: the new level's label cannot reach the Nodes.
    api.failNext(1_000_000, { code: 500, match: { resource: 'nodes', verb: 'patch', user: CONTROLLER_USER } });
    const writesBefore = topologyWrites(api).length;
    setDiscoveryConfig(api, config(BOTH_EXPORTS, [CLUSTER, RACK]));
    const waits = (kind: string) =>
      `${kind} Topology hypernode-label of discovery source "label" waits for the Node labels its new levels ${NEW} name (8 Nodes not yet labelled); once they are written it is deleted and created again with them at once; until then it stays with its levels ${OLD}\n`;
    await s.converge(
      () => s.log().includes(waits('Kueue')) && s.log().includes(waits('KAI')),
      'the wait said, for both kinds',
    );
    await s.converge(
      () =>
        api.store
          .list('events', NS)
          .filter((e) => e.reason === 'TopologyChangeWaiting' && e.message.includes('its new levels')).length === 2,
      'the wait filed as an Event per kind',
    );
    assert.is(topologyWrites(api).length, writesBefore, 'no Topology write while the label is missing');
    assert.equal([levels(api, KUEUE)?.join(), levels(api, KAI)?.join()], [OLD, OLD]);
    const dir = mkdtempSync(join(tmpdir(), 'hn-plan-waits-'));
    try {
      const planned = await plan([`--kubeconfig=${api.writeKubeconfig(dir, { fileName: 'admin.yaml' })}`], 'x', {
        color: false,
        env: { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' },
      });
      assert.match(
        planned.stdout,
        `  -/+ Kueue Topology hypernode-label (source "label")\n      levels ${OLD.replaceAll(',', ', ')} -> ${NEW.replaceAll(',', ', ')} (levels are immutable: deleted and created)\n      1. the Node labels above are written first (8 Nodes); until then hypernode-label stays as it is\n      2. delete hypernode-label; it carries finalizer kueue.x-k8s.io/resource-in-use`,
        `plan says why the replace waits:\n${planned.stdout}${planned.stderr}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    api.clearFaults();
    await s.converge(
      () => levels(api, KUEUE)?.join() === NEW && levels(api, KAI)?.join() === NEW,
      'both replaced once the labels are written',
    );
  } finally {
    stop();
  }
  assert.ok(
    samples.some((x) => x.lacking === 8),
    'states without the label were sampled',
  );
  const gone = samples.filter((x) => x.lacking > 0 && (x.kueue !== OLD || x.kai !== OLD));
  assert.equal(gone, [], 'while a Node lacks the new label, both objects exist with their old levels');
  for (const kind of ['kueue', 'kai'] as const) {
    const absent = samples.map((x, i) => (x[kind] === undefined ? i : -1)).filter((i) => i >= 0);
    // Only the replacement itself: one run of states between the old object going and the new one being made.
    assert.ok(
      absent.every((i, j) => j === 0 || i === absent[j - 1]! + 1),
      `${kind}: absent in one run of states only (${absent.join(',')})`,
    );
    assert.is(samples.at(-1)![kind], NEW);
  }
  for (const group of ['kueue.x-k8s.io', 'kai.scheduler']) {
    assert.equal(
      topologyWrites(api)
        .filter((r) => r.path.includes(`/${group}/`))
        .slice(1)
        .map((r) => r.verb),
      ['delete', 'create'],
      `${group}: replaced once, by one delete and one create`,
    );
  }
});

test('while the snapshot is rejected, neither a change of levels (another label prefix) nor turning the exports off touches the Topology objects; the latter takes effect once a snapshot is accepted', async () => {
  const api = await startTopologyCluster(s, config(BOTH_EXPORTS));
  const FULL = [NEW_LABEL, `${PREFIX}/hypernode`, HOST].join();
  await s.converge(() => levels(api, KUEUE)?.join() === FULL && levels(api, KAI)?.join() === FULL, 'both written');
  const before = [topo(api, KUEUE)!.metadata.resourceVersion, topo(api, KAI)!.metadata.resourceVersion];
  const writes = topologyWrites(api).length;
  // node1 moves to cluster s5 while its rack s0 stays in s4: rack s0 would have two parents, which the rules refuse.
  const node1 = api.store.get('nodes', 'node1')!;
  api.store.update({
    ...node1,
    metadata: { ...node1.metadata, labels: { ...node1.metadata.labels, [CLUSTER]: 's5' } },
  });
  await s.converge(
    () => /Discovery snapshot rejected, nothing written for this source source="label"/.test(s.log()),
    'the snapshot rejected',
  );

  setDiscoveryConfig(api, config(BOTH_EXPORTS).replace(`prefix: ${PREFIX}`, 'prefix: other.example.com'));
  const levelsWait = (kind: string) =>
    new RegExp(
      `${kind} Topology hypernode-label of discovery source "label" is not replaced while the latest snapshot of "label" is rejected \\(parents: HyperNode .*\\); it changes once a snapshot of "label" is accepted; until then it stays with its levels ${FULL}\\n`,
    );
  await s.converge(() => levelsWait('Kueue').test(s.log()) && levelsWait('KAI').test(s.log()), 'the held replace said');

  setDiscoveryConfig(api, config(''));
  const offWait = (kind: string) =>
    new RegExp(
      `${kind} Topology hypernode-label of discovery source "label" is not deleted while the latest snapshot of "label" is rejected`,
    );
  await s.converge(() => offWait('Kueue').test(s.log()) && offWait('KAI').test(s.log()), 'the held delete said');
  await s.converge(
    () =>
      api.store
        .list('events', NS)
        .some(
          (e) => e.reason === 'TopologyChangeWaiting' && /is not deleted while the latest snapshot/.test(e.message),
        ),
    'filed as an Event',
  );
  assert.is(topologyWrites(api).length, writes, 'no Topology write while the snapshot is rejected');
  const dir = mkdtempSync(join(tmpdir(), 'hn-plan-rejected-'));
  try {
    const planned = await plan([`--kubeconfig=${api.writeKubeconfig(dir, { fileName: 'admin.yaml' })}`], 'x', {
      color: false,
      env: { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' },
    });
    assert.is(planned.code, 1);
    assert.match(
      planned.stderr,
      /parents: HyperNode .* a HyperNode has at most one parent\nThe controller refuses it whole: .* Kueue and KAI Topology objects stay as they are \(no Topology is replaced or deleted, even with its export turned off\) until a snapshot passes/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(
    [topo(api, KUEUE)?.metadata.resourceVersion, topo(api, KAI)?.metadata.resourceVersion],
    before,
    'both objects untouched',
  );

  api.store.update({ ...node1, metadata: { ...node1.metadata, resourceVersion: undefined } });
  await s.converge(
    () => levels(api, KUEUE) === undefined && levels(api, KAI) === undefined,
    'deleted once a snapshot is accepted, the exports being off',
  );
});

test.run();
