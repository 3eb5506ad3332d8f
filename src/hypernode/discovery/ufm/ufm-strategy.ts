// The two generations of the ufm source as strategies behind its one poll
// loop (ufm-discoverer.ts): legacy mode (ufm-legacy-mode.ts, Volcano's
// leaf-hn-N/spine-hn from one endpoint's port list) and fabric mode
// (ufm-fabric-mode.ts, each fabric's whole tree through the fabric layer).
// This is what a strategy gets from the loop for its runs.

import type { Logger } from '../../../log.ts';
import type { DiscovererOptions, Snapshot } from '../../model/contracts.ts';
import type { PollRun } from '../poll-loop.ts';
import type { NvlinkDomains } from '../fabric/nvlink-domains.ts';
import type { UnmappedHostReport } from '../fabric/unmapped-hosts.ts';
import type { UfmConfig } from './ufm-config.ts';
import type { UfmEndpoint, UfmResource } from './ufm-endpoint.ts';
import type { SlicedWork } from '../../../util/sliced-work.ts';

export interface UfmRunContext {
  readonly opts: DiscovererOptions;
  readonly logger: Logger;
  readonly config: UfmConfig;
  readonly endpoints: readonly UfmEndpoint[];
  /** Aborted by stop(). */
  readonly signal: AbortSignal;
  /** True when bodies are served without UFM (captures): no Secret is read. */
  readonly offline: boolean;
  readonly unmapped: UnmappedHostReport;
  /** The NVLink tier below the leaf groups (config.nvlink; a pass-through without it). */
  readonly nvlink: NvlinkDomains;
  /** The body of `resource` (at `path` under the endpoint's prefix) from `ep`. */
  body(ep: UfmEndpoint, resource: UfmResource, path: string): Promise<string>;
}

/** One discovery run of a mode, and its last run's snapshot with the NVLink tier placed again. */
export interface UfmStrategy {
  run(): Promise<PollRun>;
  /** Undefined before a run succeeded. */
  rebuild(): SlicedWork<Snapshot | undefined>;
}
