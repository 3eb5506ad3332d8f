// Fabric mode of the ufm source (`config.mode: fabric`): every configured
// fabric's systems, links and port states, as a fabric graph
// (ufm-fabric-graph.ts), through the source-neutral fabric layer. A fabric
// whose UFM fails keeps its last HyperNodes (after a restart: those in the
// cache labelled with its name), so it never deletes them and never holds
// back the other fabrics.

import type { Snapshot } from '../../model/contracts.ts';
import { wrapError } from '../../../util/error-message.ts';
import { LinkMemory } from '../fabric/link-memory.ts';
import { FabricRound } from '../fabric/fabric-round.ts';
import type { HostIndex } from '../fabric/host-mapping.ts';
import type { PollRun } from '../poll-loop.ts';
import { linksDecoder, portStatesDecoder, RESOURCE_PATHS, systemsDecoder } from './fabric-resources.ts';
import { runInSlices, type SlicedWork } from '../../../util/sliced-work.ts';
import { UFM_FABRIC_LABEL, UFM_SOURCE } from '../../model/hypernode-labels.ts';
import { ufmFabricGraphSteps } from './ufm-fabric-graph.ts';
import type { UfmEndpoint, UfmResource } from './ufm-endpoint.ts';
import type { UfmRunContext, UfmStrategy } from './ufm-strategy.ts';

export class UfmFabricMode implements UfmStrategy {
  /** Each fabric's last published HyperNodes, kept while its UFM fails. */
  private readonly fabricRound: FabricRound;
  /** Links of the last good poll, kept through the grace period (fabric health). */
  private readonly memory: LinkMemory;

  constructor(private readonly ctx: UfmRunContext) {
    const { opts } = ctx;
    this.memory = new LinkMemory(UFM_SOURCE, opts);
    this.fabricRound = new FabricRound({
      nodes: opts.nodes,
      hostMapping: ctx.config.hostMapping,
      hyperNodes: opts.hyperNodes,
      problems: opts.problems,
      source: UFM_SOURCE,
      fabricLabel: UFM_FABRIC_LABEL,
      kind: 'UFM',
      nvlink: ctx.nvlink,
    });
  }

  /** Every fabric, one after the other (one answer in memory at a time); ok when every fabric succeeded. */
  async run(): Promise<PollRun> {
    const { endpoints } = this.ctx;
    return this.fabricRound.run(
      endpoints.map((ep) => ep.fabric.name),
      (i, hosts) => this.discoverFabric(endpoints[i]!, hosts),
      this.ctx.signal,
    );
  }

  rebuild(): SlicedWork<Snapshot | undefined> {
    return this.fabricRound.rebuild();
  }

  private async discoverFabric(ep: UfmEndpoint, { mapHost }: HostIndex): Promise<Snapshot> {
    const { logger, signal } = this.ctx;
    const fabric = ep.fabric.name;
    if (!this.ctx.offline) {
      try {
        await ep.refresh(this.ctx.opts.secrets, signal);
      } catch (err) {
        throw wrapError('failed to get credentials from secret', err);
      }
    }
    // Decoded in slices (sliced-work.ts): the probes are answered while a large fabric's answers are read.
    const decoded = async <T>(resource: UfmResource, decoder: (body: string) => SlicedWork<T>): Promise<T> => {
      const body = await this.ctx.body(ep, resource, RESOURCE_PATHS[resource]);
      try {
        return await runInSlices(decoder(body), signal);
      } catch (err) {
        throw wrapError(`failed to decode the ${resource} answer`, err);
      }
    };
    const systems = await decoded('systems', systemsDecoder);
    const links = await decoded('links', linksDecoder);
    const ports = await decoded('ports', portStatesDecoder);
    logger.v(3).info('Successfully retrieved UFM fabric', {
      fabric,
      systems: systems.length,
      links: links.length,
      ports: ports.size,
    });
    // Grouped in slices too: a 9,216-tray fabric took 1.1 to 1.7 s of one stretch (docs/security.md §9).
    const memory = this.memory;
    const tree = await runInSlices(
      (function* () {
        const graph = yield* ufmFabricGraphSteps({ systems, links, ports });
        const labels = { [UFM_FABRIC_LABEL]: fabric };
        return yield* memory.hyperNodesSteps({ graph, fabric, source: UFM_SOURCE, labels, mapHost, logger });
      })(),
      signal,
    );
    if (tree.hostCount === 0) {
      throw new Error(
        `UFM reported no host cabled to a switch by an active link (${systems.length} systems, ${links.length} links)`,
      );
    }
    for (const p of tree.problems) logger.v(2).info('UFM fabric link joins no group', { fabric, problem: p.message });
    this.ctx.unmapped.report(fabric, tree.leafHosts, mapHost, 'UFM hosts that match no Node are left out');
    if (tree.snapshot.length === 0) {
      throw new Error(`none of the ${tree.hostCount} hosts UFM reports is a Kubernetes Node; check config.hostMapping`);
    }
    return tree.snapshot;
  }
}
