// Reflector + informer + store against an in-memory resource with faults:
// paged lists, watch continuation, relist on 410 with updates and tombstones,
// backoff on errors, handlers added and removed at any time, frozen cache.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kube/errors.ts';
import { keepNameAndLabels } from '../../src/kube/informer.ts';
import { LIST_PAGE_SIZE } from '../../src/kube/list-pager.ts';
import { isTombstone, type KubeObject, type Tombstone } from '../../src/kube/types.ts';
import { settle } from './fake-clock.ts';
import { FakeResource, gone } from './fake-lister-watcher.ts';
import { cachedNames, startInformer } from './informer-rig.ts';

type Seen = string[];

function recorder(seen: Seen) {
  return {
    onAdd: (o: KubeObject) => seen.push(`add ${o.metadata.name}`),
    onUpdate: (a: KubeObject, b: KubeObject) =>
      seen.push(`update ${a.metadata.name} ${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
    onDelete: (o: KubeObject | Tombstone<KubeObject>) =>
      seen.push(isTombstone(o) ? `tombstone ${o.key}` : `delete ${o.metadata.name}`),
  };
}

test('the first list asks for resourceVersion=0 and gets everything in one answer, then watches from its resourceVersion with bookmarks and a 5–10 min timeout', async () => {
  const res = new FakeResource();
  for (let i = 0; i < 1203; i++) res.set(`n${String(i).padStart(4, '0')}`);
  const { informer, stop, done } = startInformer(res);
  await informer.waitForSync();
  assert.is(informer.list().length, 1203);
  assert.equal(res.listCalls, [{ limit: LIST_PAGE_SIZE, resourceVersion: '0' }]);
  await settle();
  assert.is(res.watchCalls.length, 1);
  assert.is(res.watchCalls[0]!.resourceVersion, '1203');
  assert.ok(res.watchCalls[0]!.allowWatchBookmarks);
  assert.ok(res.watchCalls[0]!.timeoutSeconds >= 300 && res.watchCalls[0]!.timeoutSeconds < 600);
  stop.abort();
  await done;
});

test('watch events reach handlers; a handler added after sync first gets synthetic adds; removed handlers get nothing', async () => {
  const res = new FakeResource();
  res.set('a');
  const { informer, stop, done } = startInformer(res);
  const early: Seen = [];
  informer.addEventHandler(recorder(early));
  await informer.waitForSync();
  await settle();
  res.set('b');
  res.set('a', { x: '1' });
  res.delete('b');
  await settle();
  assert.equal(early, ['add a', 'add b', 'update a 1->3', 'delete b']);
  const late: Seen = [];
  const reg = informer.addEventHandler(recorder(late));
  assert.equal(late, ['add a']);
  reg.remove();
  res.set('c');
  await settle();
  assert.equal(late, ['add a']);
  assert.equal(early.at(-1), 'add c');
  stop.abort();
  await done;
});

test('a clean watch close resumes from the last resourceVersion without relisting; bookmarks advance it', async () => {
  const res = new FakeResource();
  res.set('a');
  const { informer, stop, done } = startInformer(res);
  await informer.waitForSync();
  await settle();
  res.set('b');
  res.set('zzz-other');
  res.delete('zzz-other');
  res.bookmark();
  await settle();
  res.cut();
  await settle();
  assert.is(res.listCalls.length, 1);
  assert.equal(
    res.watchCalls.map((w) => w.resourceVersion),
    ['1', '4'],
  );
  assert.equal(cachedNames(informer), ['a', 'b']);
  stop.abort();
  await done;
});

test('410 Gone relists: updates for objects still present, tombstones for those deleted meanwhile, adds for new ones', async () => {
  const res = new FakeResource();
  res.set('keep');
  res.set('gone-while-down');
  const { informer, clock, stop, done } = startInformer(res);
  const seen: Seen = [];
  informer.addEventHandler(recorder(seen));
  await informer.waitForSync();
  await settle();
  res.cut(new Error('connection reset'));
  res.delete('gone-while-down');
  res.set('new');
  res.compact();
  seen.length = 0;
  await settle();
  // The broken stream waits for the backoff, then the watch from the old RV gets 410 → relist.
  await clock.advance(30_000);
  assert.is(res.listCalls.length, 2);
  assert.equal(seen.sort(), ['add new', 'tombstone gone-while-down', 'update keep 1->1'].sort());
  assert.equal(cachedNames(informer), ['keep', 'new']);
  stop.abort();
  await done;
});

test('an ERROR 410 event mid-stream relists immediately', async () => {
  const res = new FakeResource();
  res.set('a');
  const { informer, stop, done } = startInformer(res);
  await informer.waitForSync();
  await settle();
  res.cut(gone());
  await settle();
  assert.is(res.listCalls.length, 2);
  stop.abort();
  await done;
});

test('failed lists and watch starts back off exponentially with jitter and never give up', async () => {
  const res = new FakeResource();
  res.set('a');
  for (let i = 0; i < 4; i++) res.listFailures.push(new ApiError('etcd down', 500, 'InternalError'));
  const { informer, clock, stop, done } = startInformer(res);
  await settle();
  assert.is(res.listCalls.length, 1);
  assert.not.ok(informer.hasSynced());
  // random 0.5 → 1.5 × base: 1200, 2400, 4800, 9600 ms.
  await clock.advance(1199);
  assert.is(res.listCalls.length, 1);
  await clock.advance(1);
  assert.is(res.listCalls.length, 2);
  await clock.advance(2400 + 4800 + 9600);
  assert.is(res.listCalls.length, 5);
  assert.ok(informer.hasSynced());
  // A rejected watch (not 410) relists after a pause; a 500 is not a reason to trust the old RV.
  res.watchFailures.push(new ApiError('boom', 500, 'InternalError'));
  res.set('b');
  await settle();
  res.cut();
  await settle();
  assert.is(res.listCalls.length, 5);
  await clock.advance(1200);
  assert.is(res.listCalls.length, 6);
  stop.abort();
  await done;
});

test('a broken connection resumes the watch from the last resourceVersion after a pause', async () => {
  const res = new FakeResource();
  res.set('a');
  const { informer, clock, stop, done } = startInformer(res);
  await informer.waitForSync();
  await settle();
  res.watchFailures.push(new Error('ECONNREFUSED'));
  res.cut(new Error('socket hang up'));
  await settle();
  assert.is(res.watchCalls.length, 1);
  await clock.advance(1200);
  assert.is(res.watchCalls.length, 2);
  await clock.advance(2400);
  assert.is(res.watchCalls.length, 3);
  assert.is(res.listCalls.length, 1);
  assert.equal(
    res.watchCalls.map((w) => w.resourceVersion),
    ['1', '1', '1'],
  );
  stop.abort();
  await done;
});

test('a watch the server closes at once without any event is not reopened in a tight loop', async () => {
  const res = new FakeResource();
  res.set('a');
  const { informer, clock, stop, done } = startInformer(res);
  await informer.waitForSync();
  await settle();
  res.cut();
  await settle();
  assert.is(res.watchCalls.length, 1, 'waits before reconnecting');
  await clock.advance(1200);
  assert.is(res.watchCalls.length, 2);
  assert.is(res.listCalls.length, 1, 'the resourceVersion is still good');
  stop.abort();
  await done;
});

test('cached objects are frozen, a throwing handler does not stop the others, transform keeps name and labels', async () => {
  const res = new FakeResource();
  res.set('a', { zone: 'z1' });
  const { informer, stop, done } = startInformer(res, { transform: keepNameAndLabels });
  const seen: Seen = [];
  informer.addEventHandler({
    onAdd: () => {
      throw new Error('handler bug');
    },
  });
  informer.addEventHandler(recorder(seen));
  await informer.waitForSync();
  const a = informer.get('a')!;
  assert.equal(a, { metadata: { name: 'a', labels: { zone: 'z1' }, resourceVersion: '1' } });
  assert.throws(() => {
    (a.metadata.labels as Record<string, string>).zone = 'mutated';
  });
  assert.equal(seen, ['add a']);
  assert.equal(informer.list({ zone: 'z1' }).length, 1);
  assert.equal(informer.list({ zone: 'z2' }).length, 0);
  stop.abort();
  await done;
});

test('waitForSync rejects when its signal aborts first; run resolves when stopped', async () => {
  const res = new FakeResource();
  res.listFailures.push(new Error('down'));
  const { informer, stop, done } = startInformer(res);
  const waiting = new AbortController();
  const p = informer.waitForSync(waiting.signal);
  waiting.abort(new Error('gave up'));
  await p.then(
    () => assert.unreachable('should reject'),
    (err: Error) => assert.is(err.message, 'gave up'),
  );
  stop.abort();
  await done;
  assert.is(res.openWatches(), 0);
});

test.run();
