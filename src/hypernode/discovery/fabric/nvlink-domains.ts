// A fabric source's NVLink tier (config.nvlink) over the Node cache: places
// each fabric's tree (nvlink-tier.ts) with the Nodes' current NVLink labels,
// and says once, per fabric, which domains it had to split across leaf
// groups (a Warning Event) and which Nodes carry a value that gives no domain
// (a log line). Without config.nvlink it hands trees back unchanged. This is
// the one thing a fabric source calls to get the tier; the polling base
// (polling-discoverer.ts) builds it from the source's config.nvlink, watches
// the label and asks the source to place its last trees again when a Node's
// value changes.

import type { Logger } from '../../../log.ts';
import type { Lister } from '../../../kube/types.ts';
import { firstFew } from '../../../util/first-few.ts';
import { LastReported } from '../../../util/reported-once.ts';
import { truncateText } from '../../../util/truncate.ts';
import type { DiscoveryProblems, Snapshot } from '../../model/contracts.ts';
import type { NodeMeta } from '../../model/hypernode-types.ts';
import { labelValue } from '../../model/label-reads.ts';
import { NVLINK_DOMAIN_SPLIT } from '../../event-reasons.ts';
import type { NvlinkConfig } from './nvlink-config.ts';
import { nvlinkTier, type SplitDomain } from './nvlink-tier.ts';

/** Domains and Nodes named in one report; the counts say how many there are. */
const NAMED_IN_REPORT = 10;

export interface NvlinkDomainsDeps {
  readonly nodes: Lister<NodeMeta>;
  readonly problems: DiscoveryProblems;
  readonly logger: Logger;
}

export class NvlinkDomains {
  private readonly reportedSplits = new LastReported();
  private readonly reportedUnreadable = new LastReported();

  constructor(
    /** Undefined: no NVLink tier. */
    readonly config: NvlinkConfig | undefined,
    private readonly deps: NvlinkDomainsDeps,
  ) {}

  /**
   * `fabric`'s tree with the NVLink tier, from the Nodes' labels in the cache now; `labels` are the fabric's own
   * HyperNode labels.
   */
  place(fabric: string, base: Snapshot, labels: Readonly<Record<string, string>>): Snapshot {
    const { config } = this;
    if (!config) return base;
    const nodes = this.deps.nodes;
    const tier = nvlinkTier({
      base,
      fabric,
      config,
      labels,
      labelOf: (node) => labelValue(nodes.get(node)?.metadata.labels, config.label),
    });
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
