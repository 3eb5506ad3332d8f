// The fabric health board: what the fabric sources (ufm, graph, lldp, ibnetdiscover) last
// reported about the HyperNodes they publish, per fabric, for the status
// writer, and the FabricHealthy judgement of one HyperNode's problems. A
// source reports after every poll that built a fabric's HyperNodes; a
// HyperNode it does not name has no problem. Beside them, the links of each
// fabric's Nodes at its last poll, for the Node taint (fabric-taints.ts).

import type { FabricHealthProblem, FabricHealthReporter, HostLinkReport } from '../../model/contracts.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { DEFAULT_LINK_GRACE_PERIOD_MS } from '../../config/health-config.ts';
import { firstFew } from '../../../util/first-few.ts';
import { conditionOf, LINKS_DOWN, LINKS_UP, MESSAGE_NAMES, type DesiredCondition } from './conditions.ts';

/** `leaf-1 port 7 (link to node-3 missing)`: how a problem reads in a condition message. */
export function describeProblem(p: FabricHealthProblem): string {
  return `${p.switch}${p.port ? ` port ${p.port}` : ''} (${p.what})`;
}

/** FabricHealthy from a HyperNode's problems (sorted, as problemsOf gives them). */
export function judgeFabricHealthy(problems: readonly FabricHealthProblem[]): DesiredCondition {
  if (problems.length === 0) return conditionOf(LINKS_UP);
  const count = problems.length === 1 ? '1 fabric problem' : `${problems.length} fabric problems`;
  return conditionOf(LINKS_DOWN, `${count}: ${firstFew(problems.map(describeProblem), MESSAGE_NAMES)}.`);
}

export class FabricHealthBoard implements FabricHealthReporter {
  /** source → fabric → HyperNode name → problems (non-empty lists only). */
  private readonly reports = new Map<string, Map<string, ReadonlyMap<string, readonly FabricHealthProblem[]>>>();

  /** source → fabric → the links of its Nodes at the fabric's last poll. */
  private readonly hostLinks = new Map<string, Map<string, HostLinkReport>>();

  private graceMs = DEFAULT_LINK_GRACE_PERIOD_MS;
  private readonly memories = new Map<string, unknown>();

  /**
   * `changed` receives the HyperNodes whose problems a report changed (none named at a source's first report: all of
   * them).
   */
  constructor(private readonly changed: (source: string, hyperNodes: readonly string[]) => void) {}

  report(
    source: string,
    fabric: string,
    problems: ReadonlyMap<string, readonly FabricHealthProblem[]>,
    hosts?: HostLinkReport,
  ): void {
    if (hosts) {
      const byFabric = this.hostLinks.get(source) ?? new Map<string, HostLinkReport>();
      this.hostLinks.set(source, byFabric.set(fabric, hosts));
    }
    const fabrics = this.reports.get(source) ?? new Map<string, ReadonlyMap<string, readonly FabricHealthProblem[]>>();
    const first = !this.reports.has(source);
    this.reports.set(source, fabrics);
    const before = fabrics.get(fabric) ?? new Map<string, readonly FabricHealthProblem[]>();
    const now = new Map([...problems].filter(([, ps]) => ps.length > 0));
    fabrics.set(fabric, now);
    const names = new Set<string>();
    for (const name of new Set([...before.keys(), ...now.keys()])) {
      if (key(before.get(name)) !== key(now.get(name))) names.add(name);
    }
    // At a source's first report every HyperNode of it needs FabricHealthy: the writer rescans the source.
    if (first || names.size > 0) this.changed(source, first ? [] : [...names]);
  }

  linkGraceMs(): number {
    return this.graceMs;
  }

  kept<T>(key: string, create: () => T): T {
    if (!this.memories.has(key)) this.memories.set(key, create());
    return this.memories.get(key) as T;
  }

  setLinkGraceMs(ms: number): void {
    this.graceMs = ms;
  }

  /** Whether `source` reports fabric health (it then gets FabricHealthy on all its HyperNodes). */
  covers(source: string): boolean {
    return this.reports.has(source);
  }

  /** The links of `source`'s Nodes, per fabric, as its last poll of each found them (copied: later polls add to the board). */
  hostLinksOf(source: string): ReadonlyMap<string, HostLinkReport> {
    return new Map(this.hostLinks.get(source) ?? []);
  }

  /** The problems of one HyperNode, across the fabrics of its source, sorted. */
  problemsOf(source: string, hyperNode: string): FabricHealthProblem[] {
    const out: FabricHealthProblem[] = [];
    for (const byName of this.reports.get(source)?.values() ?? []) out.push(...(byName.get(hyperNode) ?? []));
    return out.sort((a, b) => compareBytes(describeProblem(a), describeProblem(b)));
  }
}

const key = (ps: readonly FabricHealthProblem[] | undefined) =>
  (ps ?? []).map(describeProblem).sort(compareBytes).join('\n');
