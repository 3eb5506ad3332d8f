// The best-effort event sink: one Event per new occurrence, repeats within the
// aggregation window patch count and lastTimestamp, failures never throw.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEventSink, referenceTo, type CoreEvent } from '../../src/kube/events.ts';
import type { ResourceClient } from '../../src/kube/resource.ts';
import { nullLogger } from '../../src/log.ts';
import { FakeClock } from './fake-clock.ts';

function fakeEvents() {
  const calls: string[] = [];
  const created: CoreEvent[] = [];
  let failing = false;
  const client = {
    async create(ev: CoreEvent) {
      if (failing) throw new Error('forbidden');
      calls.push(`create ${ev.metadata.namespace}/${ev.metadata.name}`);
      created.push(ev);
      return ev;
    },
    async patch(name: string, patch: unknown, opts?: { namespace?: string }) {
      if (failing) throw new Error('forbidden');
      calls.push(`patch ${opts?.namespace}/${name} ${JSON.stringify(patch)}`);
      return {} as CoreEvent;
    },
  } as unknown as ResourceClient<CoreEvent>;
  return { client, calls, created, fail: (f: boolean) => (failing = f) };
}

const lease = referenceTo({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'lock', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
});

test('an Event carries the involved object, reason, type, source and timestamps', async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const fake = fakeEvents();
  const sink = createEventSink({
    client: fake.client,
    component: 'vc-hypernode-controller-manager',
    host: 'pod-a',
    clock,
    logger: nullLogger,
  });
  await sink.record(lease, 'Normal', 'LeaderElection', 'pod-a_1 became leader');
  const ev = fake.created[0]!;
  assert.match(ev.metadata.name, /^lock\.[0-9a-f]+$/);
  assert.is(ev.metadata.namespace, 'ns');
  assert.equal(ev.involvedObject, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    name: 'lock',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '7',
  });
  assert.equal([ev.type, ev.reason, ev.message, ev.count], ['Normal', 'LeaderElection', 'pod-a_1 became leader', 1]);
  assert.equal(ev.source, { component: 'vc-hypernode-controller-manager', host: 'pod-a' });
  assert.is(ev.firstTimestamp, '2026-01-02T03:04:05Z');
});

test('a repeat within ten minutes bumps count with a merge patch; after that, or when different, a new Event', async () => {
  const clock = new FakeClock();
  const fake = fakeEvents();
  const sink = createEventSink({ client: fake.client, component: 'c', host: 'h', clock, logger: nullLogger });
  await sink.record(lease, 'Warning', 'Failed', 'boom');
  await clock.advance(60_000);
  await sink.record(lease, 'Warning', 'Failed', 'boom');
  await sink.record(lease, 'Warning', 'Failed', 'other');
  await clock.advance(11 * 60_000);
  await sink.record(lease, 'Warning', 'Failed', 'boom');
  assert.is(fake.calls.length, 4);
  assert.match(fake.calls[1]!, /^patch ns\/lock\.[0-9a-f]+ \{"count":2,"lastTimestamp":"[^"]+"\}$/);
  assert.equal(
    fake.calls.map((c) => c.split(' ')[0]),
    ['create', 'patch', 'create', 'create'],
  );
});

test('two different Events in the same millisecond get two names (the second is not refused as already existing)', async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const fake = fakeEvents();
  const sink = createEventSink({ client: fake.client, component: 'c', host: 'h', clock, logger: nullLogger });
  await sink.record(lease, 'Warning', 'SwitchUnreachable', 'switch a did not answer');
  await sink.record(lease, 'Warning', 'FabricMiscabled', 'host b on two units');
  const names = fake.created.map((e) => e.metadata.name);
  assert.is(names.length, 2);
  assert.is.not(names[0], names[1]);
});

test('a failing API never throws into the caller', async () => {
  const fake = fakeEvents();
  const sink = createEventSink({
    client: fake.client,
    component: 'c',
    host: 'h',
    clock: new FakeClock(),
    logger: nullLogger,
  });
  fake.fail(true);
  await sink.record(lease, 'Normal', 'R', 'm');
  fake.fail(false);
  await sink.record(lease, 'Normal', 'R', 'm');
  assert.equal(
    fake.calls.map((c) => c.split(' ')[0]),
    ['create'],
  );
});

test('a message over the 1 KiB the API server accepts is cut with its length noted, and repeats still aggregate', async () => {
  const clock = new FakeClock();
  const fake = fakeEvents();
  const sink = createEventSink({ client: fake.client, component: 'c', host: 'h', clock, logger: nullLogger });
  const long = `UFM answered: ${'<html>'.repeat(2000)}`;
  await sink.record(lease, 'Warning', 'DiscoveryFailed', long);
  await sink.record(lease, 'Warning', 'DiscoveryFailed', long);
  const message = fake.created[0]!.message;
  assert.ok(Buffer.byteLength(message) <= 1024, `${Buffer.byteLength(message)} bytes`);
  assert.ok(message.startsWith('UFM answered: <html>'));
  assert.ok(message.endsWith(`… (${Buffer.byteLength(long)} bytes)`), message.slice(-40));
  assert.equal(
    fake.calls.map((c) => c.split(' ')[0]),
    ['create', 'patch'],
  );
});

test.run();
