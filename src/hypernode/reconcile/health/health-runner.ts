// Node and fabric health as one follower of the controller (docs/health.md,
// reconcile/follower.ts): the condition writer, the opt-in full Node watch it
// judges NodesReady from, and the `health` settings of the configuration the
// discovery manager applied, hot-reloaded. The full Node watch runs only
// while `health.nodes` is true: turning it on starts a second Node informer
// that keeps a few fields per Node (node-health.ts); turning it off stops it
// and removes the NodesReady conditions.

import type { Registry } from 'prom-client';
import type { EventHandler, HandlerRegistration, Informer } from '../../../kube/types.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import type { FabricHealthReporter } from '../../model/contracts.ts';
import type { HyperNode } from '../../model/hypernode-types.ts';
import type { Follower } from '../follower.ts';
import { LastReported } from '../../../util/reported-once.ts';
import { ConditionWriter, type ConditionWriterDeps } from './condition-writer.ts';
import { exportHealthGauges } from './health-metrics.ts';
import type { NodeHealth } from './node-health.ts';

/** An informer the health part starts and stops itself. */
export interface RunnableInformer<T> extends Informer<T> {
  run(signal: AbortSignal): Promise<void>;
}

/** A new full Node watch, transformed to NodeHealth (each informer runs once). */
export type NodeHealthInformerFactory = () => RunnableInformer<NodeHealth>;

export interface HealthRunnerDeps extends ConditionWriterDeps {
  /** Absent: health.nodes cannot be turned on (it is logged once when asked for). */
  nodeHealthInformer?: NodeHealthInformerFactory;
  registry: Registry;
}

interface NodeWatch {
  readonly stop: AbortController;
  readonly run: Promise<void>;
  registration?: HandlerRegistration;
}

export class HealthRunner implements Follower {
  readonly writer: ConditionWriter;
  private watch: NodeWatch | undefined;
  private readonly stopGauges: () => void;
  /** The missing Node watch is logged once, not at every configuration. */
  private readonly noWatchLogged = new LastReported();

  constructor(private readonly deps: HealthRunnerDeps) {
    this.writer = new ConditionWriter(deps);
    this.stopGauges = exportHealthGauges(deps.registry, this.writer.judgements);
  }

  /** Where the fabric sources report (DiscovererOptions.fabricHealth). */
  get fabric(): FabricHealthReporter {
    return this.writer.fabric;
  }

  /**
   * The `health` settings take effect. Undefined (a document that does not
   * load) keeps the settings in force; the discovery manager reports it
   * (DiscoveryConfigInvalid).
   */
  configuration(config: DiscoveryConfig | undefined): void {
    if (!config) return;
    this.writer.setSettings(config.health);
    // A stop resolves when the old watch ended; nothing waits for it here.
    void this.nodeWatch(config.health.nodes);
  }

  /** Conditions follow the HyperNode objects themselves (hyperNodeHandler), not the snapshots that write them. */
  snapshot(): void {}

  hyperNodeHandler(): EventHandler<HyperNode> {
    return this.writer.hyperNodeHandler();
  }

  /** The writer's worker; once it ends, the Node watch and the gauges stop too. */
  async run(): Promise<void> {
    try {
      await this.writer.run();
    } finally {
      await this.nodeWatch(false);
      this.stopGauges();
    }
  }

  /** Drops pending writes; run() ends after the write in flight and the Node watch's end. */
  shutDown(): void {
    this.writer.shutDown();
  }

  private async nodeWatch(on: boolean): Promise<void> {
    const { logger } = this.deps;
    if (on && !this.watch) {
      const factory = this.deps.nodeHealthInformer;
      if (!factory) {
        const message = 'health.nodes is set but this process has no full Node watch; NodesReady is not written';
        if (this.noWatchLogged.isNew(message)) logger.info(message);
        return;
      }
      const informer = factory();
      const stop = new AbortController();
      const watch: NodeWatch = { stop, run: informer.run(stop.signal).catch((err) => logger.error('Node health watch stopped', { err })) };
      this.watch = watch;
      logger.info('Node health on: watching full Node objects');
      informer.waitForSync(stop.signal).then(
        () => {
          if (stop.signal.aborted) return;
          this.writer.setNodeHealth(informer);
          watch.registration = informer.addEventHandler(this.writer.nodeHealthHandler());
        },
        () => {},
      );
    } else if (!on && this.watch) {
      const { stop, run, registration } = this.watch;
      this.watch = undefined;
      registration?.remove();
      stop.abort();
      this.writer.setNodeHealth(undefined);
      logger.info('Node health off: full Node watch stopped');
      await run;
    }
  }
}
