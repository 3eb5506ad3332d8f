// The report of fabric hosts that match no Kubernetes Node, for every source
// that maps host names to Nodes: a gauge per fabric, their sum as the
// source's uncovered count, and a log line naming the first few hosts each
// time a fabric's list changes (an unchanged list is logged once, not every poll).

import type { Logger } from '../../../log.ts';
import type { DiscovererMetrics } from '../../model/contracts.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { truncateText } from '../../../util/truncate.ts';
import type { HostMapper } from './host-mapping.ts';

/** Unmapped hosts named in the log line; the count says how many there are in all. */
export const UNMAPPED_LOGGED_HOSTS = 20;

export class UnmappedHostReport {
  /** The unmapped hosts last logged per fabric. */
  private readonly logged = new Map<string, string>();
  /** Each fabric's unmapped host count at its last discovery. */
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly source: string,
    private readonly logger: Logger,
    private readonly metrics: DiscovererMetrics | undefined,
  ) {}

  /** Counts `hosts` that `mapHost` maps to no Node and logs `message` with the first few when the list changed. */
  report(fabric: string, hosts: readonly string[], mapHost: HostMapper, message: string): void {
    this.reportUnmapped(
      fabric,
      hosts.filter((h) => mapHost(h) === undefined),
      message,
    );
  }

  /** The same for a source that already knows which hosts match no Node (lldp: descriptions of its unidentified neighbours). */
  reportUnmapped(fabric: string, hosts: readonly string[], message: string): void {
    const unmapped = [...new Set(hosts)].sort(compareBytes);
    this.metrics?.unmappedHosts(this.source, fabric, unmapped.length);
    this.counts.set(fabric, unmapped.length);
    this.metrics?.uncoveredNodes(
      this.source,
      [...this.counts.values()].reduce((a, b) => a + b, 0),
    );
    const key = unmapped.join(',');
    if (this.logged.get(fabric) === key) return;
    this.logged.set(fabric, key);
    if (unmapped.length > 0) this.logger.info(message, { fabric, count: unmapped.length, hosts: truncateText(unmapped.slice(0, UNMAPPED_LOGGED_HOSTS).join(',')) });
  }
}
