// Keeps the fabric taint (health.taint, docs/health.md "Node taint") on the
// Nodes fabric-taints.ts decides: the worker that writes it, level-based, one
// pass over the Nodes per burst of triggers. Its one input is what the
// fabric sources' polls found of their Nodes' links (the fabric health
// board), taken when the reconciler accepts a snapshot of the source: a poll
// that failed reports nothing and a refused snapshot is never taken, so
// neither taints nor untaints a Node. Each write replaces the Node's taint
// list as read at one resourceVersion, with only the controller's own taint
// added or removed (taint-patch.ts), and is read again and retried on 409;
// the writes go through the HyperNode writes' client set, at its pace and
// behind the leader's write fence. Ours, no Go counterpart.

import type { Clock } from '../../../kube/clock.ts';
import { isConflict, isNotFound } from '../../../kube/errors.ts';
import { isTombstone, type EventHandler, type KubeObject, type Lister } from '../../../kube/types.ts';
import { PassWorker } from '../../../kube/pass-worker.ts';
import type { SyncResult } from '../../../kube/queue-workers.ts';
import type { QueueMetrics, WorkerErrorHandler } from '../../../kube/rate-limiting-queue.ts';
import type { Logger } from '../../../log.ts';
import { mapBounded } from '../../../util/slots.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { errorMessage } from '../../../util/error-message.ts';
import { firstFew } from '../../../util/first-few.ts';
import { firstTimeSeen, LastReported } from '../../../util/reported-once.ts';
import { exportingEntry, type DiscoveryConfig } from '../../config/loader.ts';
import { FABRIC_TAINTS_CHANGED, FABRIC_TAINTS_HELD } from '../../event-reasons.ts';
import type { HyperNodeMetrics } from '../../hypernode-metrics.ts';
import type { EventRecorder, HostLinkReport, NodeTaintClient, NodeTaints } from '../../model/contracts.ts';
import { FABRIC_TAINT_ANNOTATION, SOURCE_KEYS } from '../../model/hypernode-labels.ts';
import type { NodeMeta } from '../../model/hypernode-types.ts';
import type { Follower } from '../follower.ts';
import type { KeptTopology } from '../kept-topology.ts';
import type { FabricTaintRecorder } from '../topology-state.ts';
import { writeRetryRateLimiter } from '../write-failures.ts';
import {
  carriedFabricTaint,
  decideTaints,
  describeReason,
  formatFabricTaint,
  heldTaintsMessage,
  parseFabricTaint,
  sourceOfTaintValue,
  type FabricTaint,
  type TaintChange,
  type TaintDecision,
} from './fabric-taints.ts';
import type { TaintCounts } from './health-metrics.ts';
import { nodeTaintsOf, taintsChanged, type NodeHealth } from './node-health.ts';
import { foreignTaint, taintListChange } from './taint-patch.ts';

export const TAINT_QUEUE_NAME = 'hypernode-node-taints';
/** Triggers within this window cause one pass: a snapshot and the Node events it caused are decided together. */
export const TAINT_COALESCE_MS = 100;
/** Tries of one Node's write: the first from the cache, each after a 409 from the Node read again. */
export const TAINT_WRITE_ATTEMPTS = 5;
/** Names an Event or log line lists before "and N more". */
const NAMES_SHOWN = 5;

/** The full Node watch's cache (health-runner.ts): absent, syncing, or ready. */
export type NodeTaintState = Lister<NodeHealth> | 'syncing' | undefined;

export interface TaintWriterDeps {
  /** The metadata-only Node cache: which Nodes exist and the records they carry, also while the full watch is off. */
  nodes: Lister<NodeMeta>;
  /** Where the fabric sources report their Nodes' links (the fabric health board). */
  hostLinks: { hostLinksOf(source: string): ReadonlyMap<string, HostLinkReport> };
  client: NodeTaintClient;
  events: EventRecorder;
  /** What the Events are filed on (the discovery ConfigMap). */
  regarding(): KubeObject;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
  /** Told of each throw of the worker before its key is retried (the process logs and counts it). */
  onWorkerError: WorkerErrorHandler;
  /** Writes in flight at once (the client set's write pace); one at a time without it. */
  writeConcurrency?: () => number;
  metrics?: Pick<HyperNodeMetrics, 'apiWrite'>;
  /** Told at each pass which Nodes carry our taint, as the full Node cache shows them (the topology page marks them). */
  state?: FabricTaintRecorder;
}

/** What one Node's write came to. */
type WriteOutcome = 'written' | 'unchanged' | 'gone' | 'echo pending';

/** Node → the taint of ours it carries, as the full Node cache shows its record and its taints. */
function carriedTaintsOf(cache: Lister<NodeHealth>): Map<string, FabricTaint> {
  const carried = new Map<string, FabricTaint>();
  for (const h of cache.list()) {
    const taint = h.fabricTaint === undefined ? undefined : carriedFabricTaint(h.fabricTaint, h.taints);
    if (taint) carried.set(h.metadata.name, taint);
  }
  return carried;
}

export class TaintWriter implements Follower, TaintCounts {
  private readonly worker: PassWorker;
  private config: DiscoveryConfig | undefined;
  /** Per source: its Nodes' links per fabric, as of the polls behind its last accepted snapshot. */
  private readonly accepted = new Map<string, ReadonlyMap<string, HostLinkReport>>();
  private nodeTaints: NodeTaintState;
  /** Per Node: the resourceVersion our last write was made against, until the cache shows a newer one. */
  private readonly writtenFrom = new Map<string, string>();
  private last: TaintDecision | undefined;
  /** A snapshot was accepted since the last pass: that pass says so even when it writes nothing. */
  private roundPending = false;
  private readonly held = new LastReported();
  private readonly firstTime = firstTimeSeen();

  constructor(private readonly deps: TaintWriterDeps) {
    this.worker = new PassWorker(
      {
        name: TAINT_QUEUE_NAME,
        clock: deps.clock,
        quietMs: TAINT_COALESCE_MS,
        rateLimiter: writeRetryRateLimiter(deps.clock),
        metrics: deps.queueMetrics,
        onError: deps.onWorkerError,
        onScheduleError: (err) => deps.logger.error('Failed to queue a Node taint pass', { err }),
      },
      () => this.pass(),
    );
  }

  configuration(config: DiscoveryConfig | undefined): void {
    this.config = config;
    this.schedule();
  }

  /** A snapshot of a source was accepted: the links its polls found count now. */
  kept(tree: KeptTopology): void {
    this.accepted.set(tree.source, this.deps.hostLinks.hostLinksOf(tree.source));
    this.roundPending = true;
    this.schedule();
  }

  /** The full Node watch, as health-runner.ts runs it while health.taint (or health.nodes) is on. */
  setNodeTaints(state: NodeTaintState): void {
    this.nodeTaints = state;
    this.schedule();
  }

  /** Full Node events: a change of a Node's taints or of our record. */
  nodeTaintHandler(): EventHandler<NodeHealth> {
    return {
      onAdd: () => this.schedule(),
      onUpdate: (old, n) => {
        if (taintsChanged(old, n)) this.schedule();
      },
      onDelete: () => this.schedule(),
    };
  }

  /** Metadata Node events: a Node added or deleted, or our record changed. */
  nodeHandler(): EventHandler<NodeMeta> {
    const record = (n: NodeMeta) => n.metadata.annotations?.[FABRIC_TAINT_ANNOTATION];
    return {
      onAdd: () => this.schedule(),
      onUpdate: (old, n) => {
        if (record(old) !== record(n)) this.schedule();
      },
      onDelete: (n) => {
        this.writtenFrom.delete(isTombstone(n) ? n.obj.metadata.name : n.metadata.name);
        this.schedule();
      },
    };
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  shutDown(): void {
    this.worker.shutDown();
  }

  /** Per source, the Nodes carrying our taint, and those the guard keeps from it (TaintCounts, for the gauges). */
  taintCounts(): ReturnType<TaintCounts['taintCounts']> {
    const d = this.last;
    return {
      tainted: d?.tainted ?? new Map(),
      held: new Map((d?.held ?? []).map((h) => [h.source, { nodes: h.nodes.length, allowedFrom: h.allowedFrom }])),
    };
  }

  private async pass(): Promise<SyncResult> {
    const config = this.config;
    const round = this.roundPending;
    this.roundPending = false;
    if (!config) return 'done';
    const settings = config.health;
    const cache = this.nodeTaints === 'syncing' ? undefined : this.nodeTaints;
    // With the taint on, nothing is decided before the Nodes' taints are known.
    if (settings.taint && !cache) return 'done';
    this.deps.state?.fabricTaints(cache ? carriedTaintsOf(cache) : undefined);
    const sources = new Map<string, ReadonlyMap<string, HostLinkReport>>();
    for (const source of SOURCE_KEYS) {
      if (exportingEntry(config, source) === 'off') this.accepted.delete(source);
      else sources.set(source, this.accepted.get(source) ?? new Map());
    }
    const nodes = cache
      ? cache.list().map((h) => ({ name: h.metadata.name, record: parseFabricTaint(h.fabricTaint) }))
      : this.deps.nodes.list().map((n) => ({
          name: n.metadata.name,
          record: parseFabricTaint(n.metadata.annotations?.[FABRIC_TAINT_ANNOTATION]),
        }));
    const decision = decideTaints({ settings, sources, nodes });
    this.last = decision;
    this.reportHeld(decision);
    // What each Node should carry: the changes, and with the taints known every taint of ours that stays, so one
    // removed by someone else while the record stayed comes back.
    const wants = new Map<string, { readonly want: FabricTaint | undefined; readonly change?: TaintChange }>(
      decision.changes.map((c) => [c.node, { want: c.to, change: c }]),
    );
    if (cache) for (const n of nodes) if (n.record && !wants.has(n.name)) wants.set(n.name, { want: n.record });
    if (wants.size === 0) {
      if (round) this.deps.logger.v(2).info('Fabric taints match what the sources found, nothing to write');
      return 'done';
    }
    const written: TaintChange[] = [];
    let failed = 0;
    let firstError: unknown;
    await mapBounded([...wants], this.deps.writeConcurrency ?? 1, async ([node, { want, change }]) => {
      if (this.worker.queue.isShuttingDown()) return;
      try {
        if ((await this.write(node, want, cache)) !== 'written') return;
        written.push(change ?? { node, to: want!, reason: 'cut off' });
      } catch (err) {
        failed++;
        firstError ??= err;
      }
    });
    this.reportWritten(written);
    if (round && written.length === 0 && failed === 0)
      this.deps.logger.v(2).info('Fabric taints match what the sources found, nothing to write');
    if (failed === 0) return 'done';
    this.reportOnce(`Failed to write the fabric taint of ${failed} Node(s), will retry: ${errorMessage(firstError)}`);
    return 'retry';
  }

  /**
   * One Node brought to carry `want` (undefined: none of ours): read (the
   * cache first), changed, written against the version read; a 409 reads the
   * Node again and tries anew.
   */
  private async write(
    node: string,
    want: FabricTaint | undefined,
    cache: Lister<NodeHealth> | undefined,
  ): Promise<WriteOutcome> {
    const cached = cache?.get(node);
    let read: NodeTaints | undefined = cached ? nodeTaintsOf(cached) : undefined;
    if (read) {
      const from = this.writtenFrom.get(node);
      // Our last write's echo is on its way: deciding from the older version could only meet a 409.
      if (from !== undefined && from === read.resourceVersion) return 'echo pending';
      this.writtenFrom.delete(node);
    }
    const source = sourceOfTaintValue(want?.value ?? parseFabricTaint(read?.fabricTaint)?.value ?? '');
    for (let attempt = 1; ; attempt++) {
      read ??= await this.deps.client.get(node);
      if (!read) return 'gone';
      if (want && foreignTaint(read, want))
        this.reportOnce(
          `Node ${node} carries a taint of key ${want.key} that the controller did not set; it is left as it is and not tainted again`,
        );
      const change = taintListChange(read, want);
      if (!change) return 'unchanged';
      try {
        await this.deps.client.setTaints(node, change);
      } catch (err) {
        if (isNotFound(err)) return 'gone';
        if (!isConflict(err) || attempt >= TAINT_WRITE_ATTEMPTS) throw err;
        // Another writer changed the Node (its taints, labels or status): read it again and decide anew.
        this.deps.logger.v(2).info('Node changed while its taints were written, reading it again', { node, attempt });
        read = undefined;
        continue;
      }
      if (read.resourceVersion !== undefined) this.writtenFrom.set(node, read.resourceVersion);
      this.deps.metrics?.apiWrite(source, 'patch', 'Node');
      return 'written';
    }
  }

  /** The guard's holds: a warning and an Event once per distinct message, a line when one ends. */
  private reportHeld(decision: TaintDecision): void {
    const holding = new Set(decision.held.map((h) => h.source));
    for (const h of decision.held) {
      const message = heldTaintsMessage(h);
      if (!this.held.isNew(message, h.source)) continue;
      this.deps.logger.warn(message, { source: h.source, nodes: firstFew(h.nodes, NAMES_SHOWN) });
      this.deps.events.event(this.deps.regarding(), FABRIC_TAINTS_HELD.type, FABRIC_TAINTS_HELD.reason, message);
    }
    for (const source of this.held.keys())
      if (source !== '' && !holding.has(source) && this.held.forget(source))
        this.deps.logger.info('Fabric taints no longer held by health.maxTaintPercent', { source });
  }

  /** One line per Node written, and one Event per kind of change of the pass. */
  private reportWritten(written: readonly TaintChange[]): void {
    const groups = new Map<string, { readonly message: (nodes: string) => string; readonly nodes: string[] }>();
    for (const c of [...written].sort((a, b) => compareBytes(a.node, b.node))) {
      const taint = c.to ?? c.from!;
      this.deps.logger.info(c.to ? 'Tainted Node' : 'Removed the fabric taint of Node', {
        node: c.node,
        taint: formatFabricTaint(taint),
        reason: c.reason,
      });
      const kind = c.to ? `+${taint.key}:${taint.effect}` : `-${taint.key}:${c.reason}`;
      const message = c.to
        ? (nodes: string) =>
            `Tainted ${nodes} with ${taint.key}:${taint.effect}: every link of ${nodes === '1 Node' ? 'its' : 'their'} hosts on a fabric missing for health.taint.after`
        : (nodes: string) => `Removed the fabric taint ${taint.key} from ${nodes}: ${describeReason(c.reason)}`;
      const group = groups.get(kind) ?? { message, nodes: [] };
      group.nodes.push(c.node);
      groups.set(kind, group);
    }
    for (const { message, nodes } of groups.values()) {
      const counted = nodes.length === 1 ? '1 Node' : `${nodes.length} Nodes`;
      const text = `${message(counted)} (${firstFew(nodes, NAMES_SHOWN)})`;
      this.deps.events.event(this.deps.regarding(), FABRIC_TAINTS_CHANGED.type, FABRIC_TAINTS_CHANGED.reason, text);
    }
  }

  private reportOnce(message: string): void {
    if (this.firstTime(message)) this.deps.logger.warn(message);
  }

  private schedule(): void {
    this.worker.schedule();
  }
}
