// Which Nodes carry the fabric taint (docs/health.md, "Node taint"): judged
// from what each source's accepted polls found of their links, at the
// polls' own time; a Node with a link left is never tainted; the guard holds
// every new taint of a source past health.maxTaintPercent and keeps the old.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_HEALTH, type HealthSettings } from '../../../../src/hypernode/config/health-config.ts';
import type { HostLinkReport, HostLinks } from '../../../../src/hypernode/model/contracts.ts';
import {
  decideTaints,
  fabricTaintValue,
  formatFabricTaint,
  parseFabricTaint,
  standingOf,
  taintGuard,
  type FabricTaint,
} from '../../../../src/hypernode/reconcile/health/fabric-taints.ts';

const MIN = 60_000;
const KEY = 'topology.volcano.sh/fabric-unreachable';
const ON: HealthSettings = { ...DEFAULT_HEALTH, taint: { key: KEY, effect: 'NoSchedule', afterMs: 2 * MIN } };
const T0 = Date.parse('2026-12-01T10:00:00Z');

const linked = (links = 2): HostLinks => ({ links, missing: 0 });
const cut = (since: number, links = 2): HostLinks => ({ links, missing: links, cutOffSince: since });
const report = (at: number, nodes: Record<string, HostLinks>): HostLinkReport => ({
  at,
  nodes: new Map(Object.entries(nodes)),
});
const fabrics = (byFabric: Record<string, HostLinkReport>) => new Map(Object.entries(byFabric));
const ours = (value: string, effect = 'NoSchedule'): FabricTaint => ({ key: KEY, value, effect });
const nodes = (names: string[], records: Record<string, FabricTaint> = {}) =>
  names.map((name) => ({ name, record: records[name] }));

test('the record reads back as it was written, and a value names the source and fabric', () => {
  const t = ours('ibnetdiscover.lab');
  assert.is(formatFabricTaint(t), `${KEY}=ibnetdiscover.lab:NoSchedule`);
  assert.equal(parseFabricTaint(formatFabricTaint(t)), t);
  assert.is(parseFabricTaint('edited by hand'), undefined);
  assert.is(fabricTaintValue('ufm', 'pod-a'), 'ufm.pod-a');
  // UFM legacy mode's one fabric has no name a taint value may carry: the source alone.
  assert.is(fabricTaintValue('ufm', '(legacy mode)'), 'ufm');
});

test('a Node is cut off only when its links on every fabric of the source are missing, for as long as the shortest', () => {
  const at = T0 + 5 * MIN;
  assert.equal(standingOf('n1', fabrics({ a: report(at, { n1: cut(T0) }) })), {
    kind: 'cutOff',
    fabric: 'a',
    forMs: 5 * MIN,
  });
  // One of two rails down: linked.
  assert.equal(standingOf('n1', fabrics({ a: report(at, { n1: { links: 2, missing: 1 } }) })), { kind: 'linked' });
  // Two planes: one still cabled keeps it linked; both gone, the later loss counts and names its fabric.
  assert.equal(standingOf('n1', fabrics({ a: report(at, { n1: cut(T0) }), b: report(at, { n1: linked() }) })), {
    kind: 'linked',
  });
  assert.equal(
    standingOf('n1', fabrics({ a: report(at, { n1: cut(T0) }), b: report(at, { n1: cut(T0 + 4 * MIN) }) })),
    { kind: 'cutOff', fabric: 'b', forMs: MIN },
  );
  // A fabric whose later polls failed adds no time: judged at its own last poll.
  assert.equal(standingOf('n1', fabrics({ a: report(T0 + MIN, { n1: cut(T0) }) })), {
    kind: 'cutOff',
    fabric: 'a',
    forMs: MIN,
  });
  assert.is(standingOf('n2', fabrics({ a: report(at, { n1: cut(T0) }) })), undefined);
});

test('tainted once every link has been missing for taint.after at a poll, not before; removed when a link is back', () => {
  const source = (at: number, n1: HostLinks) =>
    new Map([['ibnetdiscover', fabrics({ lab: report(at, { n1, n2: linked() }) })]]);
  const early = decideTaints({ settings: ON, sources: source(T0 + MIN, cut(T0)), nodes: nodes(['n1', 'n2']) });
  assert.equal(early.changes, [], 'one minute is not two');
  const due = decideTaints({ settings: ON, sources: source(T0 + 2 * MIN, cut(T0)), nodes: nodes(['n1', 'n2']) });
  assert.equal(due.changes, [{ node: 'n1', to: ours('ibnetdiscover.lab'), reason: 'cut off' }]);
  assert.equal([...due.tainted], [['ibnetdiscover', 1]]);
  const kept = decideTaints({
    settings: ON,
    sources: source(T0 + 3 * MIN, cut(T0)),
    nodes: nodes(['n1', 'n2'], { n1: ours('ibnetdiscover.lab') }),
  });
  assert.equal(kept.changes, []);
  const back = decideTaints({
    settings: ON,
    sources: source(T0 + 4 * MIN, { links: 2, missing: 1 }),
    nodes: nodes(['n1', 'n2'], { n1: ours('ibnetdiscover.lab') }),
  });
  assert.equal(back.changes, [{ node: 'n1', from: ours('ibnetdiscover.lab'), reason: 'link back' }]);
});

test('nothing said of a Node keeps its taint: a restart, a link forgotten past the grace period, an edited effect rewrites it', () => {
  const record = { n1: ours('ufm.pod-a') };
  const quiet = new Map([['ufm', new Map<string, HostLinkReport>()]]);
  assert.equal(decideTaints({ settings: ON, sources: quiet, nodes: nodes(['n1'], record) }).changes, []);
  const prefer: HealthSettings = { ...ON, taint: { ...ON.taint!, effect: 'PreferNoSchedule' } };
  assert.equal(decideTaints({ settings: prefer, sources: quiet, nodes: nodes(['n1'], record) }).changes, [
    { node: 'n1', from: ours('ufm.pod-a'), to: ours('ufm.pod-a', 'PreferNoSchedule'), reason: 'settings changed' },
  ]);
});

test('a source off or health.taint off removes the taints it set and no other', () => {
  const records = { n1: ours('ufm.pod-a'), n2: ours('lldp.roce') };
  const lldpOnly = new Map([['lldp', new Map<string, HostLinkReport>()]]);
  assert.equal(decideTaints({ settings: ON, sources: lldpOnly, nodes: nodes(['n1', 'n2', 'n3'], records) }).changes, [
    { node: 'n1', from: ours('ufm.pod-a'), reason: 'source off' },
  ]);
  assert.equal(
    decideTaints({ settings: DEFAULT_HEALTH, sources: lldpOnly, nodes: nodes(['n1', 'n2', 'n3'], records) }).changes,
    [
      { node: 'n1', from: ours('ufm.pod-a'), reason: 'taint off' },
      { node: 'n2', from: ours('lldp.roce'), reason: 'taint off' },
    ],
  );
});

test('past maxTaintPercent nothing new is tainted and the taints already set stay; one Node alone always may be', () => {
  const names = Array.from({ length: 40 }, (_, i) => `n${String(i).padStart(2, '0')}`);
  // A leaf of 8 hosts lost at once in a fabric of 40: 20 %, past the default 10 %.
  const lost = new Set(names.slice(0, 8));
  const links = Object.fromEntries(names.map((n) => [n, lost.has(n) ? cut(T0) : linked()]));
  const sources = new Map([['ufm', fabrics({ a: report(T0 + 3 * MIN, links) })]]);
  const decision = decideTaints({ settings: ON, sources, nodes: nodes(names, { n00: ours('ufm.a') }) });
  assert.equal(decision.changes, [], 'n00 keeps its taint, n01…n07 get none');
  assert.equal(decision.held, [
    {
      source: 'ufm',
      nodes: names.slice(1, 8),
      connected: 40,
      tainted: 8,
      maxTaintPercent: 10,
      allowedFrom: 20,
    },
  ]);
  assert.equal([...decision.tainted], [['ufm', 1]]);
  const allowed = decideTaints({ settings: { ...ON, maxTaintPercent: 20 }, sources, nodes: nodes(names) });
  assert.is(allowed.changes.length, 8);
  assert.equal(allowed.held, []);
  assert.equal(taintGuard(8, 1, 10), { hold: false, percent: 12.5, allowedFrom: 13 });
  assert.equal(taintGuard(8, 1, 0).hold, true);
  assert.equal(taintGuard(100, 10, 10).hold, false);
  assert.equal(taintGuard(100, 11, 10).hold, true);
});

test('a Node two sources see cut off keeps the value of the source that set it', () => {
  const sources = new Map([
    ['lldp', fabrics({ roce: report(T0 + 3 * MIN, { n1: cut(T0) }) })],
    ['ufm', fabrics({ ib: report(T0 + 3 * MIN, { n1: cut(T0) }) })],
  ]);
  assert.equal(decideTaints({ settings: ON, sources, nodes: nodes(['n1'], { n1: ours('ufm.ib') }) }).changes, []);
  assert.equal(decideTaints({ settings: ON, sources, nodes: nodes(['n1']) }).changes, [
    { node: 'n1', to: ours('lldp.roce'), reason: 'cut off' },
  ]);
});

test.run();
