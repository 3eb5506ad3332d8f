/// <reference lib="dom" />
// /debug/topology and --secure-metrics, through runServer against the API
// server stand-in with the sample cluster: every request's bearer token is
// reviewed by the API server (no token or a rejected one → 401, a user RBAC
// does not allow → 403, allowed → 200 as HTML or JSON), answers are cached per
// token, an unreachable API server refuses (503), the flag off leaves the
// page 404 and /metrics open, and neither a token nor a review body is ever
// logged. The HTML page is the topology view: opened by an authorised user in
// headless Chromium (skipped, visibly, where it is missing) it loads without
// console errors or network requests under the page's CSP header, draws one
// rectangle per desired HyperNode and shows the state as notes; what it shows
// cannot become markup. (The DOM library above types the browser callbacks.)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_TOKEN_AUDIENCE, type ResolvedOptions } from '../../src/app/options.ts';
import { renderTopologyPage } from '../../src/app/topology-page-html.ts';
import type {
  DiscoveredHyperNode,
  HyperNode,
  MemberSelector,
  NodeMeta,
} from '../../src/hypernode/model/hypernode-types.ts';
import {
  accessReviewerRbac,
  hypernodeControllerRbac,
  startApiServer,
  type ApiServer,
} from '../../testing/apiserver/index.ts';
import { launchChromium, missingChromium, openUrl } from '../../testing/browser.ts';
import {
  discoveryConfigMap,
  expectedHyperNodeCount,
  SAMPLE_DISCOVERY_CONFIG,
  sampleNodes,
  SPINE_LABEL,
  ZONE_LABEL,
} from '../../testing/sample-cluster.ts';
import { drawnNames, viewData } from '../../testing/view-page.ts';
import { waitFor } from '../../testing/wait.ts';
import { testNeeding } from '../support/skip.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { serveMetricsListener, type ServedListener } from '../support/metrics-listener.ts';

const NS = 'volcano-system';
const PAGE = '/debug/topology';
const browserTest = testNeeding(missingChromium());
let browser: Browser | undefined;

let dir: string;
const log = capturingLogger({ verbosity: 10 });
/** Every token handed out in this file: none may ever appear in a log line. */
const tokens: string[] = [];

interface Cluster {
  api: ApiServer;
  kubeconfig: string;
  viewer: string;
  stranger: string;
}

async function cluster(): Promise<Cluster> {
  const api = await startApiServer({ namespaces: [NS] });
  const kubeconfig = api.writeKubeconfig(dir, {
    token: api.addUser(`system:serviceaccount:${NS}:hn`, [
      ...hypernodeControllerRbac(NS, 'vc-hypernode-controller-manager'),
      ...accessReviewerRbac(),
    ]),
  });
  for (const node of sampleNodes()) api.store.create(node);
  // Level labels but no rack label: in no HyperNode, so listed as uncovered.
  api.store.create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'stray-node', labels: { [ZONE_LABEL]: 'zone-0', [SPINE_LABEL]: 'spine-0-0' } },
  });
  api.store.create(discoveryConfigMap(NS, SAMPLE_DISCOVERY_CONFIG));
  api.addUser('viewer', [{ apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: [PAGE, '/metrics'] }]);
  api.addUser('stranger', [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }]);
  // Tokens for the controller's audience, as `kubectl create token <user> --audience …` makes them.
  const viewer = api.createToken('viewer', [DEFAULT_TOKEN_AUDIENCE]);
  const stranger = api.createToken('stranger', [DEFAULT_TOKEN_AUDIENCE]);
  tokens.push(viewer, stranger);
  return { api, kubeconfig, viewer, stranger };
}

type Running = ServedListener;

const start = (c: Cluster, over: Partial<ResolvedOptions>): Promise<Running> =>
  serveMetricsListener(c.kubeconfig, log.logger, over, 'page-test');

async function get(
  address: string,
  path: string,
  token?: string,
  accept?: string,
): Promise<{ code: number; type: string; body: string }> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (accept) headers.Accept = accept;
  const res = await fetch(`http://${address}${path}`, { headers, signal: AbortSignal.timeout(20_000) });
  return { code: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** Runs `body` against a fresh cluster and controller, both stopped afterwards even when it fails. */
async function withController(
  over: Partial<ResolvedOptions>,
  body: (c: Cluster, run: Running) => Promise<void>,
): Promise<void> {
  const c = await cluster();
  const run = await start(c, over);
  try {
    await body(c, run);
  } finally {
    await run.stop();
    await c.api.close().catch(() => {}); // the outage test closed it already
  }
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'topology-page-'));
  if (missingChromium() === undefined) browser = await launchChromium();
});
test.after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true });
});

/** The page's JSON form once the label source's first snapshot is in. */
async function labelSnapshot(run: Running, token: string) {
  return waitFor(
    async () => {
      const r = await get(run.address, PAGE, token, 'application/json');
      const body = r.code === 200 ? JSON.parse(r.body) : undefined;
      return body?.sources?.some((s: { source: string; lastResult: unknown }) => s.source === 'label' && s.lastResult)
        ? { r, body }
        : undefined;
    },
    { timeoutMs: 30_000, what: 'the label source on the topology page' },
  );
}

/** The HyperNode names in the view data of an HTML page. */
const pageNames = (html: string) => viewData(html).hyperNodes.map((h) => h.name);

test('with --enable-topology-page and --secure-metrics: 401 without or with a bad token, 403 when RBAC denies, 200 when allowed', async () => {
  await withController({ topologyPage: true, secureMetrics: true }, async (c, run) => {
    for (const path of [PAGE, '/metrics']) {
      assert.is((await get(run.address, path)).code, 401, `${path} without a token`);
      assert.is(
        (await get(run.address, path, 'not-a-valid-token')).code,
        401,
        `${path} with a token the TokenReview rejects`,
      );
      const denied = await get(run.address, path, c.stranger);
      assert.is(denied.code, 403, `${path} for a user RBAC does not allow`);
      assert.match(denied.body, 'stranger');
    }
    // The lines docs/troubleshooting.md quotes for the 401 and the 403.
    for (const line of ['Refused a request: the token did not authenticate', 'Refused a request: not authorized'])
      assert.ok(
        log.lines.some((l) => l.includes(line)),
        line,
      );
    const scrape = await get(run.address, '/metrics', c.viewer);
    assert.is(scrape.code, 200);
    assert.match(scrape.body, 'hypernode_controller_manager_build_info');

    const json = await labelSnapshot(run, c.viewer);
    assert.is(json.r.type, 'application/json');
    assert.is(json.body.controllerRunning, true);
    const label = json.body.sources.find((s: { source: string }) => s.source === 'label');
    assert.is(label.hyperNodes.length, expectedHyperNodeCount());
    assert.ok(!Number.isNaN(Date.parse(label.lastSnapshotTime)), 'the last snapshot time is RFC 3339');
    assert.is(label.lastResult.rejected, false);
    assert.is(label.lastResult.discovered, expectedHyperNodeCount());
    assert.equal(label.heldDeletes, []);
    assert.is(label.rejectedSnapshot, null);
    assert.is(label.uncoveredNodes.count, 1);
    assert.is(label.uncoveredNodes.listed[0].name, 'stray-node');
    // What the page shows is what the controller wrote.
    const written = c.api.store
      .list('hypernodes')
      .map((o) => o.metadata.name)
      .sort();
    assert.equal(label.hyperNodes.map((hn: { metadata: { name: string } }) => hn.metadata.name).sort(), written);

    const html = await get(run.address, PAGE, c.viewer);
    assert.is(html.code, 200);
    assert.is(html.type, 'text/html; charset=utf-8');
    assert.match(html.body, 'stray-node');
    assert.equal(pageNames(html.body).sort(), written);
    // Each HyperNode's nodeCount is the one the status writer writes, though the desired objects carry no status.
    const counts = await waitFor(
      () => {
        const objects = c.api.store.list('hypernodes') as HyperNode[];
        return objects.every((hn) => hn.status?.nodeCount !== undefined)
          ? Object.fromEntries(objects.map((hn) => [hn.metadata.name, hn.status!.nodeCount]))
          : undefined;
      },
      { what: 'the status writer writing every nodeCount' },
    );
    assert.equal(Object.fromEntries(viewData(html.body).hyperNodes.map((hn) => [hn.name, hn.nodeCount])), counts);
  });
});

test('regex and label members are resolved through the cached Nodes', () => {
  const member = (selector: MemberSelector) => ({ type: 'Node' as const, selector });
  const desired: DiscoveredHyperNode[] = [
    { metadata: { name: 'by-regex' }, spec: { tier: 1, members: [member({ regexMatch: { pattern: '^gpu-' } })] } },
    {
      metadata: { name: 'by-label' },
      spec: { tier: 1, members: [member({ labelMatch: { matchLabels: { rack: 'r1' } } })] },
    },
  ];
  const nodes: NodeMeta[] = ['gpu-1', 'gpu-2', 'cpu-1'].map((name) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { rack: name === 'gpu-1' ? 'r1' : 'r2' } },
  }));
  const page = viewData(
    renderTopologyPage({ running: true, sources: [{ source: 'label', desired, heldDeletes: [] }] }, 0, nodes),
  );
  assert.equal(
    page.hyperNodes.map((hn) => [hn.name, hn.nodes, hn.nodeCount]),
    [
      ['by-label', ['gpu-1'], 1],
      ['by-regex', ['gpu-1', 'gpu-2'], 2],
    ],
  );
  assert.equal(page.notes.slice(1), ['Source label: no snapshot yet.']);
});

browserTest(
  'in Chromium, an authorised user sees one rectangle per desired HyperNode and the state as notes, with no error or request',
  async () => {
    await withController({ topologyPage: true }, async (c, run) => {
      const desired = (await labelSnapshot(run, c.viewer)).body.sources
        .flatMap((s: { hyperNodes: { metadata: { name: string } }[] }) => s.hyperNodes.map((hn) => hn.metadata.name))
        .sort();
      // Served, so the CSP header applies on top of the page's own: a stricter one would stop the script.
      const { page, errors, requests } = await openUrl(browser!, `http://${run.address}${PAGE}`, {
        Authorization: `Bearer ${c.viewer}`,
      });
      try {
        await page.waitForFunction(() => document.documentElement.dataset.state === 'ready', undefined, {
          timeout: 30_000,
        });
        assert.equal(errors, []);
        assert.equal(requests, []);
        const drawn = await page.$$eval('#icicle rect.hn', (rs) =>
          rs.map((r) => Number((r as SVGRectElement).dataset.i)),
        );
        assert.is(drawn.length, desired.length);
        const names = await drawnNames(page);
        assert.equal(drawn.map((i) => names[i]).sort(), desired);
        const notes = (await page.textContent('#notes')) ?? '';
        assert.match(notes, 'This replica runs the controller.');
        assert.match(notes, /Source label: last snapshot \S+Z: \d+ discovered/);
        assert.match(notes, 'Source label: Nodes in no HyperNode (1):');
        assert.match(notes, /- stray-node: \S/);
      } finally {
        await page.close();
      }
    });
  },
);

test('answers are cached per token: one TokenReview and one SubjectAccessReview per token and path within the TTL', async () => {
  await withController({ topologyPage: true, secureMetrics: true }, async (c, run) => {
    const reviews = (resource: string) => c.api.requests.count({ resource });
    for (let i = 0; i < 4; i++) assert.is((await get(run.address, PAGE, c.viewer)).code, 200);
    assert.is(reviews('tokenreviews'), 1);
    assert.is(reviews('subjectaccessreviews'), 1);
    for (let i = 0; i < 3; i++) assert.is((await get(run.address, '/metrics', c.viewer)).code, 200);
    assert.is(reviews('tokenreviews'), 1, 'the token is known already');
    assert.is(reviews('subjectaccessreviews'), 2, 'a second path is a second authorisation');
    for (let i = 0; i < 3; i++) assert.is((await get(run.address, PAGE, c.stranger)).code, 403);
    assert.is(reviews('tokenreviews'), 2, 'a denial is cached too');
    assert.is(reviews('subjectaccessreviews'), 3);
  });
});

test('the API server down: the page and /metrics are refused (503), never served', async () => {
  await withController({ topologyPage: true, secureMetrics: true }, async (c, run) => {
    await c.api.close();
    for (const path of [PAGE, '/metrics']) {
      const r = await get(run.address, path, c.viewer);
      assert.is(r.code, 503, path);
      assert.not.match(r.body, c.viewer);
    }
    assert.ok(log.lines.some((l) => l.includes('Refused a request: the API server could not review its token')));
  });
});

test('without the flags: /debug/topology is 404 and /metrics needs no token; no review is made', async () => {
  await withController({}, async (c, run) => {
    assert.is((await get(run.address, PAGE, c.viewer)).code, 404);
    assert.is((await get(run.address, PAGE)).code, 404);
    assert.is((await get(run.address, '/metrics')).code, 200);
    assert.is(
      c.api.requests.count((r) => r.resource === 'tokenreviews' || r.resource === 'subjectaccessreviews'),
      0,
    );
  });
});

test('the HTML page cannot be turned into markup by any value it shows', () => {
  const evil = '<script>alert(1)</script>';
  const html = renderTopologyPage(
    {
      running: true,
      sources: [
        {
          source: `src${evil}`,
          lastSnapshotAt: 0,
          lastResult: {
            discovered: 1,
            created: 0,
            updated: 0,
            unchanged: 1,
            deleted: 0,
            failed: 0,
            foreign: 0,
            held: 0,
            rejected: false,
          },
          desired: [
            {
              metadata: { name: 'hn-a' },
              spec: {
                tier: 1,
                tierName: evil,
                members: [{ type: 'Node', selector: { regexMatch: { pattern: `"${evil}` } } }],
              },
            },
          ],
          heldDeletes: [`held${evil}`],
          rejected: { at: 0, violations: `rule: ${evil}` },
          uncoveredNodes: { count: 1, listed: [{ name: 'n', why: evil }] },
        },
      ],
    },
    0,
    [],
  );
  // The title is escaped; names, notes and tier names travel as JSON that cannot close its element.
  assert.not.match(html, '<script>alert');
  assert.match(
    html,
    '<title>HyperNode topology: 1 desired HyperNodes from src&lt;script&gt;alert(1)&lt;/script&gt;</title>',
  );
  assert.match(html, '\\u003cscript>alert(1)\\u003c/script>');
  assert.equal(pageNames(html), ['hn-a']);
});

// Last: over every line the tests above logged at -v=10 (refusals, the outage, the controller's own lines).
test('no bearer token and no review body was ever logged', () => {
  assert.ok(log.lines.length > 50, 'the runs above logged');
  const all = log.lines.join('\n');
  for (const token of tokens) assert.not.ok(all.includes(token), 'a bearer token was logged');
  assert.not.match(all, /TokenReview|SubjectAccessReview|nonResourceAttributes|"token"/, 'a review body was logged');
});

test.run();
