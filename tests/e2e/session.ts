// What one end-to-end test starts (the cluster, the controller, a UFM
// stand-in), torn down after the test even when it fails, and waiting on the
// cluster with the controller's log attached to a timeout — the one thing
// needed to see why a scenario did not converge.

import type { Test } from 'uvu';
import { startControllerInProcess, type ControllerRun, type RunOptions } from '../support/controller-process.ts';
import type { UfmServer } from '../../testing/ufm-server.ts';
import { waitFor } from '../../testing/wait.ts';
import { NS, seedConfigMap, startCluster, workedExampleNodes, type Cluster } from './cluster.ts';

/** Generous for a loaded 2-core machine; convergence normally takes well under a second. */
export const CONVERGE_TIMEOUT_MS = 20_000;

export class Session {
  cluster: Cluster | undefined;
  controller: ControllerRun | undefined;
  ufm: UfmServer | undefined;
  /** Exit code of the last controller stopped by teardown. */
  lastExit: number | null | undefined;

  async startCluster(extraRules?: Parameters<typeof startCluster>[0]): Promise<Cluster> {
    this.cluster = await startCluster(extraRules);
    return this.cluster;
  }

  /**
   * The controller run in this process (runServer) with `kubeconfig`, in the chart's namespace; stopped by teardown.
   */
  startInProcess(
    kubeconfig: string,
    more: Pick<RunOptions, 'ibnetdiscoverCommand' | 'shippedInputPolicy' | 'verbosity' | 'inputPolicy'> = {},
  ): ControllerRun {
    this.controller = startControllerInProcess({ kubeconfig, namespace: NS, ...more });
    return this.controller;
  }

  /**
   * A cluster with the eight Nodes of the label worked example (docs/design.md §9) and `conf` as
   * the discovery document, and `start` run against it (by default the controller in this process).
   */
  async startWorkedExample(
    conf: string,
    start: (kubeconfig: string) => ControllerRun | Promise<ControllerRun> = (kubeconfig) =>
      this.startInProcess(kubeconfig),
  ): Promise<{ api: Cluster['api']; controller: ControllerRun }> {
    const { api, kubeconfig } = await this.startCluster();
    for (const n of workedExampleNodes()) api.store.create(n);
    seedConfigMap(api, conf);
    const controller = (this.controller = await start(kubeconfig));
    return { api, controller };
  }

  /** The controller's log so far ('' before it started). */
  log(): string {
    return this.controller?.log() ?? '';
  }

  async converge<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string): Promise<T> {
    try {
      return await waitFor(probe, { timeoutMs: CONVERGE_TIMEOUT_MS, what });
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- controller log ---\n${this.log()}`);
    }
  }

  /** Stops the controller first (it must not see its API server vanish), then the stand-ins. */
  async teardown(): Promise<void> {
    this.lastExit = await this.controller?.stop();
    await this.ufm?.close();
    await this.cluster?.close();
    [this.cluster, this.controller, this.ufm] = [undefined, undefined, undefined];
  }
}

/** A Session torn down after each test of `suite`. */
export function session(suite: Test): Session {
  const s = new Session();
  suite.after.each(() => s.teardown());
  return s;
}
