// The label hold board: which Nodes the label memory (discovery/label-memory.ts)
// keeps in place, as the sources last reported them per scope, for the
// status writer; the TopologyLabelsPresent judgement of one HyperNode; and
// the one home of that condition's message, which a restart reads back
// (recordedUntil) so a grace period is never restarted. Ours; docs/health.md.

import type { HeldNode, LabelHoldReporter } from '../../model/contracts.ts';
import type { HyperNode } from '../../model/hypernode-types.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { DEFAULT_LABEL_GRACE_PERIOD_MS } from '../../config/health-config.ts';
import {
  conditionOf,
  conditionTime,
  LABELS_MISSING,
  LABELS_PRESENT,
  MESSAGE_NAMES,
  TOPOLOGY_LABELS_PRESENT,
  type DesiredCondition,
} from './conditions.ts';

const MESSAGE_HEAD = 'kept in place while labels are missing: ';
const LATEST_TAIL = ' at the latest';

/** `tray-3 (nvidia.com/gpu.clique) until 2026-12-01T10:30:00Z`: one held Node in a condition message. */
function describeHeld(h: HeldNode): string {
  return `${h.node} (${h.keys.join(', ')}) until ${conditionTime(h.until)}`;
}

/** Held Nodes by when they move, then by name: the ones ending soonest are named. */
function byUntil(held: readonly HeldNode[]): HeldNode[] {
  return [...held].sort((a, b) => a.until - b.until || compareBytes(a.node, b.node));
}

/** TopologyLabelsPresent from the Nodes a HyperNode holds and the label memory keeps. */
export function judgeTopologyLabelsPresent(held: readonly HeldNode[]): DesiredCondition {
  if (held.length === 0) return conditionOf(LABELS_PRESENT);
  const sorted = byUntil(held);
  const named = sorted.slice(0, MESSAGE_NAMES).map(describeHeld).join(', ');
  const rest = sorted.slice(MESSAGE_NAMES);
  const more =
    rest.length === 0
      ? ''
      : ` and ${rest.length} more until ${conditionTime(rest[rest.length - 1]!.until)}${LATEST_TAIL}`;
  const count = held.length === 1 ? '1 Node' : `${held.length} Nodes`;
  return conditionOf(LABELS_MISSING, `${count} ${MESSAGE_HEAD}${named}${more}.`);
}

/**
 * When the hold of `node` that `hn`'s TopologyLabelsPresent condition records
 * ends: the time it names for the Node, or, for a Node among the "more", the
 * latest; undefined when the condition holds no Node (or is not there).
 */
export function recordedUntil(hn: HyperNode, node: string): number | undefined {
  const c = hn.status?.conditions?.find((k) => k.type === TOPOLOGY_LABELS_PRESENT);
  if (!c || c.status !== 'False' || !c.message.includes(MESSAGE_HEAD)) return undefined;
  const listed = c.message.slice(c.message.indexOf(MESSAGE_HEAD) + MESSAGE_HEAD.length);
  const escaped = node.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const named = new RegExp(`(?:^|, )${escaped} \\([^)]*\\) until (\\S+Z)`).exec(listed);
  const more = new RegExp(` and \\d+ more until (\\S+Z)${LATEST_TAIL}\\.$`).exec(listed);
  const at = Date.parse(named?.[1] ?? more?.[1] ?? '');
  return Number.isNaN(at) ? undefined : at;
}

/** source → scope → HyperNode name → the Nodes it holds that are kept (non-empty lists only). */
type Reports = Map<string, Map<string, ReadonlyMap<string, readonly HeldNode[]>>>;

export class LabelHoldBoard implements LabelHoldReporter {
  private readonly reports: Reports = new Map();
  private graceMs = DEFAULT_LABEL_GRACE_PERIOD_MS;
  private readonly memories = new Map<string, unknown>();
  /** Per source: the HyperNodes to judge again once its snapshot is reconciled ('all' when it started or stopped). */
  private readonly pending = new Map<string, Set<string> | 'all'>();

  /**
   * `changed` receives, when `reconciled` is called, the HyperNodes whose held Nodes a report changed (none named when a
   * source starts or stops keeping a memory: all of them).
   */
  constructor(private readonly changed: (source: string, hyperNodes: readonly string[]) => void) {}

  /**
   * `source`'s snapshot, sent after its report, has been reconciled: the HyperNodes the report changed are judged now.
   * Not before: a HyperNode whose spec that snapshot updates would see its status written in between and its update
   * refused (409).
   */
  reconciled(source: string): void {
    const names = this.pending.get(source);
    if (names === undefined) return;
    this.pending.delete(source);
    this.changed(source, names === 'all' ? [] : [...names]);
  }

  private later(source: string, names: readonly string[] | 'all'): void {
    const pending = this.pending.get(source);
    if (names === 'all' || pending === 'all') this.pending.set(source, 'all');
    else this.pending.set(source, new Set([...(pending ?? []), ...names]));
  }

  report(source: string, scope: string, held: ReadonlyMap<string, readonly HeldNode[]> | undefined): void {
    let scopes = this.reports.get(source);
    if (held === undefined) {
      // A scope without memory; a source left with none keeps no condition.
      if (scopes === undefined) this.reports.set(source, new Map());
      const dropped = scopes?.get(scope);
      if (scopes !== undefined && !scopes.delete(scope)) return;
      if (scopes === undefined || scopes.size === 0) this.later(source, 'all');
      else this.later(source, [...dropped!.keys()]);
      return;
    }
    const first = scopes === undefined || scopes.size === 0;
    if (!scopes) this.reports.set(source, (scopes = new Map()));
    const before = scopes.get(scope) ?? new Map<string, readonly HeldNode[]>();
    const now = new Map([...held].filter(([, hs]) => hs.length > 0));
    scopes.set(scope, now);
    const names: string[] = [];
    for (const name of new Set([...before.keys(), ...now.keys()]))
      if (key(before.get(name)) !== key(now.get(name))) names.push(name);
    // At a source's first report every HyperNode of it needs the condition: all of them are judged.
    if (first) this.later(source, 'all');
    else if (names.length > 0) this.later(source, names);
  }

  labelGraceMs(): number {
    return this.graceMs;
  }

  setLabelGraceMs(ms: number): void {
    this.graceMs = ms;
  }

  recordedUntil(hyperNode: HyperNode, node: string): number | undefined {
    return recordedUntil(hyperNode, node);
  }

  kept<T>(key: string, create: () => T): T {
    if (!this.memories.has(key)) this.memories.set(key, create());
    return this.memories.get(key) as T;
  }

  /**
   * What the condition of `source`'s HyperNodes follows: the held Nodes
   * ('reporting'), no memory any more ('off': the condition is removed), or
   * unknown before its first report (left as it is, so a restart reads it).
   */
  stateOf(source: string): 'reporting' | 'off' | undefined {
    const scopes = this.reports.get(source);
    return scopes === undefined ? undefined : scopes.size > 0 ? 'reporting' : 'off';
  }

  /** The Nodes kept in place that a HyperNode holds, across the scopes of its source. */
  heldOf(source: string, hyperNode: string): HeldNode[] {
    const out: HeldNode[] = [];
    for (const byName of this.reports.get(source)?.values() ?? []) out.push(...(byName.get(hyperNode) ?? []));
    return out;
  }

  /** The Nodes `source` keeps in place now, each once (however many HyperNodes hold it), by name. */
  heldBy(source: string): HeldNode[] {
    const out = new Map<string, HeldNode>();
    for (const byName of this.reports.get(source)?.values() ?? [])
      for (const hs of byName.values()) for (const h of hs) out.set(h.node, h);
    return [...out.values()].sort((a, b) => compareBytes(a.node, b.node));
  }

  /** Per source, the Nodes kept in place now (each once, however many HyperNodes hold it): the gauge. */
  heldNodes(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [source, scopes] of this.reports) {
      const nodes = new Set<string>();
      for (const byName of scopes.values()) for (const hs of byName.values()) for (const h of hs) nodes.add(h.node);
      out.set(source, nodes.size);
    }
    return out;
  }
}

const key = (hs: readonly HeldNode[] | undefined) => (hs ? byUntil(hs).map(describeHeld).join('\n') : '');
