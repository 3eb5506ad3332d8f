// runServer in-process against the API server stand-in, with the chart's
// least-privilege RBAC: wiring of the three informers, the controller context,
// readiness, Events on the ConfigMap, leader election with release on stop,
// and the error exits (lost lease, controller stopped, health bind failure).

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CONTROLLER_STOPPED_UNEXPECTEDLY,
  type ControllerContext,
  type ControllerFactory,
} from '../../src/app/controller-runner.ts';
import { boundAddress, closeHttp } from '../../src/app/http-listen.ts';
import { createMetrics } from '../../src/app/metrics.ts';
import { LOST_LEASE } from '../../src/app/leader-election-runnable.ts';
import { runServer, type ServerDeps } from '../../src/app/server.ts';
import { parse, validate, type ResolvedOptions } from '../../src/app/options.ts';
import { systemResolver, type ResolverDeps } from '../../src/app/flags/tcp-address.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { nullLogger } from '../../src/log.ts';
import { hypernodeControllerRbac, startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { freePorts } from '../../testing/ports.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { TEST_LEADER_ELECTION, testOptions } from './options-fixture.ts';

const NS = 'volcano-system';
const LEASE = 'vc-hypernode-controller-manager';
const SA = `system:serviceaccount:${NS}:hypernode-controller`;

let api: ApiServer;
let dir: string;
let kubeconfig: string;

test.before(async () => {
  api = await startApiServer({ namespaces: [NS] });
  dir = mkdtempSync(join(tmpdir(), 'server-'));
  kubeconfig = api.writeKubeconfig(dir, { token: api.addUser(SA, hypernodeControllerRbac(NS, LEASE)) });
  api.store.create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', labels: { rack: 'r1' }, annotations: { big: 'x' } },
    status: { capacity: { cpu: '8' } },
  });
  api.store.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'volcano-controller-configmap', namespace: NS },
    data: { 'volcano-controller.conf': '' },
  });
  api.store.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'someone-else', namespace: NS },
    data: {},
  });
  api.store.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ufm', namespace: NS },
    data: { username: 'YQ==' },
  });
  api.store.create({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name: 'hn-1' },
    spec: { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'n1' } } }] },
  });
});
test.after(async () => {
  await api.close();
  rmSync(dir, { recursive: true });
});

interface Running {
  done: Promise<void>;
  stop(): void;
  health(): Promise<string>;
  metrics(): Promise<string>;
  exits: number[];
}

/** Runs of the current test, stopped after it even when it fails. */
const runs: Running[] = [];
test.after.each(async () => {
  for (const r of runs.splice(0)) {
    r.stop();
    await r.done.catch(() => {});
  }
});

function start(options: ResolvedOptions, deps: Partial<ServerDeps> = {}): Running {
  const stop = new AbortController();
  let listening: { health?: Server; metrics?: Server } | undefined;
  const exits: number[] = [];
  const done = runServer({ ...options, kubeconfig }, nullLogger, {
    env: {},
    handleSignals: false,
    hostname: 'pod-a',
    metrics: createMetrics(),
    signal: stop.signal,
    exit: (c) => void exits.push(c),
    onListening: (s) => (listening = s),
    ...deps,
  });
  done.catch(() => {});
  const address = (which: 'health' | 'metrics') =>
    waitFor(() => listening?.[which] && boundAddress(listening[which]!), { what: `${which} server` });
  const run: Running = {
    done,
    stop: () => stop.abort(),
    health: () => address('health'),
    metrics: () => address('metrics'),
    exits,
  };
  runs.push(run);
  return run;
}

async function status(address: string, path: string): Promise<number> {
  const res = await fetch(`http://${address}${path}`);
  await res.arrayBuffer();
  return res.status;
}

/** A controller that reports started only when the test says so. */
function gatedController() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const seen: { ctx?: ControllerContext; stopped: boolean } = { stopped: false };
  const factory: ControllerFactory = (ctx) => {
    seen.ctx = ctx;
    return {
      run: async (signal, onStarted) => {
        await Promise.race([gate, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
        if (!signal.aborted) onStarted();
        await new Promise((r) => (signal.aborted ? r(undefined) : signal.addEventListener('abort', r, { once: true })));
        seen.stopped = true;
      },
    };
  };
  return { factory, release, seen };
}

test('without leader election: synced informers reach the controller, /readyz follows its start, Events land on the ConfigMap, RBAC suffices', async () => {
  api.requests.clear();
  const { factory, release, seen } = gatedController();
  const run = start(testOptions(), { controllerFactory: factory });
  const health = await run.health();
  assert.is(await status(health, '/healthz'), 200);
  const ctx = await waitFor(() => seen.ctx, { what: 'controller built after sync' });
  assert.is(await status(health, '/readyz'), 503, 'not ready before the controller started');
  release();
  await waitFor(async () => (await status(health, '/readyz')) === 200, { what: 'ready' });

  assert.equal(ctx.nodes.get('n1'), {
    metadata: { name: 'n1', labels: { rack: 'r1' }, resourceVersion: ctx.nodes.get('n1')!.metadata.resourceVersion },
  });
  assert.equal(
    ctx.configMaps.list().map((c) => c.metadata.name),
    ['volcano-controller-configmap'],
  );
  assert.ok(ctx.hyperNodes.get('hn-1'));
  assert.equal(
    ctx.configMap,
    { namespace: NS, name: 'volcano-controller-configmap', key: 'volcano-controller.conf' },
    'the location validation resolved, data key included',
  );
  assert.is((await ctx.secrets.get(NS, 'ufm')).data?.username, 'YQ==');
  const created = await ctx.hyperNodeClient.create({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name: 'hn-2' },
    spec: { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'n1' } } }] },
  } as HyperNode);
  await waitFor(() => ctx.hyperNodes.get('hn-2'), { what: 'the HyperNode informer sees the create' });
  ctx.events.event(created, 'Warning', 'FailedUpdate', 'failed to update: boom');
  const event = await waitFor(
    () =>
      (
        api.store.list('events', NS) as Array<
          KubeObject & { message: string; involvedObject: { kind: string; name: string } }
        >
      ).find((e) => e.message.includes('boom')),
    { what: 'event' },
  );
  assert.is(event.message, 'HyperNode hn-2: failed to update: boom');
  assert.equal([event.involvedObject.kind, event.involvedObject.name], ['ConfigMap', 'volcano-controller-configmap']);

  const mine = api.requests.all({ user: SA });
  assert.equal(
    mine.filter((r) => r.code === 403 || r.code === 401),
    [],
    'the chart RBAC is enough',
  );
  const lists = mine
    .filter((r) => r.verb === 'list')
    .map((r) => `${r.resource} ${r.namespace} ${r.query.fieldSelector ?? ''}`.trim());
  assert.equal(lists.sort(), [
    'configmaps volcano-system metadata.name=volcano-controller-configmap',
    'hypernodes',
    'nodes',
  ]);
  assert.equal(
    mine.filter((r) => r.verb === 'watch').map((r) => r.query.allowWatchBookmarks),
    ['true', 'true', 'true'],
  );
  assert.ok(
    mine.every((r) =>
      /^vc-hypernode-controller-manager\/\S+ \(linux\/\w+\) kubernetes\/\S+\/vc-hypernode-controller-manager$/.test(
        r.userAgent,
      ),
    ),
    mine[0]!.userAgent,
  );

  run.stop();
  await within(run.done, 10_000, 'runServer after stop');
  assert.ok(seen.stopped);
  assert.equal(api.watches({ user: SA }), [], 'informers stopped');
});

test('an unreachable API server: alive but never ready, and a stop still ends the run cleanly', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const { factory, seen } = gatedController();
  const metrics = createMetrics();
  const run = start(testOptions({ master: `https://127.0.0.1:${port}`, metrics: undefined }), {
    controllerFactory: factory,
    metrics,
  });
  const health = await run.health();
  await waitFor(async () => (await metrics.registry.metrics()).includes('code="<error>"'), {
    what: 'failed list attempts',
  });
  assert.is(await status(health, '/healthz'), 200);
  assert.is(await status(health, '/readyz'), 503);
  assert.is(seen.ctx, undefined, 'no controller before the caches synced');
  run.stop();
  await within(run.done, 10_000, 'runServer after stop');
});

test('a controller that stops on its own fails the run with the Go message', async () => {
  const run = start(testOptions({ metrics: undefined }), {
    controllerFactory: () => ({ run: async (_s, onStarted) => onStarted() }),
  });
  const err = await run.done.catch((e: Error) => e);
  assert.is((err as Error).message, CONTROLLER_STOPPED_UNEXPECTEDLY);
});

test('a busy health address fails the start with the Go message, quoting the address as given', async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const options = await validated(['--enable-healthz', '--healthz-address=127.0.0.1:vc-busy', '--leader-elect=false'], {
    'vc-busy': (busy.address() as AddressInfo).port,
  });
  const run = start(options);
  const err = await run.done.catch((e: Error) => e);
  assert.is(
    (err as Error).message,
    'failed to create health listener: listen tcp 127.0.0.1:vc-busy: bind: address already in use',
    'the address as the user wrote it',
  );
  await closeHttp(busy);
});

/** The options validate() resolves from `argv`, with service names looked up in `services`. */
async function validated(argv: string[], services: Record<string, number>): Promise<ResolvedOptions> {
  const parsed = parse(argv);
  if (parsed.kind !== 'ok') throw new Error(`${argv.join(' ')} did not parse: ${JSON.stringify(parsed)}`);
  const resolver: ResolverDeps = { ...systemResolver, lookupService: (name) => services[name] };
  const validation = await validate(parsed.options, { env: {}, resolver });
  if (!validation.ok) throw new Error(validation.problems.join('\n'));
  return validation.config;
}

test('a service-name port that validation accepted is the port the health server binds', async () => {
  const [port] = await freePorts(1);
  const options = await validated(
    ['--enable-healthz', '--healthz-address=127.0.0.1:vc-probes', '--leader-elect=false'],
    { 'vc-probes': port! },
  );
  const run = start(options);
  const health = await Promise.race([run.health(), run.done.then(() => 'stopped')]);
  assert.is(health, `127.0.0.1:${port}`);
  assert.is(await status(health, '/healthz'), 200);
});

/** A controller that ignores its stop signal until `release` is called. */
function stubbornController() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const factory: ControllerFactory = () => ({
    run: async (_signal, onStarted) => {
      onStarted();
      await gate;
    },
  });
  return { factory, release };
}

test('the first SIGTERM starts a graceful stop; a second one exits 1 at once', async () => {
  const { factory, release } = stubbornController();
  const run = start(testOptions({ metrics: undefined }), { controllerFactory: factory, handleSignals: true });
  const health = await run.health();
  await waitFor(async () => (await status(health, '/readyz')) === 200, { what: 'ready' });
  process.emit('SIGTERM', 'SIGTERM');
  assert.equal(run.exits, []);
  assert.is(await status(health, '/readyz'), 503, 'not ready while shutting down; liveness stays');
  assert.is(await status(health, '/healthz'), 200);
  process.emit('SIGTERM', 'SIGTERM');
  assert.equal(run.exits, [1]);
  release();
  await within(run.done, 10_000, 'runServer after the controller stopped');
  assert.is(process.listenerCount('SIGTERM'), 0, 'signal handlers removed on return');
});

test('a shutdown that overruns its deadline fails the run', async () => {
  const { factory, release } = stubbornController();
  const run = start(testOptions({ metrics: undefined }), { controllerFactory: factory, shutdownTimeoutMs: 300 });
  const health = await run.health();
  await waitFor(async () => (await status(health, '/readyz')) === 200, { what: 'ready' });
  run.stop();
  const err = await within(
    run.done.catch((e: Error) => e),
    10_000,
    'deadline',
  );
  assert.is((err as Error).message, 'shutdown did not finish within 0.3 s (still stopping: controller)');
  release();
});

test('leader election: leads with a client-go Lease, Events on the Lease, ready after sync, releases the Lease on stop', async () => {
  api.requests.clear();
  const run = start(testOptions({ leaderElection: TEST_LEADER_ELECTION }));
  const health = await run.health();
  await waitFor(async () => (await status(health, '/readyz')) === 200, { what: 'leader ready' });
  const lease = api.store.get('leases', LEASE, NS) as KubeObject & { spec: Record<string, unknown> };
  assert.match(String(lease.spec.holderIdentity), /^pod-a_[0-9a-f-]{36}$/);
  assert.is(lease.spec.leaseDurationSeconds, 2);
  assert.match(String(lease.spec.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const became = await waitFor(
    () =>
      (api.store.list('events', NS) as Array<KubeObject & { message: string; involvedObject: { kind: string } }>).find(
        (e) => e.message.endsWith('became leader'),
      ),
    { what: 'event' },
  );
  assert.is(became.involvedObject.kind, 'Lease');
  const leaseCalls = api.requests.all({ resource: 'leases' });
  assert.ok(leaseCalls.every((r) => r.userAgent.endsWith('/hypernode-leader-election')));
  const metrics = await run.metrics();
  const text = await (await fetch(`http://${metrics}/metrics`)).text();
  assert.match(text, `leader_election_master_status{name="${LEASE}"} 1`);

  run.stop();
  await within(run.done, 10_000, 'runServer after stop');
  const released = api.store.get('leases', LEASE, NS) as KubeObject & { spec: Record<string, unknown> };
  assert.is(released.spec.holderIdentity ?? '', '');
  assert.is(released.spec.leaseDurationSeconds, 1);
});

test('leader election: a leader that cannot renew loses the lease and the run fails with "lost lease"', async () => {
  api.clearFaults();
  const run = start(testOptions({ metrics: undefined, leaderElection: TEST_LEADER_ELECTION }));
  const health = await run.health();
  await waitFor(async () => (await status(health, '/readyz')) === 200, { timeoutMs: 15_000, what: 'leader ready' });
  api.failNext(100_000, { code: 500, match: { resource: 'leases', verb: 'update' } });
  const err = await within(
    run.done.catch((e: Error) => e),
    15_000,
    'lost lease',
  );
  assert.is((err as Error).message, LOST_LEASE);
  api.clearFaults();
});

test.run();
