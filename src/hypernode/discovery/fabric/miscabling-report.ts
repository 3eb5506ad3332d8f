// The FabricMiscabled warning of a fabric source: the links, hosts or tables
// that join no group as cabled, said once per distinct list and fabric, the
// first few named, so a poll every 20 s neither floods the Events nor hides
// how many there are.

import { firstFew } from '../../../util/first-few.ts';
import { LastReported } from '../../../util/reported-once.ts';
import { FABRIC_MISCABLED } from '../../event-reasons.ts';
import type { DiscoveryProblems } from '../../model/contracts.ts';

/** Problems named in one log line or Event; the count says how many there are. */
export const PROBLEMS_LISTED = 10;

/** `a; b; … and N more`: the first PROBLEMS_LISTED of a source's problems. */
export const listProblems = (problems: readonly string[]): string => firstFew(problems, PROBLEMS_LISTED, '; ');

export class MiscablingReport {
  private readonly reported = new LastReported();

  /** `what`: the kinds of problem the source finds, as the warning counts them ("link(s) or host(s)"). */
  constructor(
    private readonly problems: Pick<DiscoveryProblems, 'warning'>,
    private readonly what: string,
  ) {}

  /** Warns of the fabric's problems when the list differs from the last one reported (an empty list warns of nothing). */
  report(fabric: string, problems: readonly string[]): void {
    if (!this.reported.isNew(problems.join('\n'), fabric) || problems.length === 0) return;
    this.problems.warning(
      FABRIC_MISCABLED.reason,
      `fabric ${fabric}: ${problems.length} ${this.what}: ${listProblems(problems)}`,
    );
  }
}
