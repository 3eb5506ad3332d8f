// A fabric source's NVLink tier (config.nvlink) over the Node cache: places
// each fabric's tree (nvlink-tier.ts) with the Nodes' current NVLink labels,
// and says once, per fabric, which domains it had to split across leaf
// groups (a Warning Event) and which Nodes carry a value that gives no domain
// (a log line). Without config.nvlink it hands trees back unchanged. This is
// the one thing a fabric source calls to get the tier; the polling base
// (polling-discoverer.ts) builds it from the source's config.nvlink, watches
// the label and asks the source to place its last trees again when a Node's
// value changes. The label is kept through a blink by the label memory
// (../label-memory.ts): a Node that lost it stays in its domain for
// health.labelGracePeriod, and the memory asks for a rebuild when that ends.

import type { Clock } from '../../../kube/clock.ts';
import type { Logger } from '../../../log.ts';
import type { Lister } from '../../../kube/types.ts';
import { firstFew } from '../../../util/first-few.ts';
import { LastReported } from '../../../util/reported-once.ts';
import { truncateText } from '../../../util/truncate.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';
import type { DiscoveryProblems, LabelHoldReporter, Snapshot } from '../../model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../model/hypernode-types.ts';
import { labelValue } from '../../model/label-reads.ts';
import { domainOfValue, valueGivingDomain } from '../../model/nvlink.ts';
import { NVLINK_DOMAIN_SPLIT } from '../../event-reasons.ts';
import { LabelMemory } from '../label-memory.ts';
import type { NvlinkConfig } from './nvlink-config.ts';
import { nvlinkTierSteps, type SplitDomain } from './nvlink-tier.ts';

/** Domains and Nodes named in one report; the counts say how many there are. */
const NAMED_IN_REPORT = 10;

export interface NvlinkDomainsDeps {
  readonly nodes: Lister<NodeMeta>;
  /** The cache of HyperNodes: a restart finds there the domains of Nodes whose label is missing. */
  readonly hyperNodes: Lister<HyperNode>;
  readonly problems: DiscoveryProblems;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The source key, under which the label memory reports. */
  readonly source: string;
  /** Absent (previews without a cluster): a missing label moves its Node at once. */
  readonly labelHolds?: LabelHoldReporter;
  /** A label's grace period ended: place the last trees again. */
  readonly onExpiry: () => void;
}

export class NvlinkDomains {
  private readonly reportedSplits = new LastReported();
  private readonly reportedUnreadable = new LastReported();
  private readonly memory: LabelMemory;

  constructor(
    /** Undefined: no NVLink tier. */
    readonly config: NvlinkConfig | undefined,
    private readonly deps: NvlinkDomainsDeps,
  ) {
    this.memory = new LabelMemory({
      source: deps.source,
      reporter: deps.labelHolds,
      clock: deps.clock,
      logger: deps.logger,
      onExpiry: deps.onExpiry,
    });
  }

  /** Ends the label memory's timer (the source stopped). */
  stop(): void {
    this.memory.stop();
  }

  /**
   * `fabric`'s tree with the NVLink tier, from the Nodes' labels in the cache now; `labels` are the fabric's own
   * HyperNode labels.
   */
  place(fabric: string, base: Snapshot, labels: Readonly<Record<string, string>>): Snapshot {
    return runWhole(this.placeSteps(fabric, base, labels));
  }

  /**
   * place as sliced work (util/sliced-work.ts), what the polling sources run: at 9,216 trays the label memory and the
   * placement take hundreds of milliseconds, which the thread answering /healthz and renewing the Lease must not wait
   * for in one stretch.
   */
  *placeSteps(fabric: string, base: Snapshot, labels: Readonly<Record<string, string>>): SlicedWork<Snapshot> {
    const { config } = this;
    if (!config) {
      this.memory.off(fabric);
      return base;
    }
    const recalled = yield* this.memory.recallSteps({
      scope: fabric,
      nodes: this.nodesOf(base),
      isLevelKey: (key) => key === config.label,
      levelKeys: [config.label],
      cached: () => this.deps.hyperNodes.list(labels),
      valueFor: (_key, domain) => valueGivingDomain(domain, (raw) => domainOfValue(raw, config.take)),
    });
    const byName = new Map(recalled.nodes.map((n) => [n.metadata.name, n]));
    const tier = yield* nvlinkTierSteps({
      base,
      fabric,
      config,
      labels,
      labelOf: (node) => labelValue(byName.get(node)?.metadata.labels, config.label),
    });
    this.memory.report(fabric, recalled.held, tier.snapshot);
    this.deps.logger.v(3).info('Placed the NVLink tier', {
      fabric,
      tierName: config.tierName,
      domains: tier.domains,
      split: tier.splits.length,
    });
    this.reportSplits(fabric, tier.splits);
    const unreadable = tier.unreadable.map((u) => `${u.node} (${config.label}=${u.value})`);
    if (this.reportedUnreadable.isNew(unreadable.join(','), fabric) && unreadable.length > 0) {
      this.deps.logger.warn('Nodes whose NVLink label gives no domain stay directly under their leaf group', {
        fabric,
        count: unreadable.length,
        nodes: truncateText(firstFew(unreadable, NAMED_IN_REPORT)),
        want: `${config.label}=<ClusterUUID>.<CliqueID>`,
      });
    }
    return tier.snapshot;
  }

  /** The Nodes of the cache the tree names as members (a deleted Node is in no domain). */
  private nodesOf(base: Snapshot): NodeMeta[] {
    const out: NodeMeta[] = [];
    for (const hn of base)
      for (const m of hn.spec.members) {
        const node =
          m.type === 'Node' && m.selector.exactMatch ? this.deps.nodes.get(m.selector.exactMatch.name) : undefined;
        if (node) out.push(node);
      }
    return out;
  }

  private reportSplits(fabric: string, splits: readonly SplitDomain[]): void {
    const described = splits.map(
      (s) =>
        `${s.domain} (${s.parts.map((p) => `under ${p.leafGroup}: ${firstFew(p.nodes, NAMED_IN_REPORT)}`).join('; ')})`,
    );
    if (!this.reportedSplits.isNew(described.join('\n'), fabric) || splits.length === 0) return;
    this.deps.problems.warning(
      NVLINK_DOMAIN_SPLIT.reason,
      `fabric ${fabric}: ${splits.length} NVLink ${this.config!.level}(s) have Nodes under several leaf groups (miscabled, or a rack split over units); each part is its own ${this.config!.tierName} HyperNode under its leaf group: ${truncateText(firstFew(described, NAMED_IN_REPORT, '; '))}`,
    );
  }
}
