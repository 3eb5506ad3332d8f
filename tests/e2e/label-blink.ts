// What the label memory's end-to-end tests share (docs/health.md, "Label
// memory"): a rolling blink as a GPU DRA driver or GPU Operator upgrade does
// it (a label removed Node by Node, each back once the controller saw it
// gone), the writes the controller sent in a window, by kind (HyperNode
// spec writes, status writes, Node label patches, Topology writes), and the
// wait until the topology and every export of it have settled.

import * as assert from 'uvu/assert';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { CONTROLLER_USER, answeredHyperNodeWrites, hyperNodes, nodeCountsSettled, setNodeLabels } from './cluster.ts';
import type { Session } from './session.ts';

export const LABELS_PRESENT = 'TopologyLabelsPresent';

const labelsPresent = (hn: HyperNode) => hn.status?.conditions?.find((c) => c.type === LABELS_PRESENT);

/** The HyperNode whose TopologyLabelsPresent=False names `node` as kept in place, if any. */
export function heldOn(api: ApiServer, node: string): HyperNode | undefined {
  return hyperNodes(api).find((hn) => {
    const c = labelsPresent(hn);
    return c?.status === 'False' && new RegExp(`(: |, )${node.replaceAll('.', '\\.')} \\(`).test(c.message);
  });
}

/** The controller's writes since the log was cleared, by kind. */
export function controllerWrites(api: ApiServer) {
  const mine = api.requests.writes((r) => r.user === CONTROLLER_USER);
  const hn = mine.filter((r) => r.resource === 'hypernodes');
  return {
    /** Creates, updates and deletes of HyperNodes (`verb name`), sorted. */
    spec: hn
      .filter((r) => r.subresource !== 'status')
      .map((r) => `${r.verb} ${r.name || '<new>'}`)
      .sort(),
    status: hn.filter((r) => r.subresource === 'status').length,
    /** Node label patches (`patch node`), sorted. */
    nodePatches: mine
      .filter((r) => r.resource === 'nodes')
      .map((r) => `${r.verb} ${r.name}`)
      .sort(),
    topologies: mine.filter((r) => r.resource === 'topologies').map((r) => `${r.verb} ${r.name || '<new>'}`),
  };
}

/** Asserts a window wrote status conditions only: no HyperNode spec write, no Node label patch, no Topology write. */
export function assertOnlyConditions(api: ApiServer, what: string): void {
  const w = controllerWrites(api);
  assert.equal(
    { spec: w.spec, nodePatches: w.nodePatches, topologies: w.topologies },
    { spec: [], nodePatches: [], topologies: [] },
    `${what}: only status conditions are written`,
  );
  assert.ok(w.status > 0, `${what}: the conditions said it (${w.status} status writes)`);
}

/**
 * Every HyperNode of `source` carries TopologyLabelsPresent judged at its generation, every count is settled,
 * `exported` holds (the Node labels and Topology objects are there) and every write is answered.
 */
export async function settled(
  s: Session,
  api: ApiServer,
  source: string,
  exported: () => boolean = () => true,
): Promise<void> {
  const judged = (hn: HyperNode) => {
    const c = labelsPresent(hn);
    return c !== undefined && c.observedGeneration === hn.metadata.generation;
  };
  await s.converge(
    () =>
      (hyperNodes(api, source).length > 0 &&
        hyperNodes(api, source).every(judged) &&
        nodeCountsSettled(api) &&
        exported()) ||
      undefined,
    `the ${source} topology and its exports settled`,
  );
  await answeredHyperNodeWrites(api);
}

/**
 * A rolling blink of `key` over `nodes`: each Node loses the label, the
 * controller says it keeps the Node in place (TopologyLabelsPresent=False
 * naming it), the label comes back, the condition clears; then the next Node.
 */
export async function rollingBlink(s: Session, api: ApiServer, nodes: readonly string[], key: string): Promise<void> {
  for (const node of nodes) {
    const value = (api.store.get('nodes', node) as { metadata: { labels: Record<string, string> } }).metadata.labels[
      key
    ];
    assert.ok(value !== undefined, `${node} carries ${key}`);
    setNodeLabels(api, node, { [key]: undefined });
    await s.converge(() => heldOn(api, node), `${node} kept in place without ${key}`);
    setNodeLabels(api, node, { [key]: value });
    await s.converge(() => !heldOn(api, node), `${node} with ${key} again`);
  }
  await answeredHyperNodeWrites(api);
}
