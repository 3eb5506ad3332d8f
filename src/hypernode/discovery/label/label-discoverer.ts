// The label discoverer (`source: label`, docs/design.md §2.1): groups Nodes by the
// configured label hierarchy and emits the complete set of label HyperNodes
// whenever a relevant Node label or any HyperNode deletion changes the
// picture. Mirrors pkg/controllers/hypernode/discovery/label/label.go, with
// the fixes of docs/differences-from-go.md item 5: Node tombstones are unwrapped, a failed
// run is retried with backoff instead of wedging the worker, and bursts of
// Node events are coalesced by a short debounce. A Node that loses a level
// label keeps its place for health.labelGracePeriod (../label-memory.ts), so
// a labelling agent that restarts changes no HyperNode.

import { isTombstone, type EventHandler, type HandlerRegistration, type Tombstone } from '../../../kube/types.ts';
import { coalescingTrigger, type CoalescingTrigger } from '../../../kube/coalescing-trigger.ts';
import { RateLimitingQueue } from '../../../kube/rate-limiting-queue.ts';
import type { Logger } from '../../../log.ts';
import { Channel } from '../../../util/channel.ts';
import type {
  Discoverer,
  DiscovererFactory,
  DiscovererOptions,
  DiscoveryEntry,
  Snapshot,
} from '../../model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { createHash } from 'node:crypto';
import { truncateText } from '../../../util/truncate.ts';
import { LastReported } from '../../../util/reported-once.ts';
import { discoverTopology, type AmbiguousTierName, type UncoveredNode } from './label-grouping.ts';
import { LEFT_OUT_REASONS } from './preset/preset-stack.ts';
import { NODES_LEFT_OUT, TIER_NAME_AMBIGUOUS } from '../../event-reasons.ts';
import {
  LABEL_SOURCE,
  NETWORK_TOPOLOGY_PROFILE_LABEL,
  NETWORK_TOPOLOGY_SOURCE_LABEL,
} from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';
import { valueGivingDomain } from '../../model/nvlink.ts';
import { LabelMemory } from '../label-memory.ts';
import { topologyTypes, type TopologyType } from './label-config.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

/**
 * How long a trigger waits before the run starts, so that a burst of Node
 * events (a rollout relabelling hundreds of Nodes) costs one run. Go uses 1 ms.
 */
export const TRIGGER_DEBOUNCE_MS = 100;
/** The queue holds one constant key: "a run is wanted". */
const RUN_KEY = 'label-discovery';
/** The queue's name in workqueue_* and in the worker errors. */
const QUEUE_NAME = 'label-discovery';
/** Uncovered Nodes named in the log line; the count says how many there are in all. */
export const UNCOVERED_LOGGED_NODES = 10;

/** The Node's labels whose key `relevant` accepts (it appears in some tier list, profile selector or preset). */
function relevantLabels(node: NodeMeta, relevant: (key: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) if (relevant(k)) out.set(k, v);
  return out;
}

function sameLabels(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

export class LabelDiscoverer implements Discoverer {
  private readonly types: TopologyType[];
  private readonly relevantKey: (key: string) => boolean;
  /** The keys that place a Node (a level of a list, profile or preset), which the label memory keeps. */
  private readonly levelKey: (key: string) => boolean;
  private readonly memory: LabelMemory;
  private readonly queue: RateLimitingQueue;
  private readonly out = new Channel<Snapshot>(0);
  /** Acknowledgements from the controller, handed over one at a time. */
  private readonly acks = new Channel<true>(0);
  private readonly stopping = new AbortController();
  private readonly logger: Logger;
  private registrations: HandlerRegistration[] = [];
  /**
   * Wants a run TRIGGER_DEBOUNCE_MS after the first trigger of a burst; later
   * triggers ride along. A trigger during a run starts a new burst, and the
   * queue defers its key until the run is done, so a burst costs at most one
   * further run.
   */
  private readonly runWanted: CoalescingTrigger;
  private worker: Promise<void> | undefined;
  /** Digest of the uncovered Nodes (and why) last logged, so an unchanged set is logged once. */
  private readonly loggedUncovered = new LastReported();
  /** Per left-out reason, the digest of the Nodes last reported in a Warning Event. */
  private readonly reportedLeftOut = new LastReported();
  /** The ambiguous tierName message last reported, so it is logged and emitted once. */
  private readonly reportedAmbiguity = new LastReported();

  constructor(
    entry: DiscoveryEntry,
    private readonly opts: DiscovererOptions,
  ) {
    this.logger = opts.logger.with({ source: LABEL_SOURCE });
    this.types = topologyTypes(entry.config, this.logger);
    // A profile's selector keys count too: changing one can move a Node between profiles.
    const keys = new Set(this.types.flatMap((t) => [...t.tiers, ...(t.profile?.selectorKeys ?? [])]));
    const presets = this.types.flatMap((t) => (t.preset ? [t.preset.stack] : []));
    this.relevantKey = (key) => keys.has(key) || presets.some((p) => p.watches(key));
    const levelKeys = new Set(this.types.flatMap((t) => t.tiers));
    this.levelKey = (key) => levelKeys.has(key) || presets.some((p) => p.isLevelKey(key));
    this.queue = new RateLimitingQueue({
      name: QUEUE_NAME,
      clock: opts.clock,
      metrics: opts.queueMetrics?.(QUEUE_NAME),
      onError: opts.workerErrors(QUEUE_NAME),
    });
    this.runWanted = coalescingTrigger(() => this.queue.add(RUN_KEY), {
      quietMs: TRIGGER_DEBOUNCE_MS,
      clock: opts.clock,
      onError: (err) => this.logger.error('Failed to queue a label discovery run', { err }),
    });
    this.memory = new LabelMemory({
      source: LABEL_SOURCE,
      reporter: opts.labelHolds,
      clock: opts.clock,
      logger: this.logger,
      onExpiry: () => this.runWanted.trigger(),
    });
  }

  async start(): Promise<Channel<Snapshot>> {
    this.registrations.push(this.opts.nodes.addEventHandler(this.nodeHandler()));
    this.registrations.push(this.opts.hyperNodes.addEventHandler({ onDelete: () => this.runWanted.trigger() }));
    this.runWanted.trigger();
    this.worker = this.runWorker();
    return this.out;
  }

  resultSynced(): void {
    // The worker takes the hand-over when it next waits; nothing to do once stopped.
    void this.acks.send(true, this.stopping.signal);
  }

  async stop(): Promise<void> {
    for (const r of this.registrations.splice(0)) {
      try {
        r.remove();
      } catch (err) {
        this.logger.error('Failed to remove event handler', { err });
      }
    }
    this.runWanted.stop();
    this.memory.stop();
    this.stopping.abort();
    this.queue.shutDown();
    await this.worker;
  }

  private nodeHandler(): EventHandler<NodeMeta> {
    const relevant = (n: NodeMeta) => relevantLabels(n, this.relevantKey);
    return {
      onAdd: (node) => {
        if (relevant(node).size > 0) this.runWanted.trigger();
      },
      onUpdate: (oldNode, newNode) => {
        if (!sameLabels(relevant(oldNode), relevant(newNode))) this.runWanted.trigger();
      },
      onDelete: (obj: NodeMeta | Tombstone<NodeMeta>) => {
        // Unlike Go, a "final state unknown" tombstone is unwrapped: its Node
        // still leaves groups behind.
        const node = isTombstone(obj) ? obj.obj : obj;
        if (relevant(node).size > 0) this.runWanted.trigger();
      },
    };
  }

  private async runWorker(): Promise<void> {
    const signal = this.stopping.signal;
    try {
      await Promise.all([this.opts.nodes.waitForSync(signal), this.opts.hyperNodes.waitForSync(signal)]);
      for (;;) {
        const key = await this.queue.get();
        // shutDown() drains queued keys; after stop there is nobody to send to.
        if (key === undefined || signal.aborted) return;
        // A run reports its own failures; a throw past them is the queue's worker error, retried like one.
        const delivered = await this.runOnce(key).catch((err: unknown) => {
          this.queue.retryAfterError(key, err);
          return false;
        });
        if (!delivered) continue; // nothing was sent, so no acknowledgement will come
        await this.acks.recv(signal);
      }
    } catch (err) {
      if (!signal.aborted) this.logger.error('Label discovery worker stopped unexpectedly', { err });
    } finally {
      this.out.close();
    }
  }

  /**
   * A synced Node cache holding no Node at all while label HyperNodes exist is
   * far more likely a broken list (a proxy, a wrong kubeconfig, a cache bug)
   * than a cluster without Nodes, and its snapshot would delete every label
   * HyperNode. Throws, so the run counts as failed and is retried with
   * backoff. Nodes that carry none of the configured labels are another
   * matter: they yield an empty snapshot as before, since the cluster visibly
   * exists and was relabelled.
   */
  private refuseEmptyNodeCache(nodes: readonly NodeMeta[]): void {
    if (nodes.length > 0) return;
    const owned = this.opts.hyperNodes.list({ [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE }).length;
    if (owned === 0) return;
    throw new Error(
      `the Node cache is empty while ${owned} label HyperNodes exist; refusing to delete them all, will retry`,
    );
  }

  /**
   * Counts the Nodes that carry level labels but are in no HyperNode, and
   * names the first few with the reason when the set changes: an operator
   * fixes the labels, and 10k unlabelled Nodes still make one short line.
   */
  private reportUncovered(uncovered: readonly UncoveredNode[]): void {
    this.opts.metrics?.uncoveredNodes(LABEL_SOURCE, uncovered.length, { nodes: uncovered });
    for (const reason of LEFT_OUT_REASONS)
      this.opts.metrics?.uncoveredNodes(LABEL_SOURCE, uncovered.filter((u) => u.reason === reason).length, { reason });
    this.reportLeftOut(uncovered);
    const digest = uncovered.length === 0 ? '' : createHash('sha256').update(JSON.stringify(uncovered)).digest('hex');
    const before = this.loggedUncovered.get() ?? '';
    if (!this.loggedUncovered.isNew(digest)) return;
    if (uncovered.length === 0) {
      if (before !== '') this.logger.info('All Nodes with topology labels are in a HyperNode again');
      return;
    }
    const named = uncovered.slice(0, UNCOVERED_LOGGED_NODES).map((u) => `${u.name} (${u.why})`);
    this.logger.warn('Nodes with topology labels are in no HyperNode', {
      count: uncovered.length,
      nodes: truncateText(named.join('; ')),
    });
  }

  /**
   * One Warning Event (and log line) per kind of problem a preset found, when
   * the Nodes of that kind change: the first few named with their labels, so
   * `kubectl get events` says which Node to fix and how.
   */
  private reportLeftOut(uncovered: readonly UncoveredNode[]): void {
    for (const reason of LEFT_OUT_REASONS) {
      const these = uncovered.filter((u) => u.reason === reason && u.preset);
      const digest = these.length === 0 ? '' : createHash('sha256').update(JSON.stringify(these)).digest('hex');
      if (!this.reportedLeftOut.isNew(digest, reason)) continue;
      if (these.length === 0) continue;
      const named = these.slice(0, UNCOVERED_LOGGED_NODES).map((u) => `${u.name}: ${u.why}`);
      const more = these.length > named.length ? `; and ${these.length - named.length} more` : '';
      this.opts.problems.warning(
        NODES_LEFT_OUT.reason,
        truncateText(
          `${these.length} Node(s) left out of the topology (${reason}), the other Nodes are placed: ${named.join('; ')}${more}`,
        ),
      );
    }
  }

  /**
   * Logs and emits once per distinct set: a tierName at several tiers means one of them at random to a released Volcano
   * scheduler.
   */
  private reportAmbiguity(ambiguous: readonly AmbiguousTierName[]): void {
    const message = ambiguous.length === 0 ? '' : ambiguousTierNamesMessage(ambiguous);
    if (!this.reportedAmbiguity.isNew(message)) return;
    if (message !== '') this.opts.problems.warning(TIER_NAME_AMBIGUOUS.reason, truncateText(message));
  }

  /**
   * A label value giving `domain` for `key` in the type that made `holder`
   * (its profile label names a profile or preset; a list type otherwise):
   * what the label memory puts back after a restart.
   */
  private valueFor(key: string, domain: string, holder: HyperNode): string | undefined {
    const profile = labelValue(holder.metadata.labels, NETWORK_TOPOLOGY_PROFILE_LABEL);
    if (profile === undefined)
      return this.types.some((t) => !t.profile && !t.preset && t.tiers.includes(key)) ? domain : undefined;
    for (const t of this.types) {
      if (t.preset?.labelValue === profile)
        return valueGivingDomain(domain, (raw) => t.preset!.stack.domainOf(key, raw));
      const level = t.profile?.labelValue === profile ? t.profile.levels.find((l) => l.nodeLabel === key) : undefined;
      if (level) return valueGivingDomain(domain, level.domainOf);
    }
    return undefined;
  }

  /** One discovery: true when a snapshot was handed to the manager. */
  private async runOnce(key: string): Promise<boolean> {
    try {
      this.logger.v(3).info('Started label based hyperNode auto discovery');
      const cached = this.opts.nodes.list();
      this.refuseEmptyNodeCache(cached);
      const { nodes, held } = this.memory.recall({
        scope: '',
        nodes: cached,
        isLevelKey: this.levelKey,
        cached: () => this.opts.hyperNodes.list({ [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE }),
        valueFor: (key, domain, holder) => this.valueFor(key, domain, holder),
      });
      const { snapshot, uncovered, ambiguous } = discoverTopology(nodes, this.types, this.opts.hyperNodes);
      this.memory.report('', held, snapshot);
      this.logger.v(3).info('End label based hyperNode auto discovery', { hyperNodes: snapshot.length });
      this.reportUncovered(uncovered);
      this.reportAmbiguity(ambiguous);
      this.queue.forget(key);
      this.opts.problems.recovered();
      return await this.out.send(snapshot, this.stopping.signal);
    } catch (err) {
      this.opts.problems.failed('Error discover HyperNode', err);
      this.queue.addRateLimited(key);
      return false;
    } finally {
      this.queue.done(key);
    }
  }
}

/**
 * What a Warning about ambiguous tierNames says: which tierName, which tiers, from which profiles, and why it matters.
 */
function ambiguousTierNamesMessage(ambiguous: readonly AmbiguousTierName[]): string {
  const each = ambiguous.map(
    (a) => `tierName ${quoteInput(a.tierName)} is at tiers ${a.tiers.join(' and ')} (profiles: ${a.types.join(', ')})`,
  );
  return (
    `${each.join('; ')}. Released Volcano schedulers keep one tier per tierName and take whichever they saw last, so highestTierName resolves ambiguously there; ` +
    "only a scheduler that resolves tierNames per tree reads it as meant. Give the levels distinct tierNames or align the profiles' tiers"
  );
}

export const labelDiscovererFactory: DiscovererFactory = async (entry, opts) => new LabelDiscoverer(entry, opts);
