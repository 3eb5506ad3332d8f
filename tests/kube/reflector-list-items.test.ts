// `items: null` is how a real API server sends an empty metadata-only list:
// the cache syncs empty. An answer that is not a List (no items field, a
// Status, items without names) is broken, not an empty resource: the
// reflector must keep its cache, report the list as failed, naming the
// resource and what was wrong, and retry it with backoff.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ObjectList } from '../../src/kube/resource.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { settle } from './fake-clock.ts';
import { FakeResource, gone } from './fake-lister-watcher.ts';
import { cachedNames, startInformer } from './informer-rig.ts';
import { capturingLogger } from '../support/capturing-logger.ts';

/** A FakeResource whose next lists answer with a mangled `items`. */
class MangledLists extends FakeResource {
  readonly mangle: Array<'missing' | 'null' | 'status' | 'nameless'> = [];
  override async list(opts: {
    limit?: number;
    continue?: string;
    resourceVersion?: string;
    signal: AbortSignal;
  }): Promise<ObjectList<KubeObject>> {
    const page = await super.list(opts);
    const how = this.mangle.shift();
    if (how === undefined) return page;
    const broken: Record<string, unknown> = { kind: 'PartialObjectMetadataList', metadata: page.metadata };
    if (how === 'null') broken.items = null;
    if (how === 'status') Object.assign(broken, { kind: 'Status', status: 'Failure', items: [] });
    if (how === 'nameless') broken.items = [...page.items, { metadata: {} }];
    return broken as unknown as ObjectList<KubeObject>;
  }
}

function start(res: FakeResource) {
  const { logger, lines } = capturingLogger({ verbosity: 0 });
  return { ...startInformer(res, { logger }), lines };
}

test('items: null is an empty list: the informer syncs with an empty cache and watches', async () => {
  const res = new MangledLists();
  res.mangle.push('null');
  const { informer, stop, done, lines } = start(res);
  await settle();
  assert.ok(informer.hasSynced(), lines.join(''));
  assert.equal(cachedNames(informer), []);
  assert.is(res.listCalls.length, 1);
  assert.is(res.watchCalls.length, 1);
  res.set('joined');
  await settle();
  assert.equal(cachedNames(informer), ['joined']);
  stop.abort();
  await done;
});

test('a first list that is not a List does not sync; the log names the resource and the fault; it is retried with backoff', async () => {
  const res = new MangledLists();
  res.set('a');
  res.mangle.push('missing', 'status', 'nameless');
  const { informer, clock, stop, done, lines } = start(res);
  await settle();
  assert.not.ok(informer.hasSynced(), 'a broken list does not count as synced');
  assert.ok(
    lines.some(
      (l) => l.includes('Failed to list') && l.includes('the things list answer is malformed: it has no items field'),
    ),
    lines.join(''),
  );
  await clock.advance(1200);
  assert.is(res.listCalls.length, 2);
  assert.not.ok(informer.hasSynced());
  assert.ok(
    lines.some((l) => l.includes('its kind is \\"Status\\", not a List')),
    lines.join(''),
  );
  await clock.advance(2400);
  assert.is(res.listCalls.length, 3);
  assert.ok(
    lines.some((l) => l.includes('item 1 has no metadata.name')),
    lines.join(''),
  );
  assert.not.ok(informer.hasSynced());
  await clock.advance(4800);
  assert.ok(informer.hasSynced());
  assert.equal(cachedNames(informer), ['a']);
  stop.abort();
  await done;
});

test('a relist without items keeps every cached object (no deletes reach handlers)', async () => {
  const res = new MangledLists();
  res.set('a');
  res.set('b');
  const { informer, clock, stop, done } = start(res);
  await settle();
  const deleted: string[] = [];
  informer.addEventHandler({ onDelete: (o) => void deleted.push('key' in o ? o.key : o.metadata.name) });
  res.mangle.push('missing');
  res.cut(gone()); // the watch expires: relist, which answers without items
  await settle();
  assert.is(res.listCalls.length, 2);
  assert.equal(cachedNames(informer), ['a', 'b'], 'the cache is kept');
  assert.equal(deleted, []);
  await clock.advance(1200);
  assert.is(res.listCalls.length, 3, 'the list is retried after a pause');
  assert.equal(cachedNames(informer), ['a', 'b']);
  assert.equal(deleted, []);
  stop.abort();
  await done;
});

test.run();
