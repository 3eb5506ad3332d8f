// HTTP clients of our listeners (docs/security.md §5): clients that hold
// connections open, idle or trickling a header byte by byte (slowloris), from
// other addresses or from the probe's own, and keep reconnecting as they are
// dropped. The kubelet's probes (a new connection per probe, as the kubelet
// makes them) must all be answered meanwhile, and no client may hold more than
// its share. Run against the listeners in this process and against the built
// executable.

import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_CONNECTIONS, MAX_CONNECTIONS_PER_CLIENT } from '../../src/app/connection-limits.ts';
import { boundAddress, closeHttp, READ_HEADER_TIMEOUT_MS } from '../../src/app/http-listen.ts';
import { createMetrics, startMetricsServer } from '../../src/app/metrics.ts';
import { startHealthServer } from '../../src/app/probes.ts';
import { Readiness } from '../../src/app/readiness.ts';
import { nullLogger } from '../../src/log.ts';
import { hypernodeControllerRbac, startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { waitFor } from '../../testing/wait.ts';
import { startControllerBinary, type ControllerRun } from '../support/controller-process.ts';
import { loopback } from '../app/options-fixture.ts';

/** The kubelet probes every 10 s by default with a 1 s timeout; ten probes a run, each allowed that second. */
const PROBES = 10;
const PROBE_TIMEOUT_MS = 1_000;
/** Addresses the attacking clients connect from (all of 127.0.0.0/8 is this host's loopback). */
const ATTACKERS = Array.from({ length: 8 }, (_, i) => `127.0.0.${20 + i}`);
/** Each attacker tries to hold this many: past its own bound, and together far past the listener's total. */
const PER_ATTACKER = 20;
/** How often a slowloris client sends its next header byte. */
const TRICKLE_MS = 100;
/** An attacker whose connection was dropped connects again after this. */
const RECONNECT_MS = 250;

const figures: string[] = [];
test.after(() => console.log(`listener figures:\n  ${figures.join('\n  ')}`));

interface Target {
  readonly host: string;
  readonly port: number;
}

function target(address: string): Target {
  const url = new URL(`http://${address}`);
  return { host: url.hostname, port: Number(url.port) };
}

/** One probe as the kubelet makes it: a new connection, GET, a deadline; the status code or the error. */
function probe(to: Target, path: string, from?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      { ...to, path, agent: false, timeout: PROBE_TIMEOUT_MS, ...(from ? { localAddress: from } : {}) },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => resolve(err.message));
    req.end();
  });
}

/** `PROBES` probes 100 ms apart; how many were answered with 200, the slowest answer, and every failure. */
async function probeRun(to: Target, path: string, from?: string) {
  let answered = 0;
  let slowestMs = 0;
  const failures: (number | string)[] = [];
  for (let i = 0; i < PROBES; i++) {
    const started = performance.now();
    const result = await probe(to, path, from);
    if (result === 200) {
      answered++;
      slowestMs = Math.max(slowestMs, performance.now() - started);
    } else failures.push(result);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { answered, slowestMs, failures };
}

interface Attack {
  /** Connections open now, per source address. */
  openBy(): Map<string, number>;
  /** How many of its connections the server closed so far. */
  dropped(): number;
  /** How long each of the first `n` connections made was open, in ms; undefined for one still open. */
  lifetimes(n: number): (number | undefined)[];
  /** From now on, connect again shortly after each drop (and at once for those dropped so far). */
  keepReconnecting(): void;
  stop(): Promise<void>;
}

/**
 * Clients at `sources` that each open `perSource` connections to `to`: idle
 * (connected, sending nothing) or slowloris (a request line, then a header one
 * byte at a time). Once told to, they connect again after every drop.
 */
async function holdConnections(
  to: Target,
  sources: readonly string[],
  perSource: number,
  mode: 'idle' | 'slowloris',
): Promise<Attack> {
  const open = new Map<Socket, string>();
  const lifetimes: (number | undefined)[] = [];
  const lost: string[] = [];
  let dropped = 0;
  let reconnecting = false;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => (timers.delete(t), fn()), ms);
    timers.add(t);
  };
  const connectOne = (from: string): Promise<void> =>
    new Promise((resolve) => {
      const socket = connect({ ...to, localAddress: from });
      const index = lifetimes.push(undefined) - 1;
      let connectedAt = 0;
      socket.on('error', () => {});
      socket.resume();
      socket.once('connect', () => {
        connectedAt = performance.now();
        open.set(socket, from);
        if (mode === 'slowloris') {
          socket.write('GET /healthz HTTP/1.1\r\nHost: probe\r\nX-Slow: ');
          const trickle = setInterval(() => socket.writable && socket.write('a'), TRICKLE_MS);
          timers.add(trickle);
          socket.once('close', () => (clearInterval(trickle), timers.delete(trickle)));
        }
        resolve();
      });
      socket.once('close', () => {
        if (open.delete(socket)) {
          dropped++;
          lifetimes[index] = performance.now() - connectedAt;
        }
        resolve();
        if (stopped) return;
        if (reconnecting) later(RECONNECT_MS, () => void connectOne(from));
        else lost.push(from);
      });
    });
  await Promise.all(sources.flatMap((from) => Array.from({ length: perSource }, () => connectOne(from))));
  return {
    openBy() {
      const by = new Map<string, number>();
      for (const from of open.values()) by.set(from, (by.get(from) ?? 0) + 1);
      return by;
    },
    dropped: () => dropped,
    lifetimes: (n) => lifetimes.slice(0, n),
    keepReconnecting() {
      reconnecting = true;
      for (const from of lost.splice(0)) void connectOne(from);
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      const sockets = [...open.keys()];
      for (const s of sockets) s.destroy();
      await Promise.all(sockets.map((s) => (s.closed ? undefined : new Promise((r) => s.once('close', r)))));
    },
  };
}

/** The sum of the counts. */
const total = (by: Map<string, number>) => [...by.values()].reduce((a, b) => a + b, 0);

/**
 * What the listener lets the attack keep: waits until at least the
 * connections past the limits were dropped, `sources` clients having opened
 * `perSource` each, and no more are (well before the header timeout would
 * drop them all). Other clients' connections (the readiness checks of a test)
 * may take a slot or two.
 */
async function kept(attack: Attack, sources: number, perSource: number): Promise<Map<string, number>> {
  const allowed = Math.min(MAX_CONNECTIONS, sources * Math.min(perSource, MAX_CONNECTIONS_PER_CLIENT));
  let last = -1;
  await waitFor(
    () => {
      const now = attack.dropped();
      const steady = now === last && now >= sources * perSource - allowed;
      last = now;
      return steady;
    },
    { intervalMs: 250, what: `the listener to drop the ${sources * perSource - allowed} connections past its limits` },
  ).catch((err: Error) => {
    throw new Error(`${err.message} (dropped ${attack.dropped()}, open ${total(attack.openBy())})`);
  });
  return attack.openBy();
}

/** Listeners under test: the health and metrics listeners, in this process or in the executable. */
interface Listeners {
  readonly label: string;
  readonly health: Target;
  readonly metrics: Target;
}

async function inProcess(): Promise<Listeners & { close(): Promise<void> }> {
  const readiness = new Readiness();
  readiness.set(true);
  const servers: Server[] = [
    await startHealthServer(loopback(), readiness),
    (await startMetricsServer(loopback(), createMetrics().registry, nullLogger, () => assert.unreachable('exit')))!,
  ];
  return {
    label: 'in process',
    health: target(boundAddress(servers[0]!)),
    metrics: target(boundAddress(servers[1]!)),
    close: () => Promise.all(servers.map(closeHttp)).then(() => {}),
  };
}

/** Every scenario below, against `listeners`. */
async function heldConnectionsScenario(l: Listeners): Promise<void> {
  const attack = await holdConnections(l.health, ATTACKERS, PER_ATTACKER, 'idle');
  try {
    const held = await kept(attack, ATTACKERS.length, PER_ATTACKER);
    assert.ok(
      total(held) <= MAX_CONNECTIONS && total(held) >= MAX_CONNECTIONS - 2,
      `the attackers hold ${total(held)}`,
    );
    for (const [from, n] of held) assert.ok(n <= MAX_CONNECTIONS_PER_CLIENT, `${from} holds ${n}`);
    // And they keep it full: every connection dropped (for a probe) is made again at once.
    attack.keepReconnecting();
    for (const path of ['/healthz', '/readyz']) {
      const run = await probeRun(l.health, path);
      figures.push(
        `${l.label}, ${total(held)} idle connections held by ${held.size} clients: ${run.answered}/${PROBES} ${path} answered, slowest ${run.slowestMs.toFixed(0)} ms`,
      );
      assert.is(run.answered, PROBES, `${path} failures: ${run.failures.join(', ')}`);
    }
    const scrape = await probeRun(l.metrics, '/metrics');
    assert.is(scrape.answered, PROBES, 'the metrics listener has its own connections');
  } finally {
    await attack.stop();
  }
}

async function slowlorisScenario(l: Listeners): Promise<void> {
  // Three clients, each at its bound: none of these is closed to make room, so each lives until the header timeout.
  const first = 3 * MAX_CONNECTIONS_PER_CLIENT;
  const attack = await holdConnections(l.health, ATTACKERS.slice(0, 3), MAX_CONNECTIONS_PER_CLIENT, 'slowloris');
  attack.keepReconnecting();
  try {
    const run = await probeRun(l.health, '/readyz');
    figures.push(
      `${l.label}, ${first} slowloris connections from 3 clients: ${run.answered}/${PROBES} /readyz answered, slowest ${run.slowestMs.toFixed(0)} ms`,
    );
    assert.is(run.answered, PROBES, `failures: ${run.failures.join(', ')}`);
    // No trickled header outlives the header timeout (plus the server's 1 s sweep): the first ones are all cut.
    const lifetimes = await waitFor(
      () => {
        const l = attack.lifetimes(first);
        return l.every((ms) => ms !== undefined) && (l as number[]);
      },
      { timeoutMs: READ_HEADER_TIMEOUT_MS + 5_000, what: 'the trickling connections to be cut' },
    );
    const longest = Math.max(...lifetimes);
    figures.push(`${l.label}, the longest slowloris connection lasted ${(longest / 1000).toFixed(1)} s`);
    assert.ok(longest <= READ_HEADER_TIMEOUT_MS + 2_500, `one lasted ${longest} ms`);
    assert.ok(longest >= READ_HEADER_TIMEOUT_MS - 1_000, 'they were held until the header timeout');
  } finally {
    await attack.stop();
  }
}

async function sameAddressScenario(l: Listeners): Promise<void> {
  // A pod on the host network shares the kubelet's address.
  const attack = await holdConnections(l.health, ['127.0.0.1'], 3 * MAX_CONNECTIONS_PER_CLIENT, 'idle');
  try {
    const held = await kept(attack, 1, 3 * MAX_CONNECTIONS_PER_CLIENT);
    assert.is(held.get('127.0.0.1'), MAX_CONNECTIONS_PER_CLIENT);
    attack.keepReconnecting();
    const run = await probeRun(l.health, '/healthz', '127.0.0.1');
    figures.push(
      `${l.label}, ${held.get('127.0.0.1')} idle connections from the probe's own address: ${run.answered}/${PROBES} answered, slowest ${run.slowestMs.toFixed(0)} ms`,
    );
    assert.is(run.answered, PROBES, `failures: ${run.failures.join(', ')}`);
  } finally {
    await attack.stop();
  }
}

/** `scenario` against listeners started in this process for it, closed afterwards even when it fails. */
const inProcessRun = (scenario: (l: Listeners) => Promise<void>) => async () => {
  const l = await inProcess();
  try {
    await scenario(l);
  } finally {
    await l.close();
  }
};

test(
  'probes answer while other clients hold every connection they can, and no client holds more than its share',
  inProcessRun(heldConnectionsScenario),
);

test(
  'probes answer while clients trickle headers byte by byte (slowloris), which are cut at the header timeout',
  inProcessRun(slowlorisScenario),
);

test("probes answer while a client on the probe's own address holds connections", inProcessRun(sameAddressScenario));

// The same attacks on what ships: the executable, ready against the API server stand-in.
const NS = 'volcano-system';
let api: ApiServer | undefined;
let controller: ControllerRun | undefined;
let dir = '';

async function executable(): Promise<Listeners> {
  if (!controller) {
    dir = mkdtempSync(join(tmpdir(), 'listeners-'));
    api = await startApiServer({ namespaces: [NS] });
    const kubeconfig = api.writeKubeconfig(dir, {
      token: api.addUser('controller', hypernodeControllerRbac(NS, 'vc-hypernode-controller-manager')),
    });
    controller = await startControllerBinary({ kubeconfig, namespace: NS });
  }
  return {
    label: 'executable',
    health: target(new URL(controller.healthOrigin!).host),
    metrics: target(new URL(controller.metricsOrigin!).host),
  };
}

test.after(async () => {
  await controller?.stop();
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the built executable: probes answer while other clients hold every connection they can', async () => {
  await heldConnectionsScenario(await executable());
});

test('the built executable: probes answer through slowloris, which is cut at the header timeout', async () => {
  await slowlorisScenario(await executable());
});

test("the built executable: probes answer while a client on the probe's own address holds connections", async () => {
  await sameAddressScenario(await executable());
});

test.run();
