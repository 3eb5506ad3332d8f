// Legacy mode of the ufm source (the default): one endpoint's port list
// grouped as Volcano does (legacy-topology.ts). Mirrors one run of
// pkg/controllers/hypernode/discovery/ufm/ufm.go, except that a failed
// fetch, a malformed body or an answer without Computer ports publishes
// nothing (docs/differences-from-go.md items 3 and 10), that a host port
// going down keeps its place for health.linkGracePeriod while its leaf
// HyperNode reports FabricHealthy=False (legacy-links.ts), and that
// config.nvlink puts NVLink domains below the leaf-hn-<i> groups.

import { wrapError } from '../../../util/error-message.ts';
import { hostIndex } from '../fabric/host-mapping.ts';
import type { PollRun } from '../poll-loop.ts';
import type { Snapshot } from '../../model/contracts.ts';
import { PORTS_RESOURCE_PATH, portsDecoder, type UfmPort } from './legacy-ports.ts';
import { betweenSteps, runInSlices, type SlicedWork } from '../../../util/sliced-work.ts';
import { computerHosts } from './legacy-topology.ts';
import { rememberedLegacySnapshot } from './legacy-links.ts';
import { LinkMemory } from '../fabric/link-memory.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, UFM_SOURCE } from '../../model/hypernode-labels.ts';
import type { UfmEndpoint } from './ufm-endpoint.ts';
import type { UfmRunContext, UfmStrategy } from './ufm-strategy.ts';

/** The link memory's fabric key for legacy mode's one endpoint: no DNS label, so never that of a fabric-mode fabric. */
const LEGACY_FABRIC = '(legacy mode)';

export class UfmLegacyMode implements UfmStrategy {
  /** Cables of the last good poll, kept through the grace period (fabric health). */
  private readonly memory: LinkMemory;
  /** The last good poll's grouping, without the NVLink tier. */
  private last: Snapshot | undefined;

  constructor(private readonly ctx: UfmRunContext) {
    this.memory = new LinkMemory(UFM_SOURCE, ctx.opts);
  }

  async run(): Promise<PollRun> {
    const { opts, signal } = this.ctx;
    const ep = this.ctx.endpoints[0]!;
    if (!this.ctx.offline) {
      try {
        await ep.refresh(opts.secrets, signal);
      } catch (err) {
        if (!signal.aborted) opts.problems.failed('Failed to get credentials from secret', err);
        return { ok: false };
      }
    }
    let ports: UfmPort[];
    try {
      ports = await this.fetchPorts(ep);
    } catch (err) {
      if (!signal.aborted) opts.problems.failed('Failed to fetch UFM data', err);
      return { ok: false };
    }
    this.ctx.logger.v(3).info('Successfully retrieved UFM data', { interfaceCount: ports.length });
    // Grouping a large fabric is a step of its own: the probes are answered between it and the read.
    await betweenSteps();
    const hosts = computerHosts(ports);
    if (hosts.length === 0) {
      // Go would delete every ufm HyperNode here; an empty fabric is far more
      // likely a UFM fault than reality. Judged before the link memory, which
      // would otherwise stand in for every port of such an answer.
      opts.problems.failed(
        'UFM reported no Computer ports; keeping the existing ufm HyperNodes and retrying',
        new Error(`${ports.length} ports in the answer, none of them a Computer port`),
      );
      return { ok: false };
    }
    this.last = rememberedLegacySnapshot(this.memory, LEGACY_FABRIC, ports, this.ctx.logger);
    const snapshot = await runInSlices(this.placed(this.last), signal);
    // Legacy mode keeps such hosts as members (as Volcano does), where they select nothing.
    // The controller starts sources once its caches synced; an unsynced one would count every host.
    if (opts.nodes.hasSynced()) {
      this.ctx.unmapped.report(
        ep.fabric.name,
        hosts,
        hostIndex(this.ctx.config.hostMapping, opts.nodes.list()).mapHost,
        'UFM hosts that match no Node are leaf members that select nothing',
      );
    }
    opts.problems.recovered();
    return { snapshot, ok: true };
  }

  *rebuild(): SlicedWork<Snapshot | undefined> {
    return this.last && (yield* this.placed(this.last));
  }

  /**
   * The grouping with the NVLink tier: domains named after the endpoint's fabric name, labelled as Volcano's objects
   * are.
   */
  private placed(tree: Snapshot): SlicedWork<Snapshot> {
    return this.ctx.nvlink.placeSteps(this.ctx.endpoints[0]!.fabric.name, tree, {
      [NETWORK_TOPOLOGY_SOURCE_LABEL]: UFM_SOURCE,
    });
  }

  private async fetchPorts(ep: UfmEndpoint): Promise<UfmPort[]> {
    const body = await this.ctx.body(ep, 'ports', PORTS_RESOURCE_PATH);
    try {
      // In slices (sliced-work.ts): the probes are answered while a large fabric's answer is read.
      return await runInSlices(portsDecoder(body), this.ctx.signal);
    } catch (err) {
      throw wrapError('failed to decode response', err);
    }
  }
}
