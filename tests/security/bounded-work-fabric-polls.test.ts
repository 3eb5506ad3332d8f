// Bounded work of a fabric poll (docs/security.md §9): the thread that reads
// a fabric and groups it is the one that renews the Lease and answers
// /healthz. A poll of the 9,216-tray GB200 fabric held it for 1.1 to 1.7 s in
// one stretch after its answers were read (the graph, the link memory, the
// levels), and on a machine whose CPU was shared eight ways the controller
// lost its Lease. The poll here is a quarter of that fabric, run in this
// process while other processes keep every core busy so that it gets about a
// quarter of one. Work done in one stretch grows with the fabric, so this
// quarter may hold the thread for a quarter of the second a probe waits at
// most; work done in slices holds it for a slice whatever the size.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createUfmDiscovererFactory } from '../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import type { DiscoveryEntry } from '../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { realClock } from '../../src/kube/clock.ts';
import { generateFatTree } from '../../testing/fat-tree.ts';
import { within } from '../../testing/wait.ts';
import { capturingLogger } from '../support/capturing-logger.ts';
import { FakeInformer } from '../support/fake-informer.ts';
import { FakeSecrets } from '../support/fake-secrets.ts';
import { RecordingFabricHealth } from '../support/recording-fabric-health.ts';
import { RecordingProblems } from '../support/recording-problems.ts';
import { TEST_INPUT_POLICY } from '../support/input-policy.ts';
import { unexpectedWorkerError } from '../support/worker-errors.ts';

/** kubelet's probe timeout: a stall this long fails a /healthz probe. */
const PROBE_TIMEOUT_MS = 1_000;
/** Scalable units of 144 trays on 8 rails: 16 of the GB200 fabric's 64. */
const UNITS = 16;
/** What the whole fabric may stall for, scaled down to the part polled here. */
const STALL_LIMIT_MS = (PROBE_TIMEOUT_MS * UNITS) / 64;
/** Our share of a core: a load of eight on two cores, as the machine had when the Lease was lost. */
const CONTENTION = 4;
const POLL_TIMEOUT_MS = 60_000;

/** Busy processes, so many that this one gets about 1/CONTENTION of a core; each ends by itself after a minute. */
function contend(): ChildProcess[] {
  const count = availableParallelism() * CONTENTION - 1;
  const spin = `const end = Date.now() + ${POLL_TIMEOUT_MS}; while (Date.now() < end);`;
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
}

/** The longest time the event loop did not turn, from start() to stop(). */
function stallWatch(): { stop(): number } {
  const TICK_MS = 5;
  let longest = 0;
  let last = performance.now();
  let timer: NodeJS.Timeout;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - TICK_MS);
    last = now;
    timer = setTimeout(tick, TICK_MS);
  };
  timer = setTimeout(tick, TICK_MS);
  return {
    stop() {
      clearTimeout(timer);
      // The stretch that just ended may not have let the timer run yet.
      longest = Math.max(longest, performance.now() - last - TICK_MS);
      return Math.round(longest);
    },
  };
}

test('a poll of a quarter of the GB200 fabric with the CPU shared four ways stalls the event loop under a quarter of a probe timeout', async () => {
  // 2,304 trays: 2,624 systems, 26,624 links, 53,248 ports.
  const tree = generateFatTree({ sus: UNITS, nodesPerSu: 144, rails: 8, tiers: 3 });
  const bodies: Record<string, string> = {
    systems: JSON.stringify(tree.systems),
    links: JSON.stringify(tree.links),
    ports: JSON.stringify(tree.ports),
  };
  const { logger } = capturingLogger();
  // The CPU is contended from the last answer on, for its decoding and the grouping: not longer, as the other test
  // files run beside this one.
  let busy: ChildProcess[] = [];
  const factory = createUfmDiscovererFactory({
    readResourceBody: async (_endpoint, resource) => {
      if (resource === 'ports' && busy.length === 0) busy = contend();
      return bodies[resource]!;
    },
  });
  const entry: DiscoveryEntry = {
    source: 'ufm',
    enabled: true,
    intervalMs: 60_000,
    maxDeletePercent: 50,
    config: { mode: 'fabric', fabric: 'gb200', endpoint: 'https://ufm.example' },
  };
  const discoverer = await factory(entry, {
    nodes: new FakeInformer<NodeMeta>({ initial: tree.hosts.map((name) => ({ metadata: { name } })) }),
    hyperNodes: new FakeInformer<HyperNode>({ initial: [] }),
    secrets: new FakeSecrets(),
    clock: realClock,
    logger,
    workerErrors: unexpectedWorkerError,
    inputPolicy: TEST_INPUT_POLICY,
    problems: new RecordingProblems(logger),
    fabricHealth: new RecordingFabricHealth(60_000),
  });
  const watch = stallWatch();
  try {
    const snapshot = (await within((await discoverer.start()).recv(), POLL_TIMEOUT_MS, 'the first snapshot')).value!;
    const longestStallMs = watch.stop();
    // One leaf group a unit holding every tray, and one group on top: the poll was grouped whole.
    const leafGroups = snapshot.filter((hn) => hn.spec.tier === 1);
    assert.is(leafGroups.length, UNITS);
    assert.is(
      leafGroups.reduce((n, hn) => n + hn.spec.members.length, 0),
      tree.hosts.length,
    );
    const top = Math.max(...snapshot.map((hn) => hn.spec.tier));
    assert.is(snapshot.filter((hn) => hn.spec.tier === top).length, 1);
    assert.ok(
      longestStallMs < STALL_LIMIT_MS,
      `the event loop stalled for ${longestStallMs} ms; the whole fabric would stall about ${(longestStallMs * 64) / UNITS} ms, and a probe gives up after ${PROBE_TIMEOUT_MS} ms`,
    );
  } finally {
    watch.stop();
    for (const child of busy) child.kill('SIGKILL');
    await discoverer.stop();
  }
});

test.run();
