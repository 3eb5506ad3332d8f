// The plan's field-level diff, decided by the controller's own reconciler and
// status writer's nodeCount over in-memory caches: an update shows the tier, the members
// added and removed, labels added and changed (never removed: the controller
// keeps labels it did not set), and the nodeCount the status writer would
// write; an object already in line is not in the plan; a name another source
// owns is a warning, not a change; deletes the mass-delete guard holds are
// listed as held, with the guard's warning, and the run summary Event is no
// warning.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DiscovererFactory, Snapshot } from '../../src/hypernode/model/contracts.ts';
import type { DiscoveredHyperNode, HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { parseConfig } from '../../src/hypernode/config/loader.ts';
import { newDiscovererRegistry } from '../../src/hypernode/discovery/registry.ts';
import { planChanges } from '../../src/hypernode/preview/cluster-plan.ts';
import { formatPlanText } from '../../src/cmd/plan-output.ts';
import { createLogger } from '../../src/log.ts';
import { Channel } from '../../src/util/channel.ts';
import { discoveryYaml } from '../support/controller-fixtures.ts';

const SOURCE = 'fixed';
const SOURCE_LABEL = 'volcano.sh/network-topology-source';

/** A source whose first (and only) snapshot is `snapshot`. */
function fixedSource(snapshot: Snapshot): DiscovererFactory {
  return async () => {
    const out = new Channel<Snapshot>(1);
    void out.send(snapshot);
    return { start: async () => out, stop: async () => out.close(), name: () => SOURCE, resultSynced() {} };
  };
}

const hn = (
  name: string,
  tier: number,
  members: string[],
  labels: Record<string, string>,
  nodeCount?: number,
): DiscoveredHyperNode => ({
  apiVersion: 'topology.volcano.sh/v1alpha1',
  kind: 'HyperNode',
  metadata: { name, labels, resourceVersion: '7', uid: `uid-${name}` },
  spec: {
    tier,
    tierName: 'rack',
    members: members.map((n) => ({ type: 'Node', selector: { exactMatch: { name: n } } })),
  },
  ...(nodeCount ? { status: { nodeCount } } : {}),
});

function planFor(snapshot: Snapshot, existing: HyperNode[]) {
  const nodes = ['node0', 'node1', 'node2', 'node3'].map((name) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
  }));
  return planChanges(
    { config: parseConfig(discoveryYaml([{ source: SOURCE }])), nodes, existing },
    {
      registry: newDiscovererRegistry({ [SOURCE]: fixedSource(snapshot) }),
      secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no Secrets')) },
      logger: createLogger({ verbosity: 0 }),
    },
  );
}

test('an update shows tier, members added and removed, labels added and changed (kept ones untouched) and the new nodeCount', async () => {
  const current = hn('rack-a', 1, ['node0', 'node1'], { [SOURCE_LABEL]: SOURCE, zone: 'z1', keep: 'x' }, 2);
  const plan = await planFor([hn('rack-a', 2, ['node0', 'node2', 'node3'], { zone: 'z2', team: 'new' })], [current]);
  assert.equal(plan.warnings, []);
  assert.is(plan.changes.length, 1);
  const [change] = plan.changes;
  assert.equal([change!.action, change!.source, change!.name], ['update', SOURCE, 'rack-a']);
  assert.equal(change!.diff, {
    tier: { from: 1, to: 2 },
    members: { added: ['node2', 'node3'], removed: ['node1'] },
    labels: { added: { team: 'new' }, removed: {}, changed: { zone: { from: 'z1', to: 'z2' } } },
    nodeCount: { from: 2, to: 3 },
  });
  assert.equal(change!.object!.metadata.labels, { [SOURCE_LABEL]: SOURCE, zone: 'z2', keep: 'x', team: 'new' });
  assert.is(
    formatPlanText(plan),
    [
      `source "${SOURCE}":`,
      '  ~ rack-a',
      '      tier: 1 → 2',
      '      members: +node2 +node3 -node1',
      '      labels: +team=new ~zone=z1→z2',
      '      nodeCount: 2 → 3',
      '',
      'Plan: 0 to create, 1 to update, 0 to delete.',
      '',
    ].join('\n'),
  );
});

test('an object already in line is not in the plan; a name owned by another source is a warning, not a change', async () => {
  const inLine = hn('rack-a', 1, ['node0', 'node1'], { [SOURCE_LABEL]: SOURCE }, 2);
  const foreign = hn('rack-b', 1, ['node2'], { [SOURCE_LABEL]: 'ufm' }, 1);
  const plan = await planFor(
    [hn('rack-a', 1, ['node0', 'node1'], {}), hn('rack-b', 1, ['node2', 'node3'], {})],
    [inLine, foreign],
  );
  assert.equal(plan.changes, []);
  assert.equal(plan.warnings, [
    `HyperNode rack-b is owned by discovery source "ufm"; source "${SOURCE}" also describes it and leaves it alone`,
  ]);
});

test('deletes the guard holds are listed as held, with its warning and no other: 12 of 20 owned objects going, 50 % allowed', async () => {
  const rack = (i: number, labels: Record<string, string>, nodeCount?: number) =>
    hn(`rack-${String(i).padStart(2, '0')}`, 1, [`n${i}`], labels, nodeCount);
  // In line with the snapshot (an exactMatch member counts as one Node), so only the deletes are left.
  const existing = Array.from({ length: 20 }, (_, i) => rack(i, { [SOURCE_LABEL]: SOURCE }, 1));
  const plan = await planFor(
    Array.from({ length: 8 }, (_, i) => rack(i, {})),
    existing,
  );
  const heldNames = existing.slice(8).map((e) => e.metadata.name);
  assert.equal(
    plan.changes.map((c) => [c.action, c.source, c.name, c.held]),
    heldNames.map((name) => ['delete', SOURCE, name, true]),
  );
  assert.equal(plan.changes[0]!.diff.members, { added: [], removed: ['n8'] });
  assert.is(plan.warnings.length, 1);
  assert.match(plan.warnings[0]!, `Discovery source "${SOURCE}" would delete 12 of the 20 HyperNodes it owns (60%)`);
  assert.is(
    formatPlanText(plan),
    [
      `source "${SOURCE}":`,
      ...heldNames.map((name) => `  - ${name} (held)`),
      '',
      'Plan: 0 to create, 0 to update, 0 to delete, 12 held.',
      '',
    ].join('\n'),
  );
});

test.run();
