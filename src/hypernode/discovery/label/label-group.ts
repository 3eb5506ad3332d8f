// One HyperNode being built during a label discovery run, in the shape every
// form (list, profile, preset) fills in and label-grouping.ts turns into the
// published object.

/** One HyperNode being built. */
export interface Group {
  tier: number;
  tierName: string;
  members: Set<string>;
  /**
   * Which members are Nodes, where a group may hold both kinds (presets); otherwise tier 1 holds Nodes, higher tiers
   * HyperNodes.
   */
  nodes?: Set<string>;
  labels: Record<string, string>;
}
