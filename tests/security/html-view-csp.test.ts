/// <reference lib="dom" />
// The HTML topology view (`render -o html`, `plan -o html`, `kubectl
// hypernode tree -o html`, `/debug/topology`; docs/security.md §5): its
// Content-Security-Policy allows the page's one inline script and one inline
// stylesheet by their SHA-256, never 'unsafe-inline', and forbids every
// request. In headless Chromium (skipped, visibly, where it is missing) the
// page draws under that policy, from disk and served with the policy as a
// header, and a script injected into the page (inline, or an event-handler
// attribute) does not run. (The DOM library above types the browser callbacks.)

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeHttp } from '../../src/app/http-listen.ts';
import { topologyPageRoute } from '../../src/app/topology-page.ts';
import { render } from '../../src/cmd/render.ts';
import type { DiscoveredHyperNode, NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { TOPOLOGY_PAGE_CSP } from '../../src/hypernode/exports/view/topology-html.ts';
import { realClock } from '../../src/kube/clock.ts';
import { launchChromium, missingChromium, openPage, openUrl, waitUntilDrawn } from '../../testing/browser.ts';
import { SAMPLE_DISCOVERY_CONFIG, sampleNodes } from '../../testing/sample-cluster.ts';
import { testNeeding } from '../support/skip.ts';

const browserTest = testNeeding(missingChromium());
let browser: Browser | undefined;
let dir = '';
let page = '';

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'html-view-csp-'));
  const config = join(dir, 'config.yaml');
  const nodes = join(dir, 'nodes.json');
  writeFileSync(config, SAMPLE_DISCOVERY_CONFIG);
  writeFileSync(nodes, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: sampleNodes() }));
  const out = await render(['--config', config, '--nodes', nodes, '-o', 'html'], 'x');
  assert.is(out.code, 0, out.stderr);
  page = out.stdout;
  if (missingChromium() === undefined) browser = await launchChromium();
});
test.after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The text of every element `tag` of `html` without attributes (the view's script, its stylesheet). */
const inline = (html: string, tag: string) =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);

test("the policy allows the page's own script and stylesheet by hash, never 'unsafe-inline', and no request", () => {
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1];
  assert.is(meta, TOPOLOGY_PAGE_CSP, 'the page carries the policy the server sends');
  assert.not.match(TOPOLOGY_PAGE_CSP, 'unsafe-inline');
  assert.not.match(TOPOLOGY_PAGE_CSP, 'unsafe-eval');
  const [script] = inline(page, 'script');
  const [style] = inline(page, 'style');
  const directives = new Map(TOPOLOGY_PAGE_CSP.split('; ').map((d) => [d.split(' ')[0]!, d.slice(d.indexOf(' ') + 1)]));
  assert.is(directives.get('script-src'), sha256(script!), 'exactly the inline script');
  assert.is(directives.get('style-src'), sha256(style!), 'exactly the inline stylesheet');
  assert.is(directives.get('default-src'), "'none'");
  assert.is(directives.get('base-uri'), "'none'");
  assert.is(directives.get('form-action'), "'none'");
});

/** `html` with a script, an event handler and a stylesheet of its own, as markup that slipped in would be. */
function injected(html: string): string {
  return html.replace(
    '</body>',
    `<script>document.documentElement.dataset.injected = 'inline script';</script>
<img src="data:," onerror="document.documentElement.dataset.injected = 'event handler'">
<style>body { background: rgb(255, 0, 0); }</style>
</body>`,
  );
}

browserTest('the page draws under its policy with no error, and a script injected into it does not run', async () => {
  const clean = join(dir, 'clean.html');
  writeFileSync(clean, page);
  const opened = await openPage(browser!, clean);
  try {
    await waitUntilDrawn(opened.page, { timeout: 30_000 });
    assert.equal(opened.errors, [], 'the page ran and styled itself without a violation');
    assert.equal(opened.requests, []);
    assert.ok((await opened.page.$$('#icicle rect.hn')).length > 0, 'drawn by its script');
  } finally {
    await opened.page.close();
  }

  const tampered = join(dir, 'tampered.html');
  writeFileSync(tampered, injected(page));
  const attacked = await openPage(browser!, tampered);
  try {
    await waitUntilDrawn(attacked.page, { timeout: 30_000 });
    const state = await attacked.page.evaluate(() => ({
      injected: document.documentElement.dataset.injected ?? null,
      background: getComputedStyle(document.body).backgroundColor,
    }));
    assert.is(state.injected, null, 'neither the inline script nor the event handler ran');
    assert.is.not(state.background, 'rgb(255, 0, 0)', 'the injected stylesheet was not applied');
    const violations = attacked.errors.filter((e) => /Content Security Policy/.test(e));
    assert.ok(violations.length >= 2, `the browser refused them: ${attacked.errors.join(' | ')}`);
  } finally {
    await attacked.page.close();
  }
});

browserTest('served as /debug/topology, with the policy as a header too, the page draws with no error', async () => {
  const nodes = sampleNodes() as NodeMeta[];
  const desired: DiscoveredHyperNode[] = [
    {
      metadata: { name: 'rack-a' },
      spec: {
        tier: 1,
        tierName: '<script>alert(1)</script>',
        members: [{ type: 'Node', selector: { exactMatch: { name: nodes[0]!.metadata.name } } }],
      },
    },
  ];
  const route = topologyPageRoute(
    { current: () => ({ running: true, sources: [{ source: 'label', desired, heldDeletes: [] }] }) },
    { list: () => nodes, get: () => undefined },
    realClock,
  );
  const server: Server = createServer((req, res) => void route(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/debug/topology`;
    const header = (await fetch(url)).headers.get('content-security-policy');
    assert.is(header, `${TOPOLOGY_PAGE_CSP}; frame-ancestors 'none'`);
    const opened = await openUrl(browser!, url);
    try {
      await waitUntilDrawn(opened.page, { timeout: 30_000 });
      assert.equal(opened.errors, []);
      assert.equal(opened.requests, []);
    } finally {
      await opened.page.close();
    }
  } finally {
    await closeHttp(server);
  }
});

test.run();
