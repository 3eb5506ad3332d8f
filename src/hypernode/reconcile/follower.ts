// What follows the accepted topology (the opt-in Node labels, the Kueue and
// KAI Topology objects, the HyperNode conditions, and any later export): one interface, so the
// controller starts, feeds and stops them as a list. A follower is given
// what the core already knows — the configuration the discovery manager
// applied, and after each snapshot the reconciler accepted the source's tree
// as it keeps it (kept-topology.ts: the guard's held deletes in it, never the
// raw snapshot) — and never reads the ConfigMap itself, so every reader acts
// on the same document (controller-runtime: runnables are given their dependencies).

import type { EventHandler } from '../../kube/types.ts';
import type { DiscoveryConfig } from '../config/loader.ts';
import type { HyperNode, NodeMeta } from '../model/hypernode-types.ts';
import type { KeptTopology } from './kept-topology.ts';

export interface Follower {
  /**
   * The configuration the discovery manager applied; undefined while none can
   * be loaded (the ConfigMap is missing or broken), which leaves what the
   * follower wrote as it is.
   */
  configuration(config: DiscoveryConfig | undefined): void;
  /**
   * A source's snapshot was accepted by the reconciler (a rejected one is not
   * passed on): its tree as the reconciler keeps it, with what is held and why.
   */
  kept(tree: KeptTopology): void;
  /**
   * A source's snapshot was rejected (`violations`, one per line), for a
   * follower that holds changes back until one is accepted again.
   */
  rejected?(source: string, violations: string): void;
  /** Node events, for a follower whose output depends on the Nodes. */
  nodeHandler?(): EventHandler<NodeMeta>;
  /** HyperNode events, for a follower that judges the HyperNodes as they are in the cluster. */
  hyperNodeHandler?(): EventHandler<HyperNode>;
  /** Runs the follower's worker until shutDown(). */
  run(): Promise<void>;
  /** Drops pending work; run() ends after the write in flight. */
  shutDown(): void;
}
