// HTTP clients of the protected endpoints (/debug/topology, /metrics with
// --secure-metrics; docs/security.md §5): a token issued for the API server
// is refused, so no client need hand the controller a token the API server
// would take; a flood of made-up tokens reaches the API server as a few
// TokenReviews a second, counted on the stand-in, while a known token is
// still served; neither the tokens nor a line per refused request reach the
// log. In this process and in the built executable.

import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_TOKEN_AUDIENCE } from '../../src/app/options.ts';
import {
  UNKNOWN_TOKEN_REVIEW_BURST,
  UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT,
  UNKNOWN_TOKEN_REVIEWS_PER_SECOND,
} from '../../src/kube/access-review.ts';
import {
  accessReviewerRbac,
  hypernodeControllerRbac,
  startApiServer,
  type ApiServer,
} from '../../testing/apiserver/index.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { serveMetricsListener } from '../support/metrics-listener.ts';
import { startControllerBinary } from '../support/controller-process.ts';

const NS = 'volcano-system';
const PAGE = '/debug/topology';
/** Made-up tokens sent in one flood. */
const FLOOD = 600;
/** Connections the flooding client keeps (under its per-client bound). */
const FLOOD_CONNECTIONS = 8;

const figures: string[] = [];
test.after(() => console.log(`page authentication figures:\n  ${figures.join('\n  ')}`));

interface Cluster {
  api: ApiServer;
  dir: string;
  kubeconfig: string;
  /** The viewer's token for the API server, and one for the controller's audience. */
  apiToken: string;
  pageToken: string;
}

async function cluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'page-auth-'));
  const api = await startApiServer({ namespaces: [NS] });
  const kubeconfig = api.writeKubeconfig(dir, {
    token: api.addUser('controller', [
      ...hypernodeControllerRbac(NS, 'vc-hypernode-controller-manager'),
      ...accessReviewerRbac(),
    ]),
  });
  const apiToken = api.addUser('viewer', [
    { apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: [PAGE, '/metrics'] },
  ]);
  const pageToken = api.createToken('viewer', [DEFAULT_TOKEN_AUDIENCE]);
  return { api, dir, kubeconfig, apiToken, pageToken };
}

interface Reply {
  code: number;
  body: string;
}

function get(origin: string, path: string, token: string | undefined, agent?: Agent): Promise<Reply> {
  const url = new URL(path, origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        ...(agent ? { agent } : {}),
        timeout: 20_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ code: res.statusCode!, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** A controller serving the page and secure /metrics: runServer here, or the built executable. */
interface Served {
  readonly origin: string;
  log(): string;
  stop(): Promise<void>;
}

async function inProcess(c: Cluster): Promise<Served> {
  const log = capturingLogger({ verbosity: 4 });
  const served = await serveMetricsListener(
    c.kubeconfig,
    log.logger,
    { topologyPage: true, secureMetrics: true },
    'page-auth',
  );
  return { origin: `http://${served.address}`, log: () => log.lines.join('\n'), stop: served.stop };
}

async function executable(c: Cluster): Promise<Served> {
  // -v=4, as the bare-node unit runs it: a line per refused request would show here.
  const run = await startControllerBinary({
    kubeconfig: c.kubeconfig,
    namespace: NS,
    flags: ['--enable-topology-page=true', '--secure-metrics=true', '-v=4'],
  });
  return { origin: run.metricsOrigin!, log: run.log, stop: () => run.stop().then(() => {}) };
}

async function withServed(how: (c: Cluster) => Promise<Served>, body: (c: Cluster, s: Served) => Promise<void>) {
  const c = await cluster();
  const served = await how(c);
  try {
    await body(c, served);
  } finally {
    await served.stop();
    await c.api.close();
    rmSync(c.dir, { recursive: true, force: true });
  }
}

async function apiServerAudienceRefused(c: Cluster, s: Served, label: string): Promise<void> {
  for (const path of [PAGE, '/metrics']) {
    const refused = await get(s.origin, path, c.apiToken);
    assert.is(refused.code, 401, `${path} with the API server's token`);
    assert.match(refused.body, `--audience ${DEFAULT_TOKEN_AUDIENCE}`, 'the 401 says which token to get');
    assert.is((await get(s.origin, path, c.pageToken)).code, 200, `${path} with a token for the controller`);
  }
  assert.not.ok(s.log().includes(c.apiToken) || s.log().includes(c.pageToken), 'a token in the log');
  figures.push(`${label}: the API server's token refused on ${PAGE} and /metrics (401)`);
}

async function floodBounded(c: Cluster, s: Served, label: string): Promise<void> {
  // Known first: its answer is cached, so the flood cannot keep it out.
  assert.is((await get(s.origin, PAGE, c.pageToken)).code, 200);
  const before = c.api.requests.count({ resource: 'tokenreviews' });
  const agent = new Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
  const started = performance.now();
  const codes = new Map<number, number>();
  let known = 0;
  try {
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      get(s.origin, i % 2 ? PAGE : '/metrics', `made-up-${i}-${Math.random().toString(36).slice(2)}`, agent).then(
        (r) => void codes.set(r.code, (codes.get(r.code) ?? 0) + 1),
      ),
    );
    // Meanwhile the known token is served.
    for (let i = 0; i < 5; i++) if ((await get(s.origin, PAGE, c.pageToken)).code === 200) known++;
    await Promise.all(flood);
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const reviews = c.api.requests.count({ resource: 'tokenreviews' }) - before;
  const bound = UNKNOWN_TOKEN_REVIEW_BURST + Math.ceil(seconds * UNKNOWN_TOKEN_REVIEWS_PER_SECOND);
  figures.push(
    `${label}: ${FLOOD} made-up tokens in ${seconds.toFixed(1)} s: ${reviews} TokenReviews (bound ${bound}, at most ${UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT} at once); answers ${JSON.stringify(Object.fromEntries(codes))}`,
  );
  assert.ok(reviews <= bound, `${reviews} TokenReviews for ${FLOOD} made-up tokens in ${seconds.toFixed(1)} s`);
  assert.is((codes.get(401) ?? 0) + (codes.get(429) ?? 0), FLOOD, 'every made-up token refused');
  assert.is(codes.get(401) ?? 0, reviews, 'a 401 for each token reviewed, a 429 for the others');
  assert.is(known, 5, 'the known token was served throughout');
  const lines = s.log().split('\n');
  const throttledLines = lines.filter((l) =>
    l.includes('Refused requests without reviewing their tokens: too many unknown tokens at once'),
  ).length;
  assert.ok(throttledLines >= 1 && throttledLines <= 2, `${throttledLines} lines for the 429s`);
  assert.not.ok(s.log().includes('made-up-'), 'a made-up token in the log');
}

test('without a token, with one RBAC does not allow, or while the API server cannot answer, nothing of the page or the metrics is served', async () => {
  await withServed(inProcess, async (c, s) => {
    c.api.addUser('stranger', [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }]);
    const stranger = c.api.createToken('stranger', [DEFAULT_TOKEN_AUDIENCE]);
    const shown = (r: Reply) => /hypernode_|process_cpu|topology-data|<svg/.test(r.body);
    for (const path of [PAGE, '/metrics']) {
      for (const [token, code] of [
        [undefined, 401],
        ['', 401],
        ['not-a-token', 401],
        [stranger, 403],
      ] as const) {
        const r = await get(s.origin, path, token);
        assert.is(r.code, code, `${path} with ${token === undefined ? 'no token' : 'a token'}`);
        assert.not.ok(shown(r), `${path} showed content to a ${code}`);
      }
    }
    await c.api.close();
    for (const path of [PAGE, '/metrics']) {
      // A token never reviewed before: its answer cannot come from the cache.
      const r = await get(s.origin, path, c.api.createToken('viewer', [DEFAULT_TOKEN_AUDIENCE]));
      assert.is(r.code, 503, path);
      assert.not.ok(shown(r));
    }
    assert.not.ok(s.log().includes(stranger), 'a token in the log');
  });
});

test("a token issued for the API server is refused by the page and /metrics; one for the controller's audience is served", async () => {
  await withServed(inProcess, (c, s) => apiServerAudienceRefused(c, s, 'in process'));
});

test('a flood of made-up tokens reaches the API server as a few TokenReviews a second; a known token is still served', async () => {
  await withServed(inProcess, (c, s) => floodBounded(c, s, 'in process'));
});

test("the built executable: a token issued for the API server is refused; one for the controller's audience is served", async () => {
  await withServed(executable, (c, s) => apiServerAudienceRefused(c, s, 'executable'));
});

test('the built executable: a flood of made-up tokens reaches the API server as a few TokenReviews a second', async () => {
  await withServed(executable, (c, s) => floodBounded(c, s, 'executable'));
});

test.run();
