// Informers against the API server stand-in under faults: they converge to
// the exact server state (and their handlers see every change) through watch
// cuts, 410 storms, 5xx and 429 bursts and restarts with and without data;
// the metadata-only Node informer keeps only name + labels; the token bucket
// holds the request rate within QPS/burst as the server saw it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildClientConfig } from '../../src/kube/config.ts';
import { keepNameAndLabels, resourceInformer, type SharedInformer } from '../../src/kube/informer.ts';
import { resourceClient, type ResourceClient } from '../../src/kube/resource.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { Transport } from '../../src/kube/transport.ts';
import { isTombstone, type KubeObject } from '../../src/kube/types.ts';
import { nullLogger } from '../../src/log.ts';
import { startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { waitFor } from '../../testing/wait.ts';

let api: ApiServer;
let dir: string;
let transport: Transport;
let nodesClient: ResourceClient<KubeObject>;

const NODES = { group: '', version: 'v1', resource: 'nodes', namespaced: false } as const;

test.before(async () => {
  api = await startApiServer();
  dir = mkdtempSync(join(tmpdir(), 'informer-'));
  transport = new Transport(buildClientConfig({ master: '', kubeconfig: api.writeKubeconfig(dir) }, nullLogger));
  nodesClient = resourceClient(
    new RestClient({ transport, userAgent: 'informer-test', qps: 1000, burst: 1000 }),
    NODES,
  );
});
test.after(async () => {
  transport.close();
  await api.close();
  rmSync(dir, { recursive: true });
});

let serial = 0;
function setNode(name: string, labels: Record<string, string> = {}): void {
  const existing = api.store.get('nodes', name) as KubeObject | undefined;
  const obj = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { ...labels, serial: String(++serial) } },
    status: { capacity: { cpu: '64' } },
  };
  if (existing) api.store.update(obj);
  else api.store.create(obj);
}

/** Informers of the running test, stopped after it even when it fails. */
const running: Array<() => Promise<void>> = [];
test.after.each(async () => {
  for (const stop of running.splice(0)) await stop();
});

/** Runs a metadata-only node informer with a handler that mirrors what it is told. */
function nodeInformer() {
  const informer = resourceInformer<KubeObject>(nodesClient, {
    metadataOnly: true,
    transform: keepNameAndLabels,
    logger: nullLogger,
  });
  const mirror = new Map<string, string>();
  informer.addEventHandler({
    onAdd: (o) => mirror.set(o.metadata.name, o.metadata.resourceVersion!),
    onUpdate: (_o, n) => mirror.set(n.metadata.name, n.metadata.resourceVersion!),
    onDelete: (o) => mirror.delete(isTombstone(o) ? o.obj.metadata.name : o.metadata.name),
  });
  const stop = new AbortController();
  const done = informer.run(stop.signal);
  const stopped = async () => (stop.abort(), await done);
  running.push(stopped);
  return { informer, mirror, stop: stopped };
}

const serverState = () =>
  new Map(
    (api.store.list('nodes') as KubeObject[]).map(
      (n) => [n.metadata.name, n.metadata.resourceVersion!] as [string, string],
    ),
  );
const cacheState = (i: SharedInformer<KubeObject>) =>
  new Map(i.list().map((n) => [n.metadata.name, n.metadata.resourceVersion!] as [string, string]));
const same = (a: Map<string, string>, b: Map<string, string>) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

async function converged(run: ReturnType<typeof nodeInformer>, what: string): Promise<void> {
  await waitFor(() => same(serverState(), cacheState(run.informer)) && same(serverState(), run.mirror), {
    timeoutMs: 20_000,
    what,
  });
}

function resetNodes(): void {
  for (const n of api.store.list('nodes') as KubeObject[]) api.store.delete('nodes', n.metadata.name);
  api.clearFaults();
  api.requests.clear();
}

test('metadata-only list/watch: the server sends PartialObjectMetadata and the cache keeps only name + labels', async () => {
  resetNodes();
  setNode('n1', { zone: 'a' });
  const raw = resourceInformer<KubeObject>(nodesClient, { metadataOnly: true, logger: nullLogger });
  const stop = new AbortController();
  const done = raw.run(stop.signal);
  await raw.waitForSync();
  const item = raw.get('n1')! as KubeObject & { status?: unknown };
  assert.is(item.status, undefined, 'no status: the server answered with metadata only');
  assert.ok(item.metadata.uid, 'the server did send full metadata');
  stop.abort();
  await done;

  const run = nodeInformer();
  await run.informer.waitForSync();
  setNode('n2', { zone: 'b' });
  await converged(run, 'n2 seen through the watch');
  assert.equal(Object.keys(run.informer.get('n2')!.metadata).sort(), ['labels', 'name', 'resourceVersion']);
  assert.equal(Object.keys(run.informer.get('n2')!), ['metadata']);
  await run.stop();
});

test('each object of a whole list goes through the transform once, as the list is read', async () => {
  resetNodes();
  for (let i = 0; i < 30; i++) setNode(`n${i}`);
  let transformed = 0;
  const counting = (o: KubeObject) => (transformed++, keepNameAndLabels(o));
  const whole = resourceInformer<KubeObject>(nodesClient, {
    metadataOnly: true,
    transform: counting,
    logger: nullLogger,
  });
  const stop = new AbortController();
  const done = whole.run(stop.signal);
  running.push(async () => (stop.abort(), await done));
  await whole.waitForSync();
  assert.is(api.requests.count({ resource: 'nodes', verb: 'list' }), 1, 'one whole list from the watch cache');
  assert.is(transformed, 30);
});

test('watch cuts: resumes from the last resourceVersion without relisting and converges', async () => {
  resetNodes();
  for (let i = 0; i < 5; i++) setNode(`n${i}`);
  const run = nodeInformer();
  await run.informer.waitForSync();
  for (let round = 0; round < 3; round++) {
    await waitFor(() => api.watches({ resource: 'nodes' }).length === 1, { what: 'watch open' });
    api.cutWatches({ resource: 'nodes' });
    setNode(`n${round}`, { round: String(round) });
    api.store.delete('nodes', `n${round + 2}`);
    setNode(`new${round}`);
    await converged(run, `round ${round}`);
  }
  assert.is(api.requests.count({ verb: 'list', resource: 'nodes' }), 1);
  await run.stop();
});

test('410 storm: compaction while the watch is down forces relists; deletes missed meanwhile arrive as tombstones', async () => {
  resetNodes();
  for (let i = 0; i < 4; i++) setNode(`n${i}`);
  const run = nodeInformer();
  await run.informer.waitForSync();
  for (let round = 0; round < 4; round++) {
    await waitFor(() => api.watches({ resource: 'nodes' }).length === 1, { what: 'watch open' });
    api.cutWatches({ resource: 'nodes' });
    api.store.delete('nodes', `n${round}`);
    setNode(`m${round}`);
    api.compact();
    await converged(run, `storm round ${round}`);
  }
  assert.ok(api.requests.count({ verb: 'list', resource: 'nodes' }) >= 2, 'relisted after 410');
  await run.stop();
});

test('5xx and 429 bursts on list and watch are ridden out', async () => {
  resetNodes();
  setNode('a');
  api.failNext(4, { code: 500, match: { verb: 'list', resource: 'nodes' } });
  const run = nodeInformer();
  await converged(run, 'sync through 500s');
  api.failNext(3, { code: 503, match: { verb: 'watch', resource: 'nodes' } });
  api.cutWatches({ resource: 'nodes' });
  setNode('b');
  await converged(run, 'watch restarts through 503s');
  api.failNext(3, { code: 429, retryAfterSeconds: 1, match: { resource: 'nodes' } });
  api.compact();
  api.cutWatches({ resource: 'nodes' });
  setNode('c');
  await converged(run, 'relist through 429s');
  await run.stop();
});

test('server restart keeping data: converges; restart losing data: old objects are deleted as tombstones', async () => {
  resetNodes();
  for (let i = 0; i < 3; i++) setNode(`n${i}`);
  const run = nodeInformer();
  await run.informer.waitForSync();
  await api.restart({ keepData: true });
  setNode('after-restart');
  await converged(run, 'after restart with data');
  const tombstones: string[] = [];
  run.informer.addEventHandler({ onDelete: (o) => isTombstone(o) && tombstones.push(o.key) });
  await api.restart({ keepData: false });
  setNode('fresh');
  await converged(run, 'after restart without data');
  assert.equal(cacheState(run.informer).size, 1);
  assert.equal(tombstones.sort(), ['after-restart', 'n0', 'n1', 'n2']);
  await run.stop();
});

test('the token bucket keeps the rate the server sees within QPS and burst, watch starts included', async () => {
  api.requests.clear();
  const qps = 20;
  const burst = 5;
  const rest = new RestClient({ transport, userAgent: 'rate-test', qps, burst });
  const client = resourceClient<KubeObject>(rest, NODES);
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < 25; i++) calls.push(client.list({ limit: 1 }));
  const watchStop = new AbortController();
  calls.push(
    client.watch({
      resourceVersion: String(api.resourceVersion),
      timeoutSeconds: 1,
      idleTimeoutMs: 5000,
      signal: watchStop.signal,
    }),
  );
  await Promise.all(calls);
  watchStop.abort();
  const times = api.requests
    .all({ userAgent: 'rate-test' })
    .map((r) => Date.parse(r.time))
    .sort((a, b) => a - b);
  assert.is(times.length, 26);
  // Over the whole run the bucket cannot have handed out more than the burst
  // plus what it refilled: 26 requests need at least (26 - 5) / 20 s. This
  // bound does not depend on arrival jitter (a fifth off allows a slow first
  // connection).
  const minSpanMs = ((times.length - burst) / qps) * 1000;
  assert.ok(
    times.at(-1)! - times[0]! >= minSpanMs * 0.8,
    `26 requests arrived within ${times.at(-1)! - times[0]!} ms; QPS ${qps} / burst ${burst} need ${minSpanMs} ms`,
  );
  // In any window of arrivals, the server can have seen at most the burst plus
  // what the bucket refilled over that window. Arrival times jitter (connection
  // set-up, a loaded machine holding back a few requests and then delivering
  // them together), so four tokens of slack are allowed; a missing limiter
  // would exceed it many times over.
  const SLACK = 4;
  for (let i = 0; i < times.length; i++) {
    for (let j = i + burst + SLACK; j < times.length; j++) {
      const allowed = burst + SLACK + ((times[j]! - times[i]!) / 1000) * qps;
      assert.ok(
        j - i + 1 <= allowed,
        `${j - i + 1} requests arrived within ${times[j]! - times[i]!} ms; QPS ${qps} / burst ${burst} allow ${allowed.toFixed(1)}`,
      );
    }
  }
});

test.run();
