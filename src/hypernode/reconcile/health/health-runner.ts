// Node and fabric health as one follower (follower.ts): it hands the applied
// `health` settings to the status writer, which judges and writes the
// conditions, and runs what those settings turn on: the full Node watch
// NodesReady is judged from and the fabric taint reads the Nodes' taints
// from, and the health gauges. Ours; docs/health.md.

import type { Registry } from 'prom-client';
import type { EventHandler, HandlerRegistration, Informer } from '../../../kube/types.ts';
import type { Logger } from '../../../log.ts';
import type { DiscoveryConfig } from '../../config/loader.ts';
import type { Follower } from '../follower.ts';
import { LastReported } from '../../../util/reported-once.ts';
import { Latch } from '../../../util/latch.ts';
import type { NodeHealthState } from '../status-writer.ts';
import {
  exportHealthGauges,
  exportTaintGauges,
  type HealthJudgement,
  type HeldNodeCounts,
  type TaintCounts,
} from './health-metrics.ts';
import type { NodeHealth } from './node-health.ts';
import type { HealthSettings } from '../../config/health-config.ts';

/** An informer the health part starts and stops itself. */
export interface RunnableInformer<T> extends Informer<T> {
  run(signal: AbortSignal): Promise<void>;
}

/** A new full Node watch, transformed to NodeHealth (each informer runs once). */
export type NodeHealthInformerFactory = () => RunnableInformer<NodeHealth>;

/** What of the status writer health drives. */
export interface HealthTarget {
  readonly judgements: ReadonlyMap<string, HealthJudgement>;
  readonly labelHolds: HeldNodeCounts;
  setSettings(settings: HealthSettings): void;
  setNodeHealth(state: NodeHealthState): void;
  nodeHealthHandler(): EventHandler<NodeHealth>;
}

/** What of the taint writer (taint-writer.ts) the full Node watch feeds. */
export interface TaintTarget extends TaintCounts {
  setNodeTaints(state: NodeHealthState): void;
  nodeTaintHandler(): EventHandler<NodeHealth>;
}

export interface HealthRunnerDeps {
  writer: HealthTarget;
  /** The fabric taint's writer; absent where no Node is tainted (tests of other parts). */
  taints?: TaintTarget;
  /** Absent: health.nodes and health.taint cannot be turned on (it is logged once when asked for). */
  nodeHealthInformer?: NodeHealthInformerFactory;
  registry: Registry;
  logger: Logger;
}

interface NodeWatch {
  readonly stop: AbortController;
  readonly run: Promise<void>;
  registrations: HandlerRegistration[];
}

export class HealthRunner implements Follower {
  private watch: NodeWatch | undefined;
  private readonly stopGauges: () => void;
  /** The missing Node watch is logged once, not at every configuration. */
  private readonly noWatchLogged = new LastReported();
  private readonly stopped = new Latch();

  constructor(private readonly deps: HealthRunnerDeps) {
    const stopHealth = exportHealthGauges(deps.registry, deps.writer.judgements, deps.writer.labelHolds);
    const stopTaints = deps.taints ? exportTaintGauges(deps.registry, deps.taints) : () => {};
    this.stopGauges = () => {
      stopHealth();
      stopTaints();
    };
  }

  /**
   * The `health` settings take effect. Undefined (a document that does not
   * load) keeps the settings in force; the discovery manager reports it
   * (DiscoveryConfigInvalid).
   */
  configuration(config: DiscoveryConfig | undefined): void {
    if (!config) return;
    this.deps.writer.setSettings(config.health);
    // A stop resolves when the old watch ended; nothing waits for it here. The taint needs every Node's taints.
    void this.nodeWatch(config.health.nodes || config.health.taint !== undefined);
  }

  /**
   * Conditions follow the HyperNode objects themselves (the status writer's handlers), not the snapshots that write
   * them.
   */
  kept(): void {}

  /** Runs until shutDown(); then the Node watch and the gauges stop. */
  async run(): Promise<void> {
    try {
      await this.stopped.wait();
    } finally {
      await this.nodeWatch(false);
      this.stopGauges();
    }
  }

  shutDown(): void {
    this.stopped.open();
  }

  private async nodeWatch(on: boolean): Promise<void> {
    const { logger, writer, taints } = this.deps;
    if (on && !this.watch) {
      const factory = this.deps.nodeHealthInformer;
      if (!factory) {
        const message =
          'health.nodes or health.taint is set but this process has no full Node watch; NodesReady and the taint are not written';
        if (this.noWatchLogged.isNew(message)) logger.info(message);
        return;
      }
      const informer = factory();
      const stop = new AbortController();
      const watch: NodeWatch = {
        stop,
        run: informer.run(stop.signal).catch((err) => logger.error('Node health watch stopped', { err })),
        registrations: [],
      };
      this.watch = watch;
      writer.setNodeHealth('syncing');
      taints?.setNodeTaints('syncing');
      logger.info('Node health on: watching full Node objects');
      informer.waitForSync(stop.signal).then(
        () => {
          if (stop.signal.aborted) return;
          writer.setNodeHealth(informer);
          taints?.setNodeTaints(informer);
          watch.registrations.push(informer.addEventHandler(writer.nodeHealthHandler()));
          if (taints) watch.registrations.push(informer.addEventHandler(taints.nodeTaintHandler()));
        },
        () => {},
      );
    } else if (!on && this.watch) {
      const { stop, run, registrations } = this.watch;
      this.watch = undefined;
      for (const r of registrations) r.remove();
      stop.abort();
      writer.setNodeHealth(undefined);
      taints?.setNodeTaints(undefined);
      logger.info('Node health off: full Node watch stopped');
      await run;
    }
  }
}
