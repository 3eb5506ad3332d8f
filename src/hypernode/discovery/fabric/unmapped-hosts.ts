// The report of fabric hosts that match no Kubernetes Node, for every source
// that maps host names to Nodes: a gauge per fabric, their sum as the
// source's uncovered count, and a line naming the first few hosts and what
// to change each time a fabric's list changes (an unchanged list is reported
// once, not every poll). The line goes to the source's `leftOut` report, so
// whoever runs the source chooses its level: a fabric may well hold hosts that
// are no Node (storage, login, management hosts).

import type { DiscovererMetrics, DiscoveryProblems } from '../../model/contracts.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { truncateText } from '../../../util/truncate.ts';
import type { HostMapper } from './host-mapping.ts';

/** Unmapped hosts named in the report's line; the count says how many there are in all. */
export const UNMAPPED_LOGGED_HOSTS = 20;

/**
 * What to change for a host that is a Node, as the report's `change` value says it unless the source words it
 * otherwise.
 */
const HOST_MAPPING_CHANGE = 'if some are Nodes, set config.hostMapping so that their names become Node names';

/**
 * A list of its own in a fabric's report (a source that leaves hosts out for more than one reason), and what places its
 * hosts.
 */
export interface UnmappedPart {
  readonly part: string;
  readonly change: string;
}

export class UnmappedHostReport {
  /** The unmapped hosts last reported per fabric and part. */
  private readonly reported = new Map<string, string>();
  /** Each fabric's unmapped host count per part at its last discovery. */
  private readonly counts = new Map<string, Map<string, number>>();

  constructor(
    private readonly source: string,
    private readonly problems: Pick<DiscoveryProblems, 'leftOut'>,
    private readonly metrics: DiscovererMetrics | undefined,
    /** What to change, in the report's line (a source with other means than hostMapping names them). */
    private readonly change = HOST_MAPPING_CHANGE,
  ) {}

  /** Counts `hosts` that `mapHost` maps to no Node and reports `message` with the first few when the list changed. */
  report(fabric: string, hosts: readonly string[], mapHost: HostMapper, message: string): void {
    this.reportUnmapped(
      fabric,
      hosts.filter((h) => mapHost(h) === undefined),
      message,
    );
  }

  /**
   * The same for a source that already knows which hosts match no Node (lldp:
   * descriptions of its unidentified neighbours); with `part`, one of several
   * lists of the fabric, each reported with its own change and counted together.
   */
  reportUnmapped(fabric: string, hosts: readonly string[], message: string, part?: UnmappedPart): void {
    const unmapped = [...new Set(hosts)].sort(compareBytes);
    const parts = this.counts.get(fabric) ?? new Map<string, number>();
    this.counts.set(fabric, parts.set(part?.part ?? '', unmapped.length));
    const sum = (counts: Iterable<number>) => [...counts].reduce((a, b) => a + b, 0);
    this.metrics?.unmappedHosts(this.source, fabric, sum(parts.values()));
    this.metrics?.uncoveredNodes(this.source, sum([...this.counts.values()].map((p) => sum(p.values()))));
    const key = unmapped.join(',');
    const reportedKey = part === undefined ? fabric : `${fabric}\n${part.part}`;
    if (this.reported.get(reportedKey) === key) return;
    this.reported.set(reportedKey, key);
    if (unmapped.length > 0)
      this.problems.leftOut(message, {
        fabric,
        count: unmapped.length,
        hosts: truncateText(unmapped.slice(0, UNMAPPED_LOGGED_HOSTS).join(',')),
        change: part?.change ?? this.change,
      });
  }
}
