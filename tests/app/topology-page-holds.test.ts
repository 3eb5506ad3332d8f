// The topology page (/debug/topology) says what the label memory holds
// (docs/health.md, "Label memory"): each held Node with its missing keys,
// since when and when it moves, as a note of the HTML view and as
// `heldNodes` of the JSON form, beside the tree as kept.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topologyJson } from '../../src/app/topology-page.ts';
import { renderTopologyPage } from '../../src/app/topology-page-html.ts';
import { buildMembers, buildWithTierName } from '../../src/hypernode/model/hypernode-builders.ts';
import type { TopologyState } from '../../src/hypernode/reconcile/topology-state.ts';
import { viewData } from '../../testing/view-page.ts';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const STATE: TopologyState = {
  running: true,
  sources: [
    {
      source: 'ufm',
      desired: [
        buildWithTierName('gb200-nvl-domain-a', 1, 'nvl-domain', buildMembers(['tray-0', 'tray-1'], 'Node'), {}),
      ],
      heldDeletes: [],
      heldNodes: [{ node: 'tray-0', keys: ['nvidia.com/gpu.clique'], since: T0, until: T0 + 30 * 60_000 }],
    },
  ],
};

test('a held Node is a note of the view and an entry of the JSON form, with its keys, since when and when it moves', () => {
  const notes = viewData(renderTopologyPage(STATE, T0, [])).notes;
  assert.ok(
    notes.includes(
      'Source ufm: 1 Nodes kept in place while labels that place them are missing (health.labelGracePeriod):',
    ),
    notes.join('\n'),
  );
  assert.ok(
    notes.includes(
      '- tray-0: nvidia.com/gpu.clique missing since 2026-12-01T10:00:00.000Z, moves at 2026-12-01T10:30:00.000Z',
    ),
    notes.join('\n'),
  );
  const json = JSON.parse(topologyJson(STATE, T0)) as { sources: { heldNodes: unknown }[] };
  assert.equal(json.sources[0]!.heldNodes, [
    {
      node: 'tray-0',
      keys: ['nvidia.com/gpu.clique'],
      since: '2026-12-01T10:00:00.000Z',
      until: '2026-12-01T10:30:00.000Z',
    },
  ]);
});

test.run();
