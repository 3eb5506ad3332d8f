// The poll loop's rebuilds between polls (discovery/poll-loop.ts), driven by
// a fake clock: a burst of requests costs one rebuild after the coalescing
// window; a request made while a poll runs is served right after that poll;
// a request made before a poll, or whose window is still open when the poll
// starts, is served by the poll itself; a rebuild that
// throws is logged and publishes nothing, and the loop goes on; a long
// rebuild runs in slices with turns of the event loop between them; the poll
// schedule never moves.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  REBUILD_COALESCE_MS,
  RebuildRequests,
  startPollLoop,
  type PollRun,
} from '../../../src/hypernode/discovery/poll-loop.ts';
import type { Snapshot } from '../../../src/hypernode/model/contracts.ts';
import { buildMembers, buildWithTierName } from '../../../src/hypernode/model/hypernode-builders.ts';
import type { Channel } from '../../../src/util/channel.ts';
import { oneStep, SLICE_MS, type SlicedWork } from '../../../src/util/sliced-work.ts';
import { FakeClock, settle } from '../../kube/fake-clock.ts';
import { capturingLogger } from '../../support/capturing-logger.ts';
import { waitFor } from '../../../testing/wait.ts';

const INTERVAL_MS = 10_000;
const snapshotOf = (what: string): Snapshot => [buildWithTierName(what, 1, 'leaf', buildMembers(['n'], 'Node'), {})];

/** A loop whose polls and rebuilds are recorded; a poll stays in flight until `finishPoll`. */
function loop() {
  const clock = new FakeClock();
  const { logger, lines } = capturingLogger();
  const requests = new RebuildRequests(clock, logger);
  const stop = new AbortController();
  const log: string[] = [];
  let finishPoll: (() => void) | undefined;
  let rebuild = (): SlicedWork<Snapshot | undefined> => oneStep(() => snapshotOf('rebuild'));
  const start = clock.now();
  const out: Channel<Snapshot> = startPollLoop(
    () =>
      new Promise<PollRun>((resolve) => {
        log.push(`poll at ${clock.now() - start}`);
        finishPoll = () => resolve({ snapshot: snapshotOf('poll'), ok: true });
      }),
    {
      intervalMs: INTERVAL_MS,
      retryBaseMs: 1_000,
      clock,
      logger,
      signal: stop.signal,
      stoppedMessage: 'stopped',
      rebuild: {
        requests,
        run: () => {
          log.push(`rebuild at ${clock.now() - start}`);
          return rebuild();
        },
      },
    },
  );
  /** Names of the snapshots published and not yet taken. */
  const published = async (): Promise<string[]> => {
    const names: string[] = [];
    for (;;) {
      const now = new AbortController();
      const r = out.recv(now.signal);
      now.abort();
      const got = await r.then((x) => x.value).catch(() => undefined);
      if (!got) return names;
      names.push(got[0]!.metadata.name);
    }
  };
  return {
    clock,
    lines,
    requests,
    log,
    published,
    finishPoll: async () => {
      finishPoll!();
      await settle();
    },
    setRebuild: (fn: () => Snapshot | undefined) => void (rebuild = () => oneStep(fn)),
    setRebuildWork: (work: () => SlicedWork<Snapshot | undefined>) => void (rebuild = work),
    stop: () => stop.abort(),
  };
}

test('a burst of requests between polls is one rebuild after the window; the next poll stays at the interval', async () => {
  const l = loop();
  await settle();
  await l.finishPoll();
  assert.equal(await l.published(), ['poll']);
  await l.clock.advance(1_000);
  for (let i = 0; i < 5; i++) l.requests.request();
  await l.clock.advance(REBUILD_COALESCE_MS - 1);
  assert.equal(l.log, ['poll at 0'], 'not before the window closes');
  l.requests.request();
  await l.clock.advance(1);
  assert.equal(l.log, ['poll at 0', `rebuild at ${1_000 + REBUILD_COALESCE_MS}`]);
  assert.equal(await l.published(), ['rebuild']);
  await l.clock.advance(INTERVAL_MS - 1_000 - REBUILD_COALESCE_MS);
  assert.equal(l.log.at(-1), `poll at ${INTERVAL_MS}`);
  l.stop();
});

test('a request during a poll is served right after it; one before the poll is served by the poll', async () => {
  const l = loop();
  l.requests.request(); // before the first poll (an informer replaying its cache): the poll reads the labels
  await settle();
  l.requests.request(); // while the poll runs, which outlasts the window
  await l.clock.advance(REBUILD_COALESCE_MS * 3);
  assert.equal(l.log, ['poll at 0'], 'a rebuild never overlaps a poll');
  await l.finishPoll();
  assert.equal(l.log, ['poll at 0', `rebuild at ${REBUILD_COALESCE_MS * 3}`]);
  assert.equal(await l.published(), ['poll', 'rebuild']);
  await l.clock.advance(REBUILD_COALESCE_MS * 3);
  assert.equal(l.log.length, 2, 'no further rebuild without a request');
  l.stop();
});

test('a burst still gathering when the poll starts is served by the poll', async () => {
  const l = loop();
  await settle();
  await l.finishPoll();
  await l.published();
  await l.clock.advance(INTERVAL_MS - REBUILD_COALESCE_MS / 2);
  l.requests.request();
  await l.clock.advance(REBUILD_COALESCE_MS / 2);
  assert.equal(l.log, ['poll at 0', `poll at ${INTERVAL_MS}`]);
  await l.finishPoll();
  await l.clock.advance(REBUILD_COALESCE_MS * 3);
  assert.equal(l.log.length, 2, 'no rebuild after the poll that read the labels');
  l.stop();
});

test('a rebuild that throws publishes nothing and is logged; the loop serves the next request', async () => {
  const l = loop();
  await settle();
  await l.finishPoll();
  await l.published();
  l.setRebuild(() => {
    throw new Error('two domains share a name');
  });
  l.requests.request();
  await l.clock.advance(REBUILD_COALESCE_MS);
  assert.equal(await l.published(), []);
  assert.ok(
    l.lines.some(
      (line) =>
        line.includes('Failed to rebuild the topology from the last poll') && line.includes('two domains share a name'),
    ),
    l.lines.join('\n'),
  );
  l.setRebuild(() => snapshotOf('again'));
  l.requests.request();
  await l.clock.advance(REBUILD_COALESCE_MS);
  assert.equal(await l.published(), ['again']);
  l.stop();
});

test('a long rebuild runs in slices: the event loop takes turns between them, so probes and the Lease are served', async () => {
  const l = loop();
  await settle();
  await l.finishPoll();
  await l.published();
  // Turns of the event loop, counted by a callback that queues itself again for each next turn.
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const seen: number[] = [];
  l.setRebuildWork(function* () {
    for (let step = 0; step < 4; step++) {
      seen.push(turns);
      const busyUntil = performance.now() + SLICE_MS * 0.75;
      while (performance.now() < busyUntil);
      yield;
    }
    return snapshotOf('sliced');
  });
  try {
    l.requests.request();
    await l.clock.advance(REBUILD_COALESCE_MS);
    const published: string[] = [];
    await waitFor(async () => (published.push(...(await l.published())), published.includes('sliced')), {
      what: 'the sliced rebuild published',
      timeoutMs: 10_000,
    });
    assert.is(seen.length, 4);
    assert.ok(seen[3]! > seen[0]!, `the event loop took no turn during a rebuild of ${SLICE_MS * 3} ms: ${seen}`);
  } finally {
    counting = false;
    l.stop();
  }
});

test.run();
