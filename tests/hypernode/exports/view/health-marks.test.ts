/// <reference lib="dom" />
// The HTML view shows health (docs/health.md): a HyperNode whose NodesReady
// or FabricHealthy is False carries the messages in the view's data and is
// drawn in the unhealthy colour in a real browser (Debian's Chromium); a
// healthy one keeps its tier colour. Skipped, visibly, where Chromium is missing.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { topologyHtml } from '../../../../src/hypernode/exports/view/topology-html.ts';
import { topologyView } from '../../../../src/hypernode/exports/view/topology-model.ts';
import { launchChromium, missingChromium, openPage } from '../../../../testing/browser.ts';
import { drawnNames } from '../../../../testing/view-page.ts';
import { testNeeding } from '../../../support/skip.ts';

const condition = (type: string, status: 'True' | 'False', message: string) => ({
  type,
  status,
  reason: status === 'True' ? 'Fine' : 'Broken',
  message,
  lastTransitionTime: '2026-12-01T00:00:00Z',
});
const hn = (
  name: string,
  tier: number,
  type: 'Node' | 'HyperNode',
  members: string[],
  conditions: ReturnType<typeof condition>[],
): HyperNode => ({
  metadata: { name, labels: { 'volcano.sh/network-topology-source': 'ufm' } },
  spec: { tier, members: members.map((m) => ({ type, selector: { exactMatch: { name: m } } })) },
  status: { nodeCount: members.length, conditions },
});
const objects = [
  hn(
    'leaf-a',
    1,
    'Node',
    ['n0', 'n1'],
    [condition('FabricHealthy', 'False', '1 fabric problem: leaf-a port 3 (link to host n1 missing).')],
  ),
  hn(
    'leaf-b',
    1,
    'Node',
    ['n2', 'n3'],
    [condition('FabricHealthy', 'True', 'Every link of the last good poll is present.')],
  ),
  hn(
    'spine',
    2,
    'HyperNode',
    ['leaf-a', 'leaf-b'],
    [condition('FabricHealthy', 'True', 'Every link of the last good poll is present.')],
  ),
];

test('the view carries the messages of False conditions only', () => {
  const view = topologyView('health', objects, []);
  assert.equal(
    view.hyperNodes.map((h) => [h.name, h.unhealthy]),
    [
      ['leaf-a', ['FabricHealthy: 1 fabric problem: leaf-a port 3 (link to host n1 missing).']],
      ['leaf-b', undefined],
      ['spine', undefined],
    ],
  );
});

testNeeding(missingChromium())('the page draws exactly the unhealthy HyperNode in the unhealthy colour', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hn-health-view-'));
  const browser = await launchChromium();
  try {
    const file = join(dir, 'health.html');
    writeFileSync(file, topologyHtml(topologyView('health', objects, [])));
    const { page, errors } = await openPage(browser, file);
    const names = await drawnNames(page);
    const classes = await page.$$eval('#icicle rect.hn', (rs) =>
      rs.map((r) => [(r as SVGRectElement).dataset.i!, r.getAttribute('class') ?? ''] as const),
    );
    const unhealthy = classes.filter(([, c]) => c.split(' ').includes('unhealthy')).map(([i]) => names[Number(i)]);
    assert.equal(unhealthy, ['leaf-a']);
    const fill = await page.$eval('#icicle rect.hn.unhealthy', (r) => getComputedStyle(r).fill);
    const healthyFill = await page.$$eval('#icicle rect.hn', (rs) =>
      rs.filter((r) => !r.classList.contains('unhealthy')).map((r) => getComputedStyle(r).fill),
    );
    assert.ok(
      !healthyFill.includes(fill),
      `the unhealthy colour ${fill} is no tier colour (${healthyFill.join(', ')})`,
    );
    assert.equal(errors, []);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
