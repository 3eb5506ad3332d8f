// The round of a source with several fabrics (each its own fabric manager,
// set of switches or subnet): every fabric in turn, one answer in memory at a
// time, all of them given one index of the Nodes. A fabric that fails keeps
// its last HyperNodes in the snapshot (after a restart, those in the cache
// labelled with its name), so a fabric that does not answer never loses its
// HyperNodes and never holds back the others. Each fabric's tree is kept as
// its poll made it and gets the NVLink tier (nvlink-domains.ts) as it is
// published, so a changed NVLink label rebuilds every fabric without a poll.

import type { Informer } from '../../../kube/types.ts';
import type { DiscoveryProblems, Snapshot } from '../../model/contracts.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { FABRIC_SWITCHES_ANNOTATION, NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';
import { runInSlices, type SlicedWork } from '../../../util/sliced-work.ts';
import type { PollRun } from '../poll-loop.ts';
import { hostIndex, type HostIndex, type HostMapping } from './host-mapping.ts';
import type { NvlinkDomains } from './nvlink-domains.ts';

export interface FabricRoundDeps {
  readonly nodes: Informer<NodeMeta>;
  readonly hostMapping: HostMapping;
  readonly hyperNodes: Informer<HyperNode>;
  readonly problems: DiscoveryProblems;
  /** The source label value and the label naming a HyperNode's fabric. */
  readonly source: string;
  readonly fabricLabel: string;
  /** Names the kind of fabric in failure messages, as the producing source calls it. */
  readonly kind: string;
  /** The source's NVLink tier (a pass-through without config.nvlink). */
  readonly nvlink: NvlinkDomains;
}

/** One fabric's discovery in a round: the fabric's index in the round's list, and the round's index of the Nodes. */
export type FabricDiscovery = (fabric: number, hosts: HostIndex) => Promise<Snapshot>;

export class FabricRound {
  /** Each fabric's last tree, as its poll made it (without the NVLink tier). */
  private readonly last = new Map<string, Snapshot>();
  /** The fabrics of the last round, in order. */
  private fabrics: readonly string[] = [];

  constructor(private readonly deps: FabricRoundDeps) {}

  /**
   * Once the Node cache synced, discovers each fabric of `fabrics` with
   * `discover`, given the round's one index of the current Nodes, each
   * failure reported to the source's problems. Publishes the whole snapshot
   * unless `signal` aborted or every fabric failed; ok (and the problems
   * recovered) when every fabric succeeded.
   */
  async run(fabrics: readonly string[], discover: FabricDiscovery, signal: AbortSignal): Promise<PollRun> {
    try {
      await this.deps.nodes.waitForSync(signal);
    } catch {
      return { ok: false };
    }
    this.fabrics = fabrics;
    const hosts = hostIndex(this.deps.hostMapping, this.deps.nodes.list());
    const snapshot: Snapshot = [];
    let failed = 0;
    for (const [i, fabric] of fabrics.entries()) {
      try {
        const part = await discover(i, hosts);
        this.last.set(fabric, part);
        snapshot.push(...(await runInSlices(this.placed(fabric, part), signal)));
      } catch (err) {
        if (signal.aborted) return { ok: false };
        failed++;
        const kept = await runInSlices(this.kept(fabric), signal);
        this.deps.problems.failed(
          `Failed to discover ${this.deps.kind} fabric ${fabric}; keeping its ${kept.length} HyperNodes`,
          err,
        );
        snapshot.push(...kept);
      }
    }
    if (failed === fabrics.length) return { ok: false };
    if (failed === 0) this.deps.problems.recovered();
    return { snapshot, ok: failed === 0 };
  }

  /**
   * The last round's snapshot with the NVLink tier placed again from the Nodes' labels now, as sliced work; undefined
   * before a fabric succeeded.
   */
  *rebuild(): SlicedWork<Snapshot | undefined> {
    if (!this.fabrics.some((f) => this.last.has(f))) return undefined;
    const snapshot: Snapshot = [];
    for (const fabric of this.fabrics) snapshot.push(...(yield* this.kept(fabric)));
    return snapshot;
  }

  /**
   * What a fabric publishes without a poll: its last tree with the NVLink tier, else (none since the start) its cached
   * HyperNodes.
   */
  private *kept(fabric: string): SlicedWork<Snapshot> {
    const last = this.last.get(fabric);
    return last ? yield* this.placed(fabric, last) : this.cached(fabric);
  }

  private placed(fabric: string, tree: Snapshot): SlicedWork<Snapshot> {
    return this.deps.nvlink.placeSteps(fabric, tree, {
      [NETWORK_TOPOLOGY_SOURCE_LABEL]: this.deps.source,
      [this.deps.fabricLabel]: fabric,
    });
  }

  /**
   * The fabric's HyperNodes in the cache, as discovered HyperNodes (switch names kept, so a restart writes nothing).
   */
  private cached(fabric: string): Snapshot {
    const labels = { [NETWORK_TOPOLOGY_SOURCE_LABEL]: this.deps.source, [this.deps.fabricLabel]: fabric };
    return this.deps.hyperNodes.list(labels).flatMap((hn): DiscoveredHyperNode[] => {
      const switches = labelValue(hn.metadata.annotations, FABRIC_SWITCHES_ANNOTATION);
      return hn.spec
        ? [
            {
              metadata: {
                name: hn.metadata.name,
                labels: { ...labels },
                ...(switches === undefined ? {} : { annotations: { [FABRIC_SWITCHES_ANNOTATION]: switches } }),
              },
              spec: {
                tier: hn.spec.tier,
                ...(hn.spec.tierName === undefined ? {} : { tierName: hn.spec.tierName }),
                members: (hn.spec.members ?? []).filter((m) => m.selector) as DiscoveredHyperNode['spec']['members'],
              },
            },
          ]
        : [];
    });
  }
}
