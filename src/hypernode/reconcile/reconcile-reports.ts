// What the topology reconciler says about a whole source run, each said once
// while it holds: a snapshot refused for breaking a HyperNode rule, the
// deletes the mass-delete guard holds (and their release), and one Normal
// Event summing up a run that changed something. Ours: Go reports none of
// these (docs/differences-from-go.md item 1).

import type { KubeObject } from '../../kube/types.ts';
import type { Logger } from '../../log.ts';
import type { EventRecorder } from '../model/contracts.ts';
import type { HyperNode } from '../model/hypernode-types.ts';
import type { HyperNodeMetrics } from '../hypernode-metrics.ts';
import { DELETES_HELD, SNAPSHOT_REJECTED, TOPOLOGY_CHANGED } from '../event-reasons.ts';
import { deleteGuard, heldDeletesMessage } from './delete-guard.ts';
import { describeViolations, type SnapshotViolation } from './snapshot-validation.ts';
import { firstFew } from '../../util/first-few.ts';
import { LastReported } from '../../util/reported-once.ts';

/** How many violations or object names one log line or Event spells out; the rest are counted. */
const MAX_LISTED = 5;

export interface ReconcileReportsDeps {
  events: EventRecorder;
  metrics: HyperNodeMetrics;
  logger: Logger;
  /** The object Events about a whole source run are attached to (the discovery ConfigMap). */
  regarding(): KubeObject;
}

/** The writes of one run, as its summary Event counts them. */
export interface RunChanges {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly held: number;
}

export class ReconcileReports {
  /** Per source: the violations of the rejected snapshot last reported, so a repeat is not reported again. */
  private readonly reportedRejections = new LastReported();
  /** Per source: names whose delete the mass-delete guard holds; retries do not delete them either. */
  private readonly heldDeletes = new Map<string, ReadonlySet<string>>();
  /** Per source: why its deletes are held (heldDeletesMessage), while they are. */
  private readonly holdReasons = new Map<string, string>();
  /** Per source: the hold last reported (limit and names), so an unchanged hold is not reported every run. */
  private readonly reportedHolds = new LastReported();

  constructor(private readonly deps: ReconcileReportsDeps) {}

  /**
   * Counts the rejected snapshot under each rule it breaks; logs it and emits
   * a Warning Event once per distinct set of violations, as a discoverer that
   * keeps producing the same bad snapshot would otherwise report it every run.
   */
  rejected(source: string, violations: readonly SnapshotViolation[]): void {
    const { logger, metrics, events } = this.deps;
    for (const rule of new Set(violations.map((v) => v.rule))) metrics.snapshotRejected(source, rule);
    const text = describeViolations(violations);
    if (!this.reportedRejections.isNew(text, source)) {
      logger.v(2).info('Discovery snapshot rejected again, nothing written', { source, violations: violations.length });
      return;
    }
    const objects = firstFew([...new Set(violations.flatMap((v) => v.objects))], MAX_LISTED);
    const broken = firstFew(
      violations.map((v) => `${v.rule}: ${v.message}`),
      MAX_LISTED,
      '; ',
    );
    logger.error('Discovery snapshot rejected, nothing written for this source', {
      source,
      objects,
      violations: broken,
    });
    events.event(
      this.deps.regarding(),
      SNAPSHOT_REJECTED.type,
      SNAPSHOT_REJECTED.reason,
      `Discovery source "${source}" produced a snapshot that breaks the HyperNode rules; nothing of it was written and its HyperNodes stay as they were (${objects}): ${broken}`,
    );
  }

  /** The source's snapshot passed the rules: a rejection reported before is over. */
  accepted(source: string): void {
    if (this.reportedRejections.forget(source))
      this.deps.logger.info('Discovery snapshot accepted again after rejected ones', { source });
  }

  /** The violations of `source`'s rejected snapshot, one per line, while its latest snapshot is rejected. */
  rejectionOf(source: string): string | undefined {
    return this.reportedRejections.get(source);
  }

  /** Decides whether this run's deletes are held; reports a new hold once and a released one in the log. */
  guardDeletes(
    source: string,
    owned: readonly HyperNode[],
    desired: ReadonlyMap<string, HyperNode>,
    maxDeletePercent: number,
  ): void {
    const { logger, events } = this.deps;
    const doomed = owned.map((hn) => hn.metadata.name).filter((name) => !desired.has(name));
    const decision = deleteGuard(owned.length, doomed.length, maxDeletePercent);
    if (!decision.hold) {
      this.reportedHolds.forget(source);
      this.holdReasons.delete(source);
      const released = this.heldDeletes.get(source);
      if (this.heldDeletes.delete(source))
        logger.info('HyperNode deletes no longer held', {
          source,
          previouslyHeld: released!.size,
          deletes: doomed.length,
          maxDeletePercent,
        });
      return;
    }
    this.heldDeletes.set(source, new Set(doomed));
    const message = heldDeletesMessage(source, owned.length, doomed.length, maxDeletePercent);
    this.holdReasons.set(source, message);
    const key = `${maxDeletePercent} ${[...doomed].sort().join(' ')}`;
    if (!this.reportedHolds.isNew(key, source)) {
      logger.v(2).info('HyperNode deletes still held', { source, held: doomed.length, maxDeletePercent });
      return;
    }
    logger.warn('Holding HyperNode deletes of a discovery run', {
      source,
      held: doomed.length,
      owned: owned.length,
      maxDeletePercent,
      allow: `set maxDeletePercent to ${decision.allowedFrom} or more on this source's entry`,
      names: firstFew(doomed, MAX_LISTED),
    });
    events.event(this.deps.regarding(), DELETES_HELD.type, DELETES_HELD.reason, message);
  }

  /** Whether the guard holds the delete of `name` after `source`'s last run. */
  isHeld(source: string, name: string): boolean {
    return this.heldDeletes.get(source)?.has(name) ?? false;
  }

  /** The names whose delete the mass-delete guard holds after `source`'s last run (empty when none are held). */
  heldDeletesOf(source: string): ReadonlySet<string> {
    return this.heldDeletes.get(source) ?? new Set();
  }

  /** Why `source`'s deletes are held and how to allow them, while they are. */
  holdReasonOf(source: string): string | undefined {
    return this.holdReasons.get(source);
  }

  /**
   * One Normal Event for a run that wrote something; none for a run that did not, so the steady state writes nothing.
   */
  changed(source: string, run: RunChanges): void {
    if (run.created + run.updated + run.deleted === 0) return;
    const held = run.held > 0 ? `, ${run.held} deletes held` : '';
    const message = `Discovery source "${source}": ${run.created} created, ${run.updated} updated, ${run.deleted} deleted${held}`;
    this.deps.events.event(this.deps.regarding(), TOPOLOGY_CHANGED.type, TOPOLOGY_CHANGED.reason, message);
  }
}
