// Leader election state machine with a fake clock and an in-memory Lease store:
// client-go's record rules and timings, the release on shutdown, and the write
// fence that keeps a leader frozen past its lease from writing when it resumes.

import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kube/errors.ts';
import type { EventSink, ObjectReference } from '../../src/kube/events.ts';
import { LeaderElector, newIdentity } from '../../src/kube/leader-election.ts';
import {
  formatMicroTime,
  recordFromSpec,
  specFromRecord,
  type LeaderElectionRecord,
  type Lease,
  type LeaseSpec,
  type ResourceLock,
} from '../../src/kube/lease-lock.ts';
import { RestClient } from '../../src/kube/rest.ts';
import type { Transport } from '../../src/kube/transport.ts';
import { FencedError, LeadershipFence } from '../../src/kube/write-fence.ts';
import { nullLogger } from '../../src/log.ts';
import { FakeClock, settle } from './fake-clock.ts';

const LEASE_MS = 15_000;
const RENEW_MS = 10_000;
const RETRY_MS = 2_000;

/** One Lease in memory with resourceVersion checks, shared by several locks. */
class LeaseStore {
  lease: Lease | undefined;
  private rv = 0;
  writes = 0;
  failing = new Set<string>();
  /** While set, Lease writes wait for it before they are applied (an answer in flight). */
  gate: Promise<void> | undefined;
  /** While set, Lease updates are applied at once but answered only when it resolves, and not at all once aborted. */
  answerGate: Promise<void> | undefined;
  get(): Lease {
    if (!this.lease) throw new ApiError('leases "l" not found', 404, 'NotFound');
    return structuredClone(this.lease);
  }
  put(lease: Lease, create: boolean, who: string): Lease {
    if (this.failing.has(who)) throw new Error('connection refused');
    if (create && this.lease) throw new ApiError('already exists', 409, 'AlreadyExists');
    if (!create && lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion)
      throw new ApiError('conflict', 409, 'Conflict');
    this.writes++;
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
    return structuredClone(this.lease);
  }
  spec(): LeaseSpec {
    return this.lease!.spec!;
  }
}

class MemoryLock implements ResourceLock {
  private last: Lease | undefined;
  constructor(
    private readonly store: LeaseStore,
    private readonly who: string,
  ) {}
  async get() {
    if (this.store.failing.has(this.who)) throw new Error('connection refused');
    this.last = this.store.get();
    return { record: recordFromSpec(this.last.spec), raw: JSON.stringify(this.last.spec) };
  }
  async create(r: LeaderElectionRecord) {
    this.last = this.store.put({ metadata: { name: 'l', namespace: 'ns' }, spec: specFromRecord(r) }, true, this.who);
  }
  async update(r: LeaderElectionRecord, signal?: AbortSignal) {
    if (!this.last) throw new Error('lease not initialized');
    await this.store.gate;
    const written = this.store.put({ ...this.last, spec: specFromRecord(r) }, false, this.who);
    if (this.store.answerGate !== undefined) {
      await this.store.answerGate;
      signal?.throwIfAborted();
    }
    this.last = written;
  }
  describe() {
    return 'ns/l';
  }
  object() {
    return this.last;
  }
}

interface Candidate {
  id: string;
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<void>;
  started: number;
  stopped: number;
  leading: boolean;
  leaders: string[];
  workDone: boolean;
  events: string[];
}

function candidate(
  store: LeaseStore,
  clock: FakeClock,
  id: string,
  opts: { workStopMs?: number; fence?: LeadershipFence } = {},
): Candidate {
  const c = {
    id,
    started: 0,
    stopped: 0,
    leading: false,
    leaders: [],
    workDone: false,
    events: [],
  } as unknown as Candidate;
  const events: EventSink = {
    async record(_ref: ObjectReference, _type, _reason, message) {
      c.events.push(message);
    },
  };
  c.stop = new AbortController();
  c.elector = new LeaderElector({
    lock: new MemoryLock(store, id),
    identity: id,
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
    clock,
    ...(opts.fence ? { fence: opts.fence } : {}),
    logger: nullLogger,
    events,
    random: () => 0,
    onLeadingChanged: (l) => (c.leading = l),
    callbacks: {
      async onStartedLeading(signal) {
        c.started++;
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
        if (opts.workStopMs) await clock.sleep(opts.workStopMs);
        c.workDone = true;
      },
      onStoppedLeading: () => c.stopped++,
      onNewLeader: (l) => c.leaders.push(l),
    },
  });
  c.done = c.elector.run(c.stop.signal);
  return c;
}

async function stopCandidate(c: Candidate, clock: FakeClock): Promise<void> {
  c.stop.abort();
  await clock.advance(0);
  await c.done;
}

/** A leader `a_1` and a follower `b_2` sharing one Lease. */
async function leaderAndFollower(opts: { workStopMs?: number } = {}) {
  const clock = new FakeClock();
  const store = new LeaseStore();
  const a = candidate(store, clock, 'a_1', opts);
  await settle();
  const b = candidate(store, clock, 'b_2');
  await settle();
  return { clock, store, a, b };
}

test('identity is <hostname>_<uuid v4>, new per process start', () => {
  const a = newIdentity('pod-a');
  assert.match(a, /^pod-a_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is.not(newIdentity('pod-a'), a);
});

test('MicroTime is RFC 3339 with exactly 6 fractional digits', () => {
  assert.is(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), '2026-01-02T03:04:05.678000Z');
  assert.is(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 0)), '2026-01-02T03:04:05.000000Z');
});

test('first candidate creates the Lease with a full client-go record and becomes leader', async () => {
  const clock = new FakeClock();
  const store = new LeaseStore();
  const a = candidate(store, clock, 'a_1');
  await settle();
  assert.is(a.started, 1);
  assert.ok(a.leading);
  assert.equal(store.spec(), {
    holderIdentity: 'a_1',
    leaseDurationSeconds: 15,
    acquireTime: formatMicroTime(clock.now()),
    renewTime: formatMicroTime(clock.now()),
    leaseTransitions: 0,
  });
  assert.equal(a.events, ['a_1 became leader']);
  await settle();
  assert.equal(a.leaders, ['a_1']);
  await stopCandidate(a, clock);
});

test('renewals every retry period keep acquireTime and leaseTransitions and move renewTime', async () => {
  const clock = new FakeClock();
  const store = new LeaseStore();
  const a = candidate(store, clock, 'a_1');
  await settle();
  const acquired = store.spec().acquireTime;
  await clock.advance(RETRY_MS);
  assert.is(store.spec().renewTime, formatMicroTime(clock.now()));
  assert.is(store.spec().acquireTime, acquired);
  assert.is(store.spec().leaseTransitions, 0);
  const writes = store.writes;
  await clock.advance(RETRY_MS * 3);
  assert.is(store.writes, writes + 3);
  await stopCandidate(a, clock);
});

test('a follower waits while the lease is valid, reports the leader, and takes over after the lease expires', async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  assert.is(b.started, 0);
  assert.equal(b.leaders, ['a_1']);
  // a crashes: no more renewals, no release.
  store.failing.add('a_1');
  // a's lease was last renewed just now; b only trusts its own observation time.
  await clock.advance(LEASE_MS - RETRY_MS);
  assert.is(b.started, 0, 'b must not take over before the lease duration passed');
  await clock.advance(RETRY_MS * 2 + 1);
  assert.is(b.started, 1);
  assert.is(store.spec().holderIdentity, 'b_2');
  assert.is(store.spec().leaseTransitions, 1);
  assert.is(store.spec().acquireTime, store.spec().renewTime);
  await settle();
  assert.equal(b.leaders, ['a_1', 'b_2']);
  // meanwhile a could not renew within the renew deadline: it lost leadership,
  // without a "stopped leading" Event (a write after the deadline is fenced).
  assert.is(a.stopped, 1);
  assert.equal(a.events, ['a_1 became leader']);
  await a.done;
  await stopCandidate(b, clock);
});

test('a Lease that vanished (etcd restored without it) is not taken while the lease last observed is valid: never two leaders', async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  // The Lease is gone and a cannot write it back (e.g. its requests fail); a still leads until its renew deadline.
  store.lease = undefined;
  store.failing.add('a_1');
  const goneAt = clock.now();
  await clock.advance(RENEW_MS - 1);
  assert.ok(a.leading, 'a still within its renew deadline');
  assert.is(b.started, 0, 'b must not create the Lease while a may still be writing');
  await clock.advance(LEASE_MS - RENEW_MS + 2 * RETRY_MS + 2);
  assert.not.ok(a.leading);
  assert.is(b.started, 1, 'b takes over once the lease it last observed has expired');
  assert.ok(clock.now() - goneAt >= LEASE_MS - RETRY_MS);
  assert.is(store.spec().holderIdentity, 'b_2');
  await a.done;
  await stopCandidate(b, clock);
});

test('a leader that cannot renew stops leading once its last successful renewal is a renew deadline old; its work is cancelled', async () => {
  const clock = new FakeClock();
  const store = new LeaseStore();
  const a = candidate(store, clock, 'a_1');
  await settle();
  store.failing.add('a_1');
  await clock.advance(RENEW_MS - 1);
  assert.is(a.stopped, 0, 'still within the renew deadline');
  await clock.advance(2);
  await a.done;
  assert.is(a.stopped, 1);
  assert.not.ok(a.leading);
  assert.ok(a.workDone, 'leader work saw its signal abort');
  assert.is(store.spec().holderIdentity, 'a_1', 'a lost lease is not released');
});

test('on shutdown the leader waits for its work, then releases the Lease; a standby takes over within one retry period', async () => {
  const { clock, store, a, b } = await leaderAndFollower({ workStopMs: 500 });
  await clock.advance(RETRY_MS / 2);
  a.stop.abort();
  await settle();
  assert.is(store.spec().holderIdentity, 'a_1', 'not released while the leader work still runs');
  await clock.advance(500);
  await a.done;
  assert.ok(a.workDone);
  assert.is(a.stopped, 1);
  assert.is(store.spec().holderIdentity, '');
  assert.is(store.spec().leaseDurationSeconds, 1);
  assert.is(store.spec().leaseTransitions, 0);
  await clock.advance(RETRY_MS);
  assert.is(b.started, 1);
  assert.is(store.spec().holderIdentity, 'b_2');
  assert.is(store.spec().leaseTransitions, 1);
  await settle();
  assert.equal(b.leaders, ['a_1', 'b_2'], 'the empty holder is taken over in the same attempt');
  await stopCandidate(b, clock);
});

test('a follower signalled while waiting to acquire returns promptly and calls OnStoppedLeading', async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  b.stop.abort();
  await settle();
  await b.done;
  assert.is(b.started, 0);
  assert.is(b.stopped, 1);
  assert.is(store.spec().holderIdentity, 'a_1', 'a follower never writes the Lease on shutdown');
  await stopCandidate(a, clock);
});

test('shutdown while a taking-over write is unanswered: the Lease the server did take is released, not left to expire', async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  store.failing.add('a_1'); // a cannot renew; b takes over once the lease expires
  let answer!: () => void;
  store.answerGate = new Promise<void>((r) => (answer = r));
  await clock.advance(LEASE_MS + 2 * RETRY_MS);
  assert.is(store.spec().holderIdentity, 'b_2', 'the server applied the take-over');
  assert.is(b.started, 0, 'b has not read the answer');
  b.stop.abort(); // SIGTERM before the answer arrives
  store.answerGate = undefined;
  answer();
  await clock.advance(0);
  await b.done;
  assert.is(b.started, 0, 'no leader work ran');
  assert.is(store.spec().holderIdentity, '', 'released');
  assert.is(store.spec().leaseDurationSeconds, 1);
  store.failing.delete('a_1');
  await stopCandidate(a, clock);
});

test('shutdown while a renewal is unanswered: the server applied it, so the release re-reads the Lease and still releases it', async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  let answer!: () => void;
  store.answerGate = new Promise<void>((r) => (answer = r));
  const writes = store.writes;
  await clock.advance(RETRY_MS); // the next renewal is applied, its answer held back
  assert.is(store.writes, writes + 1, 'the renewal reached the server');
  a.stop.abort(); // SIGTERM before the answer arrives: the resourceVersion a holds is now stale
  store.answerGate = undefined;
  answer();
  await clock.advance(0);
  await a.done;
  assert.is(store.spec().holderIdentity, '', 'released despite the stale resourceVersion');
  assert.is(store.spec().leaseDurationSeconds, 1);
  await clock.advance(RETRY_MS);
  assert.is(store.spec().holderIdentity, 'b_2', 'the standby takes over at its next retry, not after a whole lease');
  await stopCandidate(b, clock);
});

/** A Transport that answers every request with `{}` and counts what was sent. */
function countingTransport(): { transport: Transport; sent: string[] } {
  const sent: string[] = [];
  const transport = {
    host: 'api.test',
    config: { server: 'https://api.test' },
    credentials: async () => ({ headers: {} }),
    send: async (req: { method: string; path: string }) => {
      sent.push(`${req.method} ${req.path}`);
      return Object.assign(Readable.from([Buffer.from('{}')]), {
        statusCode: 200,
        headers: {},
      }) as unknown as IncomingMessage;
    },
  } as unknown as Transport;
  return { transport, sent };
}

/** A leader `a_1` whose REST client writes through the elector's fence. */
async function fencedLeader() {
  const clock = new FakeClock();
  const store = new LeaseStore();
  const fence = new LeadershipFence(clock);
  const { transport, sent } = countingTransport();
  const rest = new RestClient({ transport, userAgent: 'test', qps: 1000, burst: 1000, clock, fence });
  const a = candidate(store, clock, 'a_1', { fence });
  await settle();
  assert.ok(a.leading);
  const put = () => rest.request({ method: 'PUT', path: '/apis/example.io/v1/things/t', body: {} });
  return { clock, store, a, rest, sent, put };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

test('fence: a leader writes while its last renewal is younger than the renew deadline; reads are never fenced', async () => {
  const { clock, a, rest, sent, put } = await fencedLeader();
  await put();
  await clock.advance(RENEW_MS * 2); // renewals every retry period keep the fence open
  await put();
  assert.equal(sent, ['PUT /apis/example.io/v1/things/t', 'PUT /apis/example.io/v1/things/t']);
  assert.is(a.stopped, 0);
  await stopCandidate(a, clock);
  await rest.request({ method: 'GET', path: '/api/v1/nodes' });
  assert.equal(sent.at(-1), 'GET /api/v1/nodes', 'a read after leadership ended still goes out');
});

test('fence: a leader frozen past the renew deadline refuses its first write on resuming, before its renew timer ran, sends nothing and stops leading', async () => {
  const { clock, store, a, sent, put } = await fencedLeader();
  const leaseWrites = store.writes;
  // Frozen: time moves on, the overdue renew timer has not fired yet when the write comes.
  clock.jump(RENEW_MS);
  const err = await rejection(put());
  assert.instance(err, FencedError);
  assert.match((err as Error).message, /renew deadline/);
  assert.equal(sent, [], 'nothing went on the wire');
  await settle();
  assert.is(a.stopped, 1, 'leadership ended without any timer running');
  assert.not.ok(a.leading);
  assert.ok(a.workDone, 'the leader work saw its signal abort');
  await a.done;
  // Nothing afterwards: no renewal, no re-acquire, no further write.
  await clock.advance(LEASE_MS * 3);
  assert.instance(await rejection(put()), FencedError);
  assert.is(store.writes, leaseWrites, 'no Lease write after the freeze');
  assert.equal(sent, []);
});

test('fence: a Lease renewal attempted after the renew deadline writes nothing and leadership is lost', async () => {
  const { clock, store, a, put } = await fencedLeader();
  const leaseWrites = store.writes;
  clock.jump(RENEW_MS + 1);
  await clock.advance(0); // only the overdue renew timer runs
  assert.is(store.writes, leaseWrites, 'the renewal was not sent');
  assert.is(a.stopped, 1);
  await a.done;
  assert.is(store.spec().holderIdentity, 'a_1');
  await clock.advance(LEASE_MS * 3);
  assert.is(store.writes, leaseWrites, 'no attempt to re-acquire');
  assert.instance(await rejection(put()), FencedError);
});

test('fence: a renewal answered after a freeze counts from when it was sent, so it does not reopen the fence', async () => {
  const { clock, store, a, sent, put } = await fencedLeader();
  let answer!: () => void;
  store.gate = new Promise<void>((r) => (answer = r));
  await clock.advance(RETRY_MS); // the renewal is in flight
  clock.jump(RENEW_MS); // frozen until its answer arrives
  store.gate = undefined;
  answer();
  await settle();
  assert.is(store.spec().renewTime, formatMicroTime(clock.now() - RENEW_MS), 'the renewal itself was applied');
  assert.instance(await rejection(put()), FencedError);
  assert.equal(sent, []);
  await settle();
  assert.is(a.stopped, 1);
});

test('timings are validated as client-go does', () => {
  const base = {
    lock: new MemoryLock(new LeaseStore(), 'x'),
    identity: 'x',
    clock: new FakeClock(),
    logger: nullLogger,
    callbacks: { onStartedLeading: async () => {}, onStoppedLeading() {} },
  };
  assert.throws(
    () => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
    /leaseDuration must be greater than renewDeadline/,
  );
  assert.throws(
    () => new LeaderElector({ ...base, leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }),
    /renewDeadline must be greater than retryPeriod\*JitterFactor/,
  );
});

test.run();
