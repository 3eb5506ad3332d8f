// The soak's checks on their own (testing/soak/): each catches what it
// is meant to catch in a request log made up for it, and the fault schedule
// is the same for the same seed and holds every kind of fault.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestRecord } from '../../testing/apiserver/index.ts';
import { SingleWriterCheck, bugLines, unjustifiedDeletes } from '../../testing/soak/invariants.ts';
import { FAULT_KINDS, faultSchedule } from '../../testing/soak/schedule.ts';

let clock = 0;
function record(user: string, verb: RequestRecord['verb'], resource: string, name = ''): RequestRecord {
  return {
    time: `t${++clock}`,
    user,
    verb,
    method: '',
    path: '',
    resource,
    subresource: '',
    namespace: '',
    name,
    query: {},
    code: 200,
    userAgent: '',
    durationMs: 0,
  };
}

test('single writer: a handover passes; the deposed process writing again is reported; Lease writes and reads do not count', () => {
  const check = new SingleWriterCheck();
  check.feed([
    record('a', 'create', 'hypernodes', 'x'),
    record('b', 'update', 'leases'),
    record('a', 'update', 'hypernodes', 'x'),
    record('b', 'create', 'events'),
    record('b', 'update', 'hypernodes', 'x'),
    record('a', 'get', 'hypernodes', 'x'),
  ]);
  assert.equal(check.violations, []);
  assert.equal(
    check.handovers.map((h) => `${h.from}→${h.to}`),
    ['a→b'],
  );
  check.feed([record('a', 'patch', 'hypernodes', 'y')]);
  assert.is(check.violations.length, 1);
  assert.match(check.violations[0]!, /a wrote \(patch hypernodes\/y\) after b had taken over/);
});

test('deletes: only a label HyperNode of a retired group may go; a ufm one, a wanted group or an unknown name is reported', () => {
  const seen = new Map([
    ['rack-a', { source: 'label', group: 'rack=r1' }],
    ['rack-b', { source: 'label', group: 'rack=r2' }],
    ['leaf', { source: 'ufm' }],
  ]);
  const retired = new Set(['rack=r1']);
  const found = unjustifiedDeletes(
    [
      record('p', 'delete', 'hypernodes', 'rack-a'),
      record('p', 'delete', 'hypernodes', 'rack-b'),
      record('p', 'delete', 'hypernodes', 'leaf'),
      record('p', 'delete', 'hypernodes', 'ghost'),
      record('p', 'delete', 'events', 'e'),
    ],
    seen,
    retired,
  );
  assert.equal(
    found.map((f) => f.replace(/^t\d+ p deleted /, '')),
    [
      'rack-b: label HyperNode of rack=r2, still wanted by the inputs',
      'leaf: ufm HyperNode, still wanted by the inputs',
      'ghost: a HyperNode the soak never saw',
    ],
  );
});

test('bug lines: panics, unhandled rejections and TypeErrors are found; handled errors are not', () => {
  const log = [
    'E0515 Failed to fetch UFM data: unexpected status code: 500',
    'panic: boom',
    'I0515 lost lease',
    'TypeError: x is undefined',
    'Unhandled promise rejection',
  ].join('\n');
  assert.equal(bugLines(log), ['panic: boom', 'TypeError: x is undefined', 'Unhandled promise rejection']);
});

test('schedule: the same seed gives the same faults; the first round holds every kind once', () => {
  const a = faultSchedule({ seed: 7, extra: 20, gapMs: [100, 200] });
  assert.equal(faultSchedule({ seed: 7, extra: 20, gapMs: [100, 200] }), a);
  assert.not.equal(faultSchedule({ seed: 8, extra: 20, gapMs: [100, 200] }), a);
  assert.equal(
    a
      .slice(0, FAULT_KINDS.length)
      .map((f) => f.kind)
      .sort(),
    [...FAULT_KINDS].sort(),
  );
  assert.is(a.length, FAULT_KINDS.length + 20);
  assert.ok(a.every((f) => f.gapMs >= 100 && f.gapMs <= 200 && f.pick >= 0 && f.pick < 1));
});

test.run();
