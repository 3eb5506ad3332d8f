// The discovery manager: turns the discovery ConfigMap into running
// discoverers and funnels their snapshots, one at a time, to the controller,
// relaying the controller's acknowledgement back to the producing instance.
// Mirrors pkg/controllers/hypernode/discovery/manager.go (docs/design.md §2.4),
// improved per docs/differences-from-go.md items 3 and 4: a ConfigMap change restarts only
// the sources whose resolved entry changed (Volcano issue #5191), and a source
// that cannot be created or started is reported once per distinct error and
// retried with its own backoff without blocking or restarting the others.
// Each configuration it applies is published (`onConfiguration`), so the
// followers act on the document discovery runs with instead of parsing the
// ConfigMap again.

import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../kube/clock.ts';
import { isNotFound } from '../../kube/errors.ts';
import { isTombstone, type EventHandler, type KubeObject, type Lister, type Tombstone } from '../../kube/types.ts';
import { RateLimitingQueue, type QueueMetrics, type WorkerErrorHandler } from '../../kube/rate-limiting-queue.ts';
import { runWorker, type SyncResult } from '../../kube/queue-workers.ts';
import type { Logger } from '../../log.ts';
import { untilAborted } from '../../util/abort.ts';
import { Channel } from '../../util/channel.ts';
import { errorMessage, wrapError } from '../../util/error-message.ts';
import { LastReported } from '../../util/reported-once.ts';
import type { Discoverer, DiscovererOptions, DiscoveryEntry, EventRecorder, Snapshot } from '../model/contracts.ts';
import { SourceProblems } from './source-problems.ts';
import type { ConfigMap } from '../model/hypernode-types.ts';
import type { EntryResult } from '../config/entry.ts';
import { LABEL_SOURCE } from '../model/hypernode-labels.ts';
import { EMPTY_CONFIG, entryOf, loadConfig, type DiscoveryConfig } from '../config/loader.ts';
import { configMapRef, type ConfigMapLocation } from '../config/location.ts';
import type { HyperNodeMetrics } from '../hypernode-metrics.ts';
import { lookupDiscoverer, type DiscovererRegistry } from './registry.ts';
import { DISCOVERER_FAILED, DISCOVERY_CONFIG_INVALID } from '../event-reasons.ts';

export const CONFIG_QUEUE_NAME = 'hypernode-configmap';
/** Queue keys that retry one failed source; ConfigMap keys are `<ns>/<name>`. */
const RETRY_KEY_PREFIX = 'discoverer:';

/** One snapshot on the way to the controller. */
export interface DiscoveryResult {
  source: string;
  hyperNodes: Snapshot;
  /** The entry the producing instance runs with (its maxDeletePercent applies to this snapshot). */
  entry: DiscoveryEntry;
}

export interface DiscoveryManagerDeps {
  configMaps: Lister<ConfigMap>;
  configMap: ConfigMapLocation;
  registry: DiscovererRegistry;
  /** Handed to every discoverer factory (its logger gains `source=`). */
  /** What every discoverer gets; the manager adds each source's problem reporter. */
  discovererOptions: Omit<DiscovererOptions, 'problems'>;
  events: EventRecorder;
  metrics: HyperNodeMetrics;
  clock: Clock;
  logger: Logger;
  queueMetrics?: QueueMetrics;
  /** Told of each throw of the config worker before its key is retried (the process logs and counts it). */
  onWorkerError: WorkerErrorHandler;
  /**
   * Told the configuration of every ConfigMap change before its sources are
   * brought in line with it; undefined when there is none to apply (the
   * ConfigMap is missing or cannot be loaded).
   */
  onConfiguration?: (config: DiscoveryConfig | undefined) => void;
}

/** A started discoverer and its result processor. */
interface Instance {
  readonly source: string;
  readonly entry: DiscoveryEntry;
  readonly discoverer: Discoverer;
  /** Fired when the instance is being stopped: take no new results from it. */
  readonly stopProcessor: AbortController;
  processorDone: Promise<void>;
  /** The result of this instance the controller is reconciling, if any. */
  pending: AckToken | undefined;
}

/** Acknowledgement of one forwarded result, bound to the instance that produced it. */
class AckToken {
  private resolved = false;
  private release!: () => void;
  readonly acknowledged = new Promise<void>((resolve) => (this.release = resolve));

  constructor(
    private readonly instance: Instance,
    private readonly logger: Logger,
  ) {}

  /** Tells the producer first (synchronously), then lets its processor go on. At most once. */
  resolve(): void {
    if (this.resolved) return;
    this.resolved = true;
    try {
      this.instance.discoverer.resultSynced();
    } catch (err) {
      this.logger.error('Discoverer failed to handle the acknowledgement', { source: this.instance.source, err });
    }
    this.release();
  }
}

export class DiscoveryManager {
  /** Unbuffered: a processor's send completes only when the controller took the result. */
  readonly results = new Channel<DiscoveryResult>(0);
  /** The controller's ConfigMap queue (docs/design.md §2.4 step 1) plus per-source retry keys. */
  readonly queue: RateLimitingQueue;
  private readonly running = new Map<string, Instance>();
  /** Last reported error per failing source, to log and emit each distinct error once. */
  private readonly failures = new LastReported();
  /** The configuration error last reported. */
  private readonly configError = new LastReported();
  private readonly stopping = new AbortController();
  private workerDone: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;

  constructor(private readonly deps: DiscoveryManagerDeps) {
    this.queue = new RateLimitingQueue({
      name: CONFIG_QUEUE_NAME,
      clock: deps.clock,
      metrics: deps.queueMetrics,
      onError: deps.onWorkerError,
    });
  }

  /** ConfigMap add/update/delete → `<ns>/<name>` on the queue; tombstones are unwrapped. */
  configMapHandler(): EventHandler<ConfigMap> {
    const enqueue = (obj: ConfigMap | Tombstone<ConfigMap> | undefined) => {
      const cm = obj && isTombstone(obj) ? obj.obj : obj;
      const meta = cm?.metadata;
      if (!meta?.name) {
        this.deps.logger.error('Ignoring a ConfigMap event without a ConfigMap', { object: obj });
        return;
      }
      const { namespace, name } = this.deps.configMap;
      // The informer is already filtered to this one ConfigMap; the check keeps a wider informer harmless.
      if (meta.namespace === namespace && meta.name === name) this.queue.add(`${namespace}/${name}`);
    };
    return { onAdd: enqueue, onUpdate: (_old, cm) => enqueue(cm), onDelete: enqueue };
  }

  /**
   * Starts the config worker. Discoverers start with the first queue item,
   * normally the informer's initial add of the ConfigMap.
   */
  start(): void {
    if (this.workerDone !== undefined) return;
    // The config worker (docs/design.md §2.4): one key at a time, a failed one retried with its backoff.
    this.workerDone = runWorker(this.queue, (key) => this.syncKey(key));
    this.deps.logger.info('Network topology discovery manager started');
  }

  /** Called by the controller after every result it took, reconciled or not. */
  resultSynced(source: string): void {
    const token = this.running.get(source)?.pending;
    if (!token) {
      this.deps.logger.v(2).info('No in-flight discovery result to acknowledge', { source });
      return;
    }
    token.resolve();
  }

  /** Shutdown (docs/design.md §3.2): worker first, then every source, then the result stream. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping.abort();
      this.queue.shutDown();
      await this.workerDone;
      await Promise.all([...this.running.keys()].map((source) => this.stopSource(source)));
      this.results.close();
      this.deps.logger.info('Network topology discovery manager stopped');
    })();
    return this.stopped;
  }

  /** A ConfigMap key applies the configuration; a retry key starts its one source again. */
  private async syncKey(key: string): Promise<SyncResult> {
    try {
      const settled = key.startsWith(RETRY_KEY_PREFIX)
        ? await this.retrySource(key.slice(RETRY_KEY_PREFIX.length))
        : await this.sync(key);
      return settled ? 'done' : 'retry';
    } catch (err) {
      this.reportConfigError(key, err);
      return 'retry';
    }
  }

  /**
   * Applies the current configuration: stops sources that are gone or
   * disabled (their HyperNodes stay) and starts or restarts those whose entry
   * changed. Throws when the document cannot be loaded (running discoverers
   * keep running). Failing sources are queued for their own retry.
   */
  private async sync(key: string): Promise<boolean> {
    this.deps.logger.info('Received configuration update', { key });
    // Enabled sources in document order; the first enabled entry of a source wins (Go GetDiscoveryConfig).
    const wanted = (await this.load(true)).bySource;
    this.configError.forget();
    for (const source of [...this.running.keys()]) {
      if (wanted.has(source)) continue;
      await this.stopSource(source);
      this.deps.logger.info('Stopped network topology discoverer', { source, reason: 'removed or disabled' });
    }
    for (const source of this.failures.keys()) if (!wanted.has(source)) this.failures.forget(source);
    let started = 0;
    for (const [source, result] of wanted) {
      if (this.stopping.signal.aborted) return true;
      const outcome = await this.applySource(source, result);
      if (outcome === 'started') started++;
      if (outcome === 'failed') this.queue.addRateLimited(RETRY_KEY_PREFIX + source);
      else this.queue.forget(RETRY_KEY_PREFIX + source);
    }
    this.logAllStarted(wanted, started);
    this.deps.logger.v(2).info('Discovery configuration applied', {
      running: [...this.running.keys()],
      failing: [...this.failures.keys()],
    });
    return true;
  }

  /** The retry of one failed source; false asks for another try with a longer backoff. */
  private async retrySource(source: string): Promise<boolean> {
    if (this.stopping.signal.aborted) return true;
    let config: DiscoveryConfig;
    try {
      config = await this.load();
    } catch {
      return true; // a bad document is reported and retried under the ConfigMap's key
    }
    const wanted = config.bySource;
    const result = wanted.get(source);
    if (!result) return true; // removed meanwhile; the ConfigMap sync stops it
    const outcome = await this.applySource(source, result);
    this.logAllStarted(wanted, outcome === 'started' ? 1 : 0);
    return outcome !== 'failed';
  }

  /** The configuration from the cache, published when asked; a missing ConfigMap means no sources. */
  private async load(publish = false): Promise<DiscoveryConfig> {
    let config: DiscoveryConfig;
    try {
      config = await loadConfig(this.deps.configMaps, this.deps.configMap, this.deps.logger);
    } catch (err) {
      if (publish) this.deps.onConfiguration?.(undefined);
      if (isNotFound(err)) return EMPTY_CONFIG;
      throw err;
    }
    if (publish) this.deps.onConfiguration?.(config);
    return config;
  }

  /** Brings one wanted source in line with its entry. A bad entry leaves a running instance alone. */
  private async applySource(source: string, result: EntryResult): Promise<'unchanged' | 'started' | 'failed'> {
    const entry = entryOf(result);
    // The label source runs on Node changes: its `interval` means nothing, and a staleness rule must not measure it
    // (docs/metrics.md).
    // Only a source that can run gets its series: an unsupported name is a typo (reported below), and a document of
    // thousands of them must not make thousands of series sets.
    if (this.deps.registry.has(source))
      this.deps.metrics.sourceConfigured(source, source === LABEL_SOURCE ? undefined : entry?.intervalMs);
    if (!entry) {
      this.reportSourceFailure(
        source,
        new Error('error' in result ? result.error : `invalid entry for source ${source}`),
      );
      return 'failed';
    }
    const current = this.running.get(source);
    if (current && isDeepStrictEqual(current.entry, entry)) return 'unchanged';
    // A retry of a failing source is already reported; only say so at V(2).
    (this.failures.has(source) ? this.deps.logger.v(2) : this.deps.logger).info('Restarting network discovery', {
      source,
    });
    if (current) await this.stopSource(source);
    if (this.stopping.signal.aborted) return 'unchanged';
    try {
      await this.startSource(source, entry);
    } catch (err) {
      this.reportSourceFailure(source, err);
      return 'failed';
    }
    if (this.failures.forget(source)) this.deps.logger.info('Network topology discoverer recovered', { source });
    return 'started';
  }

  /** Starts one source (docs/design.md §2.4 step 3), with the entry already resolved by the caller. */
  private async startSource(source: string, entry: DiscoveryEntry): Promise<void> {
    const problems = new SourceProblems({
      source,
      logger: this.deps.logger,
      events: this.deps.events,
      metrics: this.deps.metrics,
      clock: this.deps.clock,
      regarding: () => this.configMapRef(),
    });
    const opts = {
      ...this.deps.discovererOptions,
      logger: this.deps.discovererOptions.logger.with({ source }),
      problems,
    };
    let discoverer: Discoverer;
    try {
      discoverer = await lookupDiscoverer(this.deps.registry, source)(entry, opts);
    } catch (err) {
      throw wrapError('failed to create discoverer', err);
    }
    let output: Channel<Snapshot>;
    try {
      output = await discoverer.start();
    } catch (err) {
      // A discoverer that failed to start is dropped without stop() (Go does the same).
      throw wrapError('failed to start discoverer', err);
    }
    const instance: Instance = {
      source,
      entry,
      discoverer,
      stopProcessor: new AbortController(),
      processorDone: Promise.resolve(),
      pending: undefined,
    };
    instance.processorDone = this.processResults(instance, output);
    this.running.set(source, instance);
    this.deps.logger.info('Started network topology discoverer', { source });
  }

  /**
   * Stopping one source: stop taking results, stop the discoverer, wait for the
   * processor (which first waits for the acknowledgement of a result already
   * handed to the controller), then forget the instance.
   */
  private async stopSource(source: string): Promise<void> {
    const instance = this.running.get(source);
    if (!instance) {
      this.deps.logger.v(4).info('No need to stop discoverer as it may not start yet', { source });
      return;
    }
    instance.stopProcessor.abort();
    try {
      await instance.discoverer.stop();
    } catch (err) {
      this.deps.logger.error('Failed to stop network topology discoverer', { source, err });
    }
    await instance.processorDone;
    if (this.running.get(source) === instance) this.running.delete(source);
  }

  /**
   * The result processor (docs/design.md §2.1 step 5): one result in flight per instance; results left in the
   * discoverer are dropped.
   */
  private async processResults(instance: Instance, output: Channel<Snapshot>): Promise<void> {
    const managerStop = this.stopping.signal;
    const exit = AbortSignal.any([instance.stopProcessor.signal, managerStop]);
    for (;;) {
      let next: IteratorResult<Snapshot, undefined>;
      try {
        next = await output.recv(exit);
      } catch {
        return;
      }
      if (next.done) return;
      const token = new AckToken(instance, this.deps.logger);
      instance.pending = token;
      const handedOver = await this.results.send(
        { source: instance.source, hyperNodes: next.value, entry: instance.entry },
        exit,
      );
      if (handedOver) {
        this.deps.logger.v(3).info('Forwarded discovery results to unified channel', { source: instance.source });
        // Being stopped does not interrupt this wait: a replacement must not start mid-reconcile.
        await untilAborted(token.acknowledged, managerStop);
      }
      if (instance.pending === token) instance.pending = undefined;
      if (!handedOver || exit.aborted) return;
    }
  }

  private reportSourceFailure(source: string, err: unknown): void {
    this.deps.metrics.discovererFailed(source);
    const message = errorMessage(err);
    if (!this.failures.isNew(message, source)) return;
    this.deps.logger.error('Failed to start network topology discoverer', { source, err: message });
    const state = this.running.has(source) ? 'keeps running with its previous configuration' : 'is not running';
    this.deps.events.event(
      this.configMapRef(),
      DISCOVERER_FAILED.type,
      DISCOVERER_FAILED.reason,
      `Discovery source "${source}" ${state}: ${message}`,
    );
  }

  private reportConfigError(key: string, err: unknown): void {
    const message = errorMessage(err);
    if (!this.configError.isNew(message)) return;
    this.deps.logger.error('Failed to process network topology discoverer', { key, err: message });
    this.deps.events.event(
      this.configMapRef(),
      DISCOVERY_CONFIG_INVALID.type,
      DISCOVERY_CONFIG_INVALID.reason,
      `Discovery configuration not applied, running discoverers keep their old configuration: ${message}`,
    );
  }

  private logAllStarted(wanted: ReadonlyMap<string, EntryResult>, started: number): void {
    if (started > 0 && [...wanted.keys()].every((source) => this.running.has(source) && !this.failures.has(source))) {
      this.deps.logger.info('Successfully started all network topology discoverers', { sources: [...wanted.keys()] });
    }
  }

  /** The ConfigMap as the regarding object of Events. */
  private configMapRef(): KubeObject {
    return configMapRef(this.deps.configMap);
  }
}
