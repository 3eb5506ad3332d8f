/// <reference lib="dom" />
// The HTML view marks the Nodes that carry the controller's fabric taint
// (health.taint; src/hypernode/exports/view/fabric-taint-marks.ts): `render`
// reads the record and the taints of each Node in its Node file and marks a
// Node only when both are there, alike; a plan marks the Nodes by their
// records and what it would change. In Chromium (skipped, visibly, where it
// is missing) a marked Node's cell is drawn in the taint's colour, its
// tooltip and its entry in the tree list name the taint's source and fabric,
// a counted cell says how many of its Nodes carry it, and the legend counts
// them; no other Node is marked. A page without the taint carries nothing of
// it.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { render } from '../../../../src/cmd/render.ts';
import { FABRIC_TAINT_ANNOTATION } from '../../../../src/hypernode/model/hypernode-labels.ts';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { planDrawing, type Plan } from '../../../../src/hypernode/preview/cluster-plan.ts';
import { planView, topologyView } from '../../../../src/hypernode/exports/view/topology-model.ts';
import type { FabricTaint } from '../../../../src/hypernode/reconcile/health/fabric-taints.ts';
import { launchChromium, missingChromium, openPage, waitUntilDrawn } from '../../../../testing/browser.ts';
import { viewData } from '../../../../testing/view-page.ts';
import {
  DEMO_SHAPE,
  SAMPLE_DISCOVERY_CONFIG,
  sampleNodes,
  type SampleShape,
} from '../../../../testing/sample-cluster.ts';
import { testNeeding } from '../../../support/skip.ts';

const browserTest = testNeeding(missingChromium());
const KEY = 'topology.volcano.sh/fabric-unreachable';
const GPU = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
const ours = (value: string, effect = 'NoSchedule'): FabricTaint => ({ key: KEY, value, effect });
const text = (t: FabricTaint) => `${t.key}=${t.value}:${t.effect}`;

let dir = '';
let browser: Browser | undefined;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hn-taint-marks-'));
  if (missingChromium() === undefined) browser = await launchChromium();
});
test.after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The sample Nodes as `kubectl get nodes -o json` lists them, some with taints: the sixth and seventh (node-05 and
 * node-06 of the demo) carry ours (record and taint), the eighth only the record (its taint removed by hand), the
 * ninth our key without a record, the tenth a record naming another effect than its taint's, the eleventh a device
 * plugin's taint.
 */
function nodeFile(shape: SampleShape): string {
  const extra: { record?: string; taints: object[] }[] = [];
  extra[5] = { record: text(ours('ufm.pod-a')), taints: [GPU, ours('ufm.pod-a')] };
  extra[6] = { record: text(ours('lldp', 'PreferNoSchedule')), taints: [ours('lldp', 'PreferNoSchedule')] };
  extra[7] = { record: text(ours('ufm.pod-a')), taints: [GPU] };
  extra[8] = { taints: [ours('ufm.pod-a')] };
  extra[9] = { record: text(ours('ufm.pod-a')), taints: [ours('ufm.pod-a', 'PreferNoSchedule')] };
  extra[10] = { taints: [GPU] };
  const items = sampleNodes(shape).map((n, i) => {
    const more = extra[i];
    if (!more) return n;
    const annotations = more.record ? { [FABRIC_TAINT_ANNOTATION]: more.record } : {};
    return { ...n, metadata: { ...n.metadata, annotations }, spec: { taints: more.taints } };
  });
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

async function renderPage(name: string, shape: SampleShape): Promise<{ html: string; path: string }> {
  const config = join(dir, 'config.yaml');
  const nodes = join(dir, `${name}-nodes.json`);
  writeFileSync(config, SAMPLE_DISCOVERY_CONFIG);
  writeFileSync(nodes, nodeFile(shape));
  const out = await render(['--config', config, '--nodes', nodes, '-o', 'html'], 'x');
  assert.is(out.code, 0, out.stderr);
  const path = join(dir, `${name}.html`);
  writeFileSync(path, out.stdout);
  return { html: out.stdout, path };
}

const MARKED = [
  { node: 'node-05', taint: text(ours('ufm.pod-a')), source: 'ufm', fabric: 'pod-a' },
  { node: 'node-06', taint: text(ours('lldp', 'PreferNoSchedule')), source: 'lldp' },
];

test("render marks exactly the Nodes whose record and that taint are both on them, with the taint's source and fabric", async () => {
  const { html } = await renderPage('demo', DEMO_SHAPE);
  assert.equal(viewData(html).fabricTaints, MARKED);
});

test('a view of Nodes without the taint carries nothing of it', () => {
  const view = topologyView('t', [], [], { fabricTaints: new Map([['not-drawn', ours('ufm.pod-a')]]) });
  assert.not.ok('fabricTaints' in view, 'a tainted Node the view does not draw is not listed');
});

test('a plan marks the Nodes by their records, with the taints it would add, rewrite and remove', () => {
  const member = (name: string) => ({ type: 'Node' as const, selector: { exactMatch: { name } } });
  const rack: HyperNode = {
    metadata: { name: 'rack', labels: { 'volcano.sh/network-topology-source': 'ufm' } },
    spec: { tier: 1, members: ['n1', 'n2', 'n3', 'n4'].map(member) },
  };
  const withRecord = (name: string, t?: FabricTaint) => ({
    metadata: { name, ...(t ? { annotations: { [FABRIC_TAINT_ANNOTATION]: text(t) } } : {}) },
  });
  const plan: Plan = {
    changes: [],
    warnings: [],
    nodeLabels: [],
    nodeLabelsHeld: 0,
    nodeLabelsOff: [],
    topologies: [],
    labelHolds: [],
    taints: [
      { node: 'n2', to: ours('ufm.pod-a'), reason: 'cut off' },
      { node: 'n3', from: ours('ufm.pod-a'), reason: 'link back' },
      { node: 'n4', from: ours('ufm.pod-a'), to: ours('ufm.pod-a', 'PreferNoSchedule'), reason: 'settings changed' },
    ],
  };
  const nodes = [
    withRecord('n1', ours('ufm.pod-b')),
    withRecord('n2'),
    withRecord('n3', ours('ufm.pod-a')),
    withRecord('n4', ours('ufm.pod-a')),
  ];
  const view = planView('plan', planDrawing(plan), [rack], nodes);
  assert.equal(
    view.fabricTaints?.map((t) => [t.node, t.taint, t.change]),
    [
      ['n1', text(ours('ufm.pod-b')), undefined],
      ['n2', text(ours('ufm.pod-a')), 'add'],
      ['n3', text(ours('ufm.pod-a')), 'remove'],
      ['n4', text(ours('ufm.pod-a', 'PreferNoSchedule')), 'change'],
    ],
  );
});

const tipOf = async (page: Page, selector: string) => {
  await page.hover(selector);
  return (await page.textContent('#tip')) ?? '';
};

browserTest(
  'the page draws the tainted Nodes in their colour, names source and fabric on hover and in the list, and counts them in the legend',
  async () => {
    const { path } = await renderPage('demo', DEMO_SHAPE);
    const { page, errors, requests } = await openPage(browser!, path, { width: 1400, height: 900 });
    await waitUntilDrawn(page);
    const cells = await page.$$eval('#icicle rect.nd', (rs) =>
      rs.map((r) => ({
        node: (r as SVGRectElement).dataset.node!,
        tainted: r.classList.contains('tainted'),
        fill: getComputedStyle(r).fill,
      })),
    );
    assert.is(cells.length, 64, 'a cell per Node');
    assert.equal(
      cells.filter((c) => c.tainted).map((c) => c.node),
      ['node-05', 'node-06'],
    );
    const fills = new Set(cells.filter((c) => !c.tainted).map((c) => c.fill));
    assert.ok(!fills.has(cells.find((c) => c.tainted)!.fill), 'the taint has a colour of its own');

    const tip = await tipOf(page, '#icicle rect.nd[data-node="node-05"]');
    assert.match(tip, `fabric taint ${text(ours('ufm.pod-a'))}`);
    assert.match(tip, 'every link of its host on fabric pod-a of source ufm missing');
    assert.match(await tipOf(page, '#icicle rect.nd[data-node="node-06"]'), 'on source lldp missing');
    assert.not.match(await tipOf(page, '#icicle rect.nd[data-node="node-07"]'), 'fabric taint');

    const legend = await page.$eval('#legend [data-kind="tainted"]', (e) => [e.textContent, (e as HTMLElement).title]);
    assert.is(legend[0], 'fabric taint 2');
    assert.match(legend[1]!, 'health.taint');

    // The rack holding node-05, opened in the list: its entry is marked, the taint in its tooltip.
    await page.fill('#q', 'node-05');
    await page.press('#q', 'Enter');
    await page.waitForFunction(() => document.documentElement.dataset.searched === 'node-05');
    const listed = await page.$$eval('.nodes span.tainted', (ss) =>
      ss.map((s) => [s.textContent, (s as HTMLElement).title]),
    );
    assert.equal(
      listed.map(([name]) => name),
      ['node-05', 'node-06'],
    );
    assert.match(listed[0]![1]!, 'fabric pod-a of source ufm');
    assert.match((await page.textContent('#details')) ?? '', 'fabric taint2: node-05, node-06');
    assert.equal([errors, requests], [[], []]);
    await page.close();
  },
);

browserTest('a counted cell holding a tainted Node is drawn in the taint’s colour and says how many', async () => {
  const { path } = await renderPage('many', { zones: 2, spinesPerZone: 4, racksPerSpine: 8, nodesPerRack: 16 });
  const { page, errors } = await openPage(browser!, path);
  await waitUntilDrawn(page);
  const counted = await page.$$eval('#icicle rect.nd.agg.tainted', (rs) =>
    rs.map((r) => (r as SVGRectElement).dataset.h),
  );
  assert.is(counted.length, 1, 'node-05 and node-06 share the first rack');
  const tip = await tipOf(page, `#icicle rect.nd.agg[data-h="${counted[0]}"]`);
  assert.match(tip, '2 of them with the fabric taint');
  assert.equal(errors, []);
  await page.close();
});

test.run();
