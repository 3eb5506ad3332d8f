// Leader election with client-go's timing and Lease record
// (tools/leaderelection/leaderelection.go), so this binary and Go's can take
// over from each other. Two additions keep two replicas from writing at once
// for long: a graceful stop releases the Lease, and the elector feeds the
// write fence (write-fence.ts) every client checks before a write
// (docs/differences-from-go.md items 9 and 17).

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../log.ts';
import { childSignal } from '../util/abort.ts';
import { jitter } from './backoff.ts';
import type { MonotonicClock } from './clock.ts';
import { isConflict, isNotFound } from './errors.ts';
import { referenceTo, type EventSink } from './events.ts';
import type { LeaderElectionRecord, ResourceLock } from './lease-lock.ts';
import { FencedError, LeadershipFence } from './write-fence.ts';
import { errorMessage } from '../util/error-message.ts';

export const JITTER_FACTOR = 1.2;
/** The Normal Event on the Lease when this process becomes the leader, as client-go records it. */
export const LEADER_ELECTION_EVENT = Object.freeze({
  reason: 'LeaderElection',
  type: 'Normal',
  description: 'On the Lease, `<identity> became leader`, when this process takes the lead.',
} as const);

export interface LeaderCallbacks {
  /** Runs the leader's work; the signal aborts when leadership ends. The elector awaits it before releasing. */
  onStartedLeading(signal: AbortSignal): Promise<void>;
  onStoppedLeading(): void;
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  lock: ResourceLock;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  callbacks: LeaderCallbacks;
  /** Release the Lease when the signal aborts while leading (default true). */
  releaseOnCancel?: boolean;
  clock: MonotonicClock;
  /** The fence the REST clients consult; the elector makes its own when none is shared. */
  fence?: LeadershipFence;
  logger: Logger;
  events?: EventSink;
  /** leader_election_master_status. */
  onLeadingChanged?(leading: boolean): void;
  random?: () => number;
}

/** `<hostname>_<uuid>`: unique per process start; tests split at the first `_`. */
export function newIdentity(host: string = hostname()): string {
  return `${host}_${randomUUID()}`;
}

export class LeaderElector {
  private readonly cfg: LeaderElectionConfig;
  private readonly log: Logger;
  private readonly fence: LeadershipFence;
  private observedRecord: LeaderElectionRecord | undefined;
  private observedRaw = '';
  /** An acquiring Lease write was cut off by shutdown: whether the server applied it is unknown. */
  private unansweredAcquireWrite = false;
  private observedTime = 0;
  private reportedLeader = '';

  constructor(cfg: LeaderElectionConfig) {
    if (cfg.leaseDurationMs <= cfg.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (cfg.renewDeadlineMs <= JITTER_FACTOR * cfg.retryPeriodMs)
      throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    this.cfg = cfg;
    this.fence = cfg.fence ?? new LeadershipFence(cfg.clock);
    this.log = cfg.logger.with({ lock: cfg.lock.describe(), identity: cfg.identity });
  }

  isLeader(): boolean {
    return this.observedRecord?.holderIdentity === this.cfg.identity;
  }

  /**
   * Campaigns until `signal` aborts or leadership is lost; resolves then.
   * OnStoppedLeading is always called on the way out.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.cfg.onLeadingChanged?.(false); // a standby reports 0 from the start
    try {
      if (!(await this.acquire(signal))) {
        if (this.unansweredAcquireWrite && (this.cfg.releaseOnCancel ?? true)) await this.releaseIfHeld();
        return;
      }
      const leading = new AbortController();
      this.cfg.onLeadingChanged?.(true);
      const work = this.cfg.callbacks.onStartedLeading(leading.signal).catch((err) => {
        this.log.error('Leader work failed', { err: errorMessage(err) });
      });
      await this.renew(signal);
      leading.abort(new Error('leadership ended'));
      this.cfg.onLeadingChanged?.(false);
      if (signal.aborted && this.isLeader() && (this.cfg.releaseOnCancel ?? true)) {
        await work; // never hand over while our controller may still write
        await this.release();
      }
    } finally {
      this.fence.end('leader election ended');
      this.cfg.callbacks.onStoppedLeading();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.log.info('Attempting to acquire leader lease');
    for (;;) {
      if (signal.aborted) return false;
      const ok = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (ok) {
        this.log.info('Successfully acquired lease');
        this.event('became leader');
        return true;
      }
      try {
        await this.cfg.clock.sleep(jitter(this.cfg.retryPeriodMs, JITTER_FACTOR, this.cfg.random), signal);
      } catch {
        return false;
      }
    }
  }

  /**
   * Renews every retry period; returns when `signal` aborts or the fence shut:
   * the renew deadline passed since the last successful renewal, or a write was
   * refused anywhere in the process. client-go counts the deadline from the
   * start of a renew attempt; here it counts from the last success, so a
   * leader stops writing at least leaseDuration - renewDeadline before a
   * standby may take over. A lost lease is neither released nor re-acquired,
   * and its "stopped leading" Event is not written: another replica may hold it.
   */
  private async renew(signal: AbortSignal): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.cfg;
    const renewing = childSignal(signal);
    const onFenceShut = () => renewing.abort(this.fence.ended.reason);
    this.fence.ended.addEventListener('abort', onFenceShut, { once: true });
    try {
      while (!renewing.signal.aborted) {
        const attempt = childSignal(renewing.signal);
        const timer = new AbortController();
        clock.sleep(this.fence.remainingMs(), timer.signal).then(
          () => this.fence.end(`no successful renewal within the renew deadline of ${renewDeadlineMs} ms`),
          () => {},
        );
        let renewed = false;
        try {
          for (;;) {
            renewed = await this.tryAcquireOrRenew(attempt.signal);
            if (renewed || attempt.signal.aborted) break;
            try {
              await clock.sleep(retryPeriodMs, attempt.signal);
            } catch {
              break;
            }
          }
        } finally {
          timer.abort();
          attempt.dispose();
        }
        this.maybeReportTransition();
        if (!renewed) break;
        try {
          await clock.sleep(retryPeriodMs, renewing.signal);
        } catch {
          break;
        }
      }
    } finally {
      this.fence.ended.removeEventListener('abort', onFenceShut);
      renewing.dispose();
    }
    if (!signal.aborted)
      this.log.error('Failed to renew lease, leadership lost', { reason: errorMessage(this.fence.ended.reason) });
  }

  private isLeaseValid(monotonicNow: number): boolean {
    return this.observedTime + (this.observedRecord?.leaseDurationSeconds ?? 0) * 1000 > monotonicNow;
  }

  private setObserved(record: LeaderElectionRecord, raw?: string): void {
    this.observedRecord = record;
    if (raw !== undefined) this.observedRaw = raw;
    this.observedTime = this.cfg.clock.monotonic();
  }

  /** A Lease write, refused by the fence once leading and past the renew deadline. */
  private async write(op: () => Promise<void>): Promise<void> {
    this.fence.check();
    await op();
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { lock, clock, identity, renewDeadlineMs } = this.cfg;
    // A leader past its renew deadline (e.g. just resumed from a freeze) stops
    // here, before even reading the Lease: it must not re-acquire by writing.
    try {
      this.fence.check();
    } catch {
      return false;
    }
    // The term is counted from before anything is sent: the server applied the write later, never earlier.
    const sentAt = clock.monotonic();
    const record = newRecord(identity, Math.floor(this.cfg.leaseDurationMs / 1000), clock.now(), 0);
    const succeeded = (written: LeaderElectionRecord): true => {
      this.setObserved(written);
      this.fence.renewed(sentAt, renewDeadlineMs);
      return true;
    };

    // Fast path: still leader and the lease is valid locally → write from the cached record.
    if (this.isLeader() && this.isLeaseValid(sentAt)) {
      const old = this.observedRecord!;
      const renewal = { ...record, acquireTime: old.acquireTime, leaderTransitions: old.leaderTransitions };
      try {
        await this.write(() => lock.update(renewal, signal));
        return succeeded(renewal);
      } catch (err) {
        if (signal.aborted || err instanceof FencedError) return false;
        this.log
          .v(2)
          .info('Failed to update lock optimistically, falling back to slow path', { err: errorMessage(err) });
      }
    }

    let current: { record: LeaderElectionRecord; raw: string };
    try {
      current = await lock.get(signal);
    } catch (err) {
      if (!isNotFound(err)) {
        if (!signal.aborted) this.log.error('Error retrieving resource lock', { err: errorMessage(err) });
        return false;
      }
      // A Lease that vanished (an etcd restore, a deletion) does not end the
      // holder's term: the holder keeps writing until its renew deadline. Until
      // the lease last observed would have expired, treat it as still held, or
      // two processes lead at once. client-go creates the Lease at once.
      if (
        this.observedRecord &&
        this.observedRecord.holderIdentity !== '' &&
        !this.isLeader() &&
        this.isLeaseValid(sentAt)
      ) {
        this.log.v(4).info('Lock is missing, but the lease last observed has not yet expired', {
          holder: this.observedRecord.holderIdentity,
        });
        return false;
      }
      try {
        await this.write(() => lock.create(record, signal));
      } catch (createErr) {
        if (signal.aborted) this.unansweredAcquireWrite = true;
        else this.log.error('Error initially creating leader election record', { err: errorMessage(createErr) });
        return false;
      }
      return succeeded(record);
    }

    if (current.raw !== this.observedRaw) this.setObserved(current.record, current.raw);
    if (current.record.holderIdentity !== '' && this.isLeaseValid(sentAt) && !this.isLeader()) {
      this.log
        .v(4)
        .info('Lock is held by another identity and has not yet expired', { holder: current.record.holderIdentity });
      return false;
    }

    if (this.isLeader()) {
      record.acquireTime = current.record.acquireTime;
      record.leaderTransitions = current.record.leaderTransitions;
    } else {
      record.leaderTransitions = current.record.leaderTransitions + 1;
    }
    try {
      await this.write(() => lock.update(record, signal));
    } catch (err) {
      if (signal.aborted) this.unansweredAcquireWrite = !this.isLeader();
      else this.log.error('Failed to update lock', { err: errorMessage(err) });
      return false;
    }
    return succeeded(record);
  }

  /**
   * Shutdown while an acquiring write was in flight: the server may have
   * applied it although its answer was never read, leaving the Lease held by a
   * process that is gone and every standby waiting out a full lease. Read the
   * Lease once and release it if it names us; no leader work ever ran, so
   * nothing can still be writing.
   */
  private async releaseIfHeld(): Promise<void> {
    try {
      const current = await this.cfg.lock.get(AbortSignal.timeout(this.cfg.renewDeadlineMs));
      this.setObserved(current.record, current.raw);
    } catch (err) {
      this.log.error('Failed to read the lock after an interrupted acquisition', { err: errorMessage(err) });
      return;
    }
    if (this.isLeader()) await this.release();
  }

  /** ReleaseOnCancel: an empty holder with a 1 s lease lets a standby take over at its next retry. */
  private async release(): Promise<void> {
    const signal = AbortSignal.timeout(this.cfg.renewDeadlineMs);
    try {
      try {
        await this.writeReleasedRecord(signal);
      } catch (err) {
        // A renewal cut off by the shutdown may have been applied all the same,
        // and then the resourceVersion we hold is stale: read the Lease and
        // release it if it still names us, or every standby waits out a lease.
        if (!isConflict(err)) throw err;
        const current = await this.cfg.lock.get(signal);
        this.setObserved(current.record, current.raw);
        if (!this.isLeader()) return;
        await this.writeReleasedRecord(signal);
      }
      this.log.info('Released leader lease');
    } catch (err) {
      this.log.error('Failed to release lock', { err: errorMessage(err) });
    }
  }

  private async writeReleasedRecord(signal: AbortSignal): Promise<void> {
    const record = newRecord('', 1, this.cfg.clock.now(), this.observedRecord?.leaderTransitions ?? 0);
    await this.write(() => this.cfg.lock.update(record, signal));
    this.setObserved(record);
  }

  private maybeReportTransition(): void {
    const holder = this.observedRecord?.holderIdentity ?? '';
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    const cb = this.cfg.callbacks.onNewLeader;
    if (cb) setImmediate(() => cb(holder));
  }

  private event(what: string): void {
    const lease = this.cfg.lock.object();
    if (!this.cfg.events || !lease) return;
    void this.cfg.events.record(
      referenceTo({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease }),
      LEADER_ELECTION_EVENT.type,
      LEADER_ELECTION_EVENT.reason,
      `${this.cfg.identity} ${what}`,
    );
  }
}

function newRecord(
  holderIdentity: string,
  leaseDurationSeconds: number,
  now: number,
  leaderTransitions: number,
): LeaderElectionRecord {
  return { holderIdentity, leaseDurationSeconds, renewTime: now, acquireTime: now, leaderTransitions };
}
