/// <reference lib="dom" />
// The HTML view (`render -o html`, `plan -o html`) in a real browser: Debian's
// Chromium, headless. The page opens from disk with no console error and no
// network request; the picture has exactly one rectangle per HyperNode; a
// search for a Node highlights exactly the HyperNodes that contain it, directly
// or through children, and a search for a HyperNode its own path. On the demo
// cluster at 1400×900 the cells say the label values (rack-1, not a hash name),
// the legend the tierNames, a row holds every Node under its rack, a search
// for node-13 highlights its cell and its rack, spine and zone, and the side
// panel never scrolls sideways; the keyboard moves and zooms; Nodes too narrow
// for a cell each are counted per rack; an empty topology draws and its keys
// raise no error; a fabric group shows its switch names. A plan shows
// creates, updates, deletes and held deletes each in its own colour, with the
// field-level diff on click. The label, fabric (UFM) and plan pictures are
// saved as screenshots: into docs/images/ when UPDATE_DOC_SCREENSHOTS=1, else into
// the test's temporary directory. Skipped, visibly, where Chromium is missing.
// (The DOM library above types the callbacks that run in the browser.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { render } from '../../../../src/cmd/render.ts';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { diffHyperNodes } from '../../../../src/hypernode/reconcile/hypernode-diff.ts';
import { planDrawing, type Plan, type PlannedChange } from '../../../../src/hypernode/preview/cluster-plan.ts';
import { topologyHtml } from '../../../../src/hypernode/exports/view/topology-html.ts';
import { planView, topologyView } from '../../../../src/hypernode/exports/view/topology-model.ts';
import { launchChromium, missingChromium, openPage, waitUntilDrawn } from '../../../../testing/browser.ts';
import { generateFatTree } from '../../../../testing/fat-tree.ts';
import { memberNames } from '../../../../testing/hypernode-members.ts';
import { drawnNames } from '../../../../testing/view-page.ts';
import {
  DEMO_SHAPE,
  RACK_LABEL,
  SAMPLE_DISCOVERY_CONFIG,
  SPINE_LABEL,
  ZONE_LABEL,
  sampleNodes,
} from '../../../../testing/sample-cluster.ts';
import { testNeeding } from '../../../support/skip.ts';

const browserTest = testNeeding(missingChromium());
const DOC_IMAGES = fileURLToPath(new URL('../../../../docs/images/', import.meta.url));
const SOURCE_LABEL = 'volcano.sh/network-topology-source';

let dir = '';
let browser: Browser | undefined;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hn-html-view-'));
  if (missingChromium() === undefined) browser = await launchChromium();
});
test.after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}
const nodeList = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

/** `render` with -o json and -o html over the same inputs: the objects, and the page's path. */
async function renderBoth(name: string, args: string[]): Promise<{ items: HyperNode[]; html: string }> {
  const json = await render([...args, '-o', 'json'], 'x');
  assert.is(json.code, 0, json.stderr);
  const html = await render([...args, '-o', 'html'], 'x');
  assert.is(html.code, 0, html.stderr);
  return { items: (JSON.parse(json.stdout) as { items: HyperNode[] }).items, html: write(`${name}.html`, html.stdout) };
}

const labelInputs = () => [
  '--config',
  write('label.yaml', SAMPLE_DISCOVERY_CONFIG),
  '--nodes',
  write('label-nodes.json', nodeList(sampleNodes(DEMO_SHAPE))),
];

/** The UFM capture of a fabric of four units of two rails, and what UFM calls each system (GUID → name). */
function fabricInputs(): { args: string[]; systemNames: Map<string, string> } {
  const tree = generateFatTree({ sus: 4, nodesPerSu: 4, rails: 2, tiers: 2, fabricId: 1 });
  const capture = join(dir, 'pod-a');
  mkdirSync(capture, { recursive: true });
  for (const f of ['ports', 'links', 'systems'] as const)
    writeFileSync(join(capture, `${f}.json`), JSON.stringify(tree[f]));
  const conf =
    'networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    config:\n      mode: fabric\n      fabrics:\n        - {name: pod-a, endpoint: "https://ufm-a"}\n';
  const nodes = tree.hosts.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } }));
  return {
    args: [
      '--config',
      write('fabric.yaml', conf),
      '--nodes',
      write('fabric-nodes.json', nodeList(nodes)),
      '--ufm-capture',
      `https://ufm-a=${capture}`,
    ],
    systemNames: new Map(tree.systems.map((s) => [String(s.guid), String(s.system_name)])),
  };
}

/** The names of the HyperNodes drawn highlighted. */
const highlighted = (page: Page) =>
  page.$$eval('#icicle rect.hn.hit', (rs) => rs.map((r) => (r as SVGRectElement).dataset.i!).map(Number));

const textOf = async (page: Page, selector: string) => (await page.textContent(selector)) ?? '';

async function searchFor(page: Page, query: string): Promise<string[]> {
  await page.fill('#q', query);
  await page.press('#q', 'Enter');
  await page.waitForFunction((q) => document.documentElement.dataset.searched === q, query);
  const names = await drawnNames(page);
  return (await highlighted(page)).map((i) => names[i]!).sort();
}

/** Every HyperNode holding `start` (a Node or HyperNode name) through its members, transitively. */
function containing(items: HyperNode[], start: string): string[] {
  const found = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const name = queue.pop()!;
    for (const hn of items) {
      if (!found.has(hn.metadata.name) && memberNames(hn).includes(name)) {
        found.add(hn.metadata.name);
        queue.push(hn.metadata.name);
      }
    }
  }
  return [...found].sort();
}

/** The legend's levels as it names them (the tierName's last segment), top first. */
const legendLevels = (page: Page) => page.$$eval('#legend .level', (ls) => ls.map((l) => l.textContent ?? ''));

/** Whether any of the side panel's boxes is wider inside than it shows (it would scroll sideways). */
const sidewaysOverflow = (page: Page) =>
  page.$$eval('#side, #side #details, #side #list', (es) =>
    es.filter((e) => e.scrollWidth > e.clientWidth).map((e) => `${e.id}: ${e.scrollWidth} > ${e.clientWidth}`),
  );

async function screenshot(page: Page, name: string): Promise<void> {
  const target = process.env.UPDATE_DOC_SCREENSHOTS === '1' ? DOC_IMAGES : dir;
  mkdirSync(target, { recursive: true });
  await page.screenshot({ path: join(target, name) });
}

browserTest('a label topology opens from disk without errors or requests, one rectangle per HyperNode', async () => {
  const { items, html } = await renderBoth('label', labelInputs());
  const { page, errors, requests } = await openPage(browser!, html);
  await waitUntilDrawn(page);
  assert.equal(errors, []);
  assert.equal(requests, []);
  const drawn = await page.$$eval('#icicle rect.hn', (rs) => rs.map((r) => (r as SVGRectElement).dataset.i));
  assert.is(drawn.length, items.length);
  assert.equal((await drawnNames(page)).sort(), items.map((hn) => hn.metadata.name).sort());
  // Every rectangle has an area: nothing is lost off-screen in the whole-topology picture.
  const widths = await page.$$eval('#icicle rect.hn', (rs) => rs.map((r) => Number(r.getAttribute('width'))));
  assert.ok(
    widths.every((w) => w > 0),
    `zero-width rectangles: ${widths.filter((w) => w <= 0).length}`,
  );
  await page.close();
});

browserTest(
  'a search for a Node highlights exactly the HyperNodes above it; a HyperNode its path; an unknown name says so',
  async () => {
    const { items, html } = await renderBoth('label', labelInputs());
    const { page, errors } = await openPage(browser!, html);
    await waitUntilDrawn(page);
    const node = sampleNodes(DEMO_SHAPE)[13]!.metadata.name;
    const expected = containing(items, node);
    assert.is(expected.length, 3, 'zone, spine and rack');
    assert.equal(await searchFor(page, node), expected);
    assert.match(await textOf(page, '#status'), `Node ${node}: in 1 HyperNode, 3 highlighted`);
    assert.is(await textOf(page, '.nodes mark'), node, 'the Node is marked in its rack in the list');
    assert.equal(await page.$$eval('summary.hit', (ss) => ss.length), 3, 'its path is open and marked in the list');
    await screenshot(page, 'view-label.png');

    const rack = items.find((hn) => hn.spec!.tier === 1)!.metadata.name;
    assert.equal(await searchFor(page, rack), [rack, ...containing(items, rack)].sort());
    assert.equal(await searchFor(page, 'node-nope'), []);
    assert.match(await textOf(page, '#status'), 'No Node or HyperNode is named “node-nope”');
    assert.equal(errors, []);
    await page.close();
  },
);

browserTest(
  'the demo cluster at 1400×900: cells say rack, spine and zone values, the legend the tierNames, a row holds every Node',
  async () => {
    const { items, html } = await renderBoth('label', labelInputs());
    const { page, errors, requests } = await openPage(browser!, html, { width: 1400, height: 900 });
    await waitUntilDrawn(page);
    const nodes = sampleNodes(DEMO_SHAPE);
    const names = await drawnNames(page);
    // Each leaf cell shows the rack label its Nodes carry, not the HyperNode's hash name.
    for (const rack of items.filter((hn) => hn.spec!.tier === 1)) {
      const member = nodes.find((n) => n.metadata.name === memberNames(rack)[0])!;
      const shown = await textOf(page, `#icicle text.name[data-i="${names.indexOf(rack.metadata.name)}"]`);
      assert.is(shown, member.metadata.labels[RACK_LABEL], rack.metadata.name);
    }
    const cellTexts = await page.$$eval('#icicle text', (ts) => ts.map((t) => t.textContent ?? ''));
    assert.equal(
      cellTexts.filter((t) => t.startsWith('hypernode-')),
      [],
      'no cell is labelled with a hash name',
    );
    // The legend names the levels by tierName, highest tier first, each with its label key and tier.
    assert.equal(await legendLevels(page), ['zone', 'hypercluster', 'hypernode']);
    const legend = await textOf(page, '#legend');
    for (const [key, tier] of [
      [ZONE_LABEL, 3],
      [SPINE_LABEL, 2],
      [RACK_LABEL, 1],
    ] as const)
      assert.match(legend, `${key} · tier ${tier}`);
    // The Node row holds every Node once, each under its own rack's cell.
    const row = await page.$$eval('#icicle rect.nd', (rs) =>
      rs.map((r) => ({
        node: (r as SVGRectElement).dataset.node ?? '',
        h: Number((r as SVGRectElement).dataset.h),
        x: Number(r.getAttribute('x')),
      })),
    );
    assert.equal(row.map((c) => c.node).sort(), nodes.map((n) => n.metadata.name).sort());
    for (const cell of row) {
      const rack = await page.$eval(`#icicle rect.hn[data-i="${cell.h}"]`, (r) => [
        Number(r.getAttribute('x')),
        Number(r.getAttribute('width')),
      ]);
      assert.ok(cell.x >= rack[0]! && cell.x < rack[0]! + rack[1]!, `${cell.node} lies under its rack`);
      assert.ok(
        memberNames(items.find((hn) => hn.metadata.name === names[cell.h])).includes(cell.node),
        `${cell.node} is a member of ${names[cell.h]}`,
      );
    }
    // Hovering a rack names it in full: HyperNode name, tier, source and counts.
    const rack1 = names.indexOf(items.find((hn) => hn.spec!.tier === 1)!.metadata.name);
    await page.hover(`#icicle rect.hn[data-i="${rack1}"]`);
    const tip = await textOf(page, '#tip');
    for (const part of [names[rack1]!, `tier 1 (${RACK_LABEL})`, 'label', '8 Nodes beneath']) assert.match(tip, part);
    assert.equal(await sidewaysOverflow(page), []);
    assert.equal([errors, requests], [[], []]);
    await page.close();
  },
);

browserTest(
  'searching node-13 highlights its cell in the Node row and its rack, spine and zone; the side panel never scrolls sideways',
  async () => {
    const { items, html } = await renderBoth('label', labelInputs());
    const { page, errors } = await openPage(browser!, html, { width: 1400, height: 900 });
    await waitUntilDrawn(page);
    const highlightedHyperNodes = await searchFor(page, 'node-13');
    const rack = items.find((hn) => memberNames(hn).includes('node-13'))!.metadata.name;
    assert.equal(highlightedHyperNodes, containing(items, 'node-13'));
    assert.equal(highlightedHyperNodes.length, 3, 'its rack and the rack’s two ancestors');
    assert.ok(highlightedHyperNodes.includes(rack));
    assert.equal(await page.$$eval('#icicle rect.nd.hit', (rs) => rs.map((r) => (r as SVGRectElement).dataset.node)), [
      'node-13',
    ]);
    assert.match(
      await textOf(page, '#status'),
      'node-13 ← rack-1 (hypernode) ← spine-0 (hypercluster) ← zone-0 (zone)',
    );
    assert.match(await textOf(page, '#details'), rack, 'the side panel shows the rack, with its full name');
    // Clicking another Node's cell finds that Node.
    await page.click('#icicle rect.nd[data-node="node-20"]');
    await page.waitForFunction(() => document.documentElement.dataset.searched === 'node-20');
    assert.equal(await page.$$eval('#icicle rect.nd.hit', (rs) => rs.map((r) => (r as SVGRectElement).dataset.node)), [
      'node-20',
    ]);
    await searchFor(page, 'node-13');
    assert.equal(await sidewaysOverflow(page), []);
    // Narrower still, the panel wraps and truncates rather than scrolling.
    await page.setViewportSize({ width: 900, height: 700 });
    await page.waitForFunction(() => document.getElementById('side')!.clientWidth < 400);
    assert.equal(await sidewaysOverflow(page), []);
    assert.equal(errors, []);
    await page.close();
  },
);

browserTest('the keyboard moves along the picture, Enter zooms into a subtree and Escape back out', async () => {
  const { html } = await renderBoth('label', labelInputs());
  const { page, errors } = await openPage(browser!, html);
  await waitUntilDrawn(page);
  const crumbs = () => page.$$eval('#crumbs .crumb', (bs) => bs.map((b) => b.textContent));
  const selected = () => textOf(page, '#details h2 .label');
  await page.focus('#icicle');
  await page.keyboard.press('ArrowRight');
  assert.is(await selected(), 'zone-0');
  await page.keyboard.press('ArrowDown');
  assert.is(await selected(), 'spine-0');
  await page.keyboard.press('ArrowRight');
  assert.is(await selected(), 'spine-1');
  await page.keyboard.press('Enter');
  assert.equal(await crumbs(), ['zone-0 (zone)', 'spine-1 (hypercluster)']);
  // Zoomed into spine-1: its two racks share the whole width, and spine-0's are out of the picture.
  const drawnCells = await page.$$eval('#icicle #labels text.name', (ts) => ts.map((t) => t.textContent).sort());
  assert.equal(drawnCells, ['rack-2', 'rack-3', 'spine-1', 'zone-0']);
  await page.keyboard.press('ArrowUp');
  assert.is(await selected(), 'zone-0');
  assert.equal(
    await crumbs(),
    ['zone-0 (zone)', 'spine-1 (hypercluster)'],
    'an ancestor is in view: moving to it keeps the zoom',
  );
  await page.keyboard.press('Escape');
  assert.equal(await crumbs(), ['zone-0 (zone)']);
  await page.keyboard.press('Escape');
  assert.equal(await crumbs(), []);
  assert.equal(errors, []);
  await page.close();
});

browserTest('an empty topology draws, and the keys on its picture raise no error', async () => {
  const html = write('empty.html', topologyHtml(topologyView('render: 0 HyperNodes', [], [])));
  const { page, errors } = await openPage(browser!, html);
  await waitUntilDrawn(page);
  await page.focus('#icicle');
  for (const key of ['ArrowRight', 'ArrowDown', 'Enter', 'Escape', 'Home']) await page.keyboard.press(key);
  // A search answers after every handler before it has run: the keys' errors, if any, are in by now.
  await searchFor(page, 'node-0');
  assert.match(await textOf(page, '#status'), 'No Node or HyperNode is named');
  assert.equal(errors, []);
  await page.close();
});

browserTest(
  'where a Node would be narrower than a few pixels, its rack shows one cell with the count; a search zooms to the Node',
  async () => {
    const shape = { zones: 2, spinesPerZone: 4, racksPerSpine: 8, nodesPerRack: 16 };
    const nodes = sampleNodes(shape);
    const { items, html } = await renderBoth('many', [
      '--config',
      write('many.yaml', SAMPLE_DISCOVERY_CONFIG),
      '--nodes',
      write('many-nodes.json', nodeList(nodes)),
    ]);
    const { page, errors } = await openPage(browser!, html);
    await waitUntilDrawn(page);
    const names = await drawnNames(page);
    const racks = items.filter((hn) => hn.spec!.tier === 1);
    assert.equal(
      await page.$$eval('#icicle rect.nd:not(.agg)', (rs) => rs.length),
      0,
      `${nodes.length} Nodes in ~800 px get no cell each`,
    );
    const counted = await page.$$eval('#icicle rect.nd.agg', (rs) =>
      rs.map((r) => Number((r as SVGRectElement).dataset.h)),
    );
    assert.equal(
      counted.map((i) => names[i]).sort(),
      racks.map((r) => r.metadata.name).sort(),
      'one counted cell per rack',
    );
    const node = nodes[200]!.metadata.name;
    await searchFor(page, node);
    assert.equal(await page.$$eval('#icicle rect.nd.hit', (rs) => rs.map((r) => (r as SVGRectElement).dataset.node)), [
      node,
    ]);
    assert.equal(errors, []);
    await page.close();
  },
);

browserTest(
  'a UFM fabric topology labels each group by its switch names, not GUIDs, and names its fabric on hover',
  async () => {
    const { args, systemNames } = fabricInputs();
    const { items, html } = await renderBoth('fabric', args);
    const { page, errors, requests } = await openPage(browser!, html);
    await waitUntilDrawn(page);
    assert.equal([errors, requests], [[], []]);
    assert.is(await page.$$eval('#icicle rect.hn', (rs) => rs.length), items.length);
    // Fabric groups are named <fabric>-<tierName>-<lowest switch GUID>: the cell shows that
    // switch's name as UFM reports it and how many more switches the group holds (its two rails).
    const names = await drawnNames(page);
    const leaf = items.find((hn) => hn.spec!.tier === 1)!;
    const guid = leaf.metadata.name.slice('pod-a-leaf-'.length);
    const i = names.indexOf(leaf.metadata.name);
    assert.is(await textOf(page, `#icicle text.name[data-i="${i}"]`), `${systemNames.get(guid)} +1`);
    const cellTexts = await page.$$eval('#icicle text.name', (ts) => ts.map((t) => t.textContent ?? ''));
    assert.is(cellTexts.length, items.length, "every group's cell is labelled");
    assert.equal(
      cellTexts.filter((t) => /^[0-9a-f]{6}/.test(t)),
      [],
      'no cell shows a GUID, even cut short',
    );
    assert.equal(await legendLevels(page), ['spine', 'leaf']);
    await page.hover(`#icicle rect.hn[data-i="${i}"]`);
    assert.match(await textOf(page, '#tip'), `${leaf.metadata.name}`);
    assert.match(await textOf(page, '#tip'), 'fabric pod-a');
    const host = memberNames(leaf)[0]!;
    assert.equal(await searchFor(page, host), containing(items, host));
    await screenshot(page, 'view-fabric.png');
    await page.close();
  },
);

/** A small cluster (two racks under one spine) and a plan with every kind of change. */
function everyKindOfChange(): { existing: HyperNode[]; plan: Plan } {
  const hn = (
    name: string,
    tier: number,
    members: string[],
    type: 'Node' | 'HyperNode',
    nodeCount: number,
  ): HyperNode => ({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name, labels: { [SOURCE_LABEL]: 'label' } },
    spec: { tier, members: members.map((m) => ({ type, selector: { exactMatch: { name: m } } })) },
    status: { nodeCount },
  });
  const existing = [
    hn('spine', 2, ['rack-a', 'rack-b', 'rack-c', 'rack-d'], 'HyperNode', 4),
    hn('rack-a', 1, ['n1', 'n2'], 'Node', 2),
    hn('rack-b', 1, ['n3'], 'Node', 1),
    hn('rack-c', 1, ['n4'], 'Node', 1),
    hn('rack-d', 1, ['n5'], 'Node', 1),
  ];
  const spineAfter = hn('spine', 2, ['rack-a', 'rack-b', 'rack-c', 'rack-d', 'rack-e'], 'HyperNode', 5);
  const rackAAfter = hn('rack-a', 1, ['n1', 'n2', 'n6'], 'Node', 3);
  const created = hn('rack-e', 1, ['n7'], 'Node', 1);
  const byName = new Map(existing.map((h) => [h.metadata.name, h]));
  const change = (action: PlannedChange['action'], name: string, after?: HyperNode, held = false): PlannedChange => ({
    action,
    source: 'label',
    name,
    diff: diffHyperNodes(byName.get(name), after),
    ...(after ? { object: after } : {}),
    ...(held ? { held: true as const } : {}),
  });
  const plan: Plan = {
    changes: [
      change('create', 'rack-e', created),
      change('update', 'rack-a', rackAAfter),
      change('update', 'spine', spineAfter),
      change('delete', 'rack-b'),
      change('delete', 'rack-c', undefined, true),
    ],
    warnings: ['deletes held: rack-c'],
    nodeLabels: [],
    nodeLabelsHeld: 0,
    nodeLabelsOff: [],
    topologies: [],
    labelHolds: [],
    taints: [],
  };
  return { existing, plan };
}

browserTest(
  'a plan shows creates, updates, deletes and held deletes in their own colours, with the diff on click',
  async () => {
    const { existing, plan } = everyKindOfChange();
    const nodes = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'].map((name) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
    }));
    const html = write('plan.html', topologyHtml(planView('plan: test', planDrawing(plan), existing, nodes)));
    const { page, errors, requests } = await openPage(browser!, html);
    await waitUntilDrawn(page);
    assert.equal([errors, requests], [[], []]);
    const fills = await page.$$eval('#icicle rect.hn', (rs) => {
      const names = (
        JSON.parse(document.getElementById('topology-data')!.textContent!) as { hyperNodes: { name: string }[] }
      ).hyperNodes.map((h) => h.name);
      return Object.fromEntries(
        rs.map((r) => [
          names[Number((r as SVGRectElement).dataset.i)],
          r.ownerDocument.defaultView!.getComputedStyle(r).fill,
        ]),
      );
    });
    const kind = {
      create: fills['rack-e'],
      update: fills['rack-a'],
      delete: fills['rack-b'],
      held: fills['rack-c'],
      same: fills['rack-d'],
    };
    assert.is(fills.spine, kind.update);
    assert.is(new Set(Object.values(kind)).size, 5, `five distinct colours: ${JSON.stringify(kind)}`);
    // The legend's swatches carry the same colours, with the counts.
    const legend = await page.$$eval('#legend > span', (ss) =>
      ss.map((s) => [
        (s as HTMLElement).dataset.kind,
        s.ownerDocument.defaultView!.getComputedStyle(s.firstElementChild!).backgroundColor,
        s.textContent,
      ]),
    );
    assert.equal(
      legend.map(([k, colour]) => [k, colour]),
      Object.entries(kind).map(([k, colour]) => [k, colour]),
    );
    assert.equal(
      legend.map(([, , text]) => text),
      ['create 1', 'update 2', 'delete 1', 'held delete 1', 'unchanged 1'],
    );

    const index = (await drawnNames(page)).indexOf('rack-a');
    await page.click(`#icicle rect[data-i="${index}"]`);
    await page.waitForSelector('#details:not([hidden])');
    assert.equal(await page.$$eval('#details .diff li', (ls) => ls.map((l) => l.textContent)), [
      'members: +n6',
      'nodeCount: 2 → 3',
    ]);
    assert.match(await textOf(page, '#details'), 'changeupdate');
    await page.mouse.move(0, 0);
    await screenshot(page, 'view-plan.png');
    await page.close();
  },
);

test.run();
