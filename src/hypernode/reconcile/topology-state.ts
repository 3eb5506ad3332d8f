// What the controller currently keeps, per discovery source, for the
// topology page (/debug/topology): the tree as kept after the last accepted
// snapshot (kept-topology.ts), when the last snapshot arrived and what became
// of it, the deletes the mass-delete guard holds, the Nodes the label memory
// keeps in place, the rejected snapshot (while the latest is rejected) and the
// Nodes the source should cover but does not; and which Nodes carry the fabric
// taint. The controller records into it; the process's HTTP side reads it
// through TopologyStateView, so nothing here knows about HTTP. Ours: the Go controller has no such page.

import { compareBytes } from '../../util/compare-bytes.ts';
import type { HeldNode } from '../model/contracts.ts';
import type { DiscoveredHyperNode } from '../model/hypernode-types.ts';
import type { FabricTaint } from './health/fabric-taints.ts';
import type { KeptTopology } from './kept-topology.ts';
import type { ReconcileSummary } from './reconciler.ts';

/** Uncovered Nodes named on the page at most per source; the count says how many there are in all. */
export const UNCOVERED_NODES_LISTED = 100;

export interface UncoveredNodeInfo {
  readonly name: string;
  /** Why it is in no HyperNode, e.g. the tier-1 label it lacks. */
  readonly why: string;
}

export interface SourceTopologyState {
  readonly source: string;
  /** When the controller last received a snapshot of this source (ms since the epoch). */
  readonly lastSnapshotAt?: number;
  /** What reconciling that snapshot did (its `rejected` says whether it was refused whole). */
  readonly lastResult?: Readonly<ReconcileSummary>;
  /** The tree as kept after the latest accepted snapshot: as written, with the held deletes (empty before the first). */
  readonly desired: readonly DiscoveredHyperNode[];
  /** Names whose delete the mass-delete guard holds. */
  readonly heldDeletes: readonly string[];
  /** Nodes the label memory keeps in place, by name (absent: none). */
  readonly heldNodes?: readonly HeldNode[];
  /** While the latest snapshot is rejected: since when, and the rules it breaks (one per line). */
  readonly rejected?: { readonly at: number; readonly violations: string };
  /** At the source's last successful discovery; absent until the source reports it. */
  readonly uncoveredNodes?: { readonly count: number; readonly listed: readonly UncoveredNodeInfo[] };
}

export interface TopologyState {
  /** Whether this process runs the controller now (a standby or a replica that lost its Lease does not). */
  readonly running: boolean;
  /** Sorted by source name. */
  readonly sources: readonly SourceTopologyState[];
  /**
   * Node → the fabric taint of ours it carries (its record and that taint both on it), as the taint writer last read
   * the Nodes; absent before it has, and while health.taint is off.
   */
  readonly fabricTaints?: ReadonlyMap<string, FabricTaint>;
}

/** Where the taint writer says which Nodes carry the fabric taint (taint-writer.ts). */
export interface FabricTaintRecorder {
  fabricTaints(carried: ReadonlyMap<string, FabricTaint> | undefined): void;
}

/** How the topology page reads the state. */
export interface TopologyStateView {
  current(): TopologyState;
}

/** What one reconciled snapshot left behind (the reconciler's view after the round). */
export interface ReconciledSnapshot {
  readonly at: number;
  readonly summary: ReconcileSummary;
  /** Undefined before the source's first accepted snapshot. */
  readonly kept: KeptTopology | undefined;
  readonly rejection: string | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class TopologyStateRecorder implements TopologyStateView, FabricTaintRecorder {
  private running = false;
  private readonly sources = new Map<string, Mutable<SourceTopologyState>>();
  private carried: ReadonlyMap<string, FabricTaint> | undefined;

  /** A controller starts (this process leads): what an earlier term recorded is stale. */
  started(): void {
    this.sources.clear();
    this.carried = undefined;
    this.running = true;
  }

  stopped(): void {
    this.running = false;
  }

  reconciled(source: string, r: ReconciledSnapshot): void {
    const state = this.sourceState(source);
    state.lastSnapshotAt = r.at;
    state.lastResult = { ...r.summary };
    state.desired = r.kept ? [...r.kept.hyperNodes] : [];
    state.heldDeletes = [...(r.kept?.heldDeletes?.names ?? [])].sort();
    state.heldNodes = r.kept?.heldNodes ?? [];
    if (r.rejection === undefined) delete state.rejected;
    // An unchanged rejection keeps the time it was first seen.
    else if (state.rejected?.violations !== r.rejection) state.rejected = { at: r.at, violations: r.rejection };
  }

  uncovered(source: string, count: number, nodes: readonly UncoveredNodeInfo[] = []): void {
    this.sourceState(source).uncoveredNodes = {
      count,
      listed: nodes.slice(0, UNCOVERED_NODES_LISTED).map(({ name, why }) => ({ name, why })),
    };
  }

  fabricTaints(carried: ReadonlyMap<string, FabricTaint> | undefined): void {
    this.carried = carried;
  }

  current(): TopologyState {
    const sources = [...this.sources.values()].sort((a, b) => compareBytes(a.source, b.source));
    return {
      running: this.running,
      sources: sources.map((s) => ({ ...s })),
      ...(this.carried ? { fabricTaints: this.carried } : {}),
    };
  }

  private sourceState(source: string): Mutable<SourceTopologyState> {
    let state = this.sources.get(source);
    if (!state) {
      state = { source, desired: [], heldDeletes: [] };
      this.sources.set(source, state);
    }
    return state;
  }
}
