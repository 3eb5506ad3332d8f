// The source-neutral graph of one fabric: switches, hosts and the active links
// between them. Every link-based source (the InfiniBand fabric manager,
// ibnetdiscover's output, LLDP, a static graph file) produces one per fabric and
// hands it to the fabric layer (fabric-levels.ts, fabric-hypernodes.ts), so
// tiers, names and host → Node mapping behave the same whatever the source.

/** A switch of one fabric. `id` is stable across polls and unique in the fabric (InfiniBand: system GUID;
 *  LLDP: chassis id as lower-case hex without separators, or the system name); it is what group names
 *  derive from, so it must already be a valid DNS-1123 label fragment (lower-case alphanumerics and '-'). */
export interface FabricSwitch {
  readonly id: string;
  readonly name: string;
}
/** A host as the fabric names it (InfiniBand system name, LLDP system name = hostname); mapped to a Node later. */
export interface FabricHost {
  readonly name: string;
}
export type FabricLinkEnd =
  | { readonly kind: 'switch'; readonly id: string; readonly port: string }
  | { readonly kind: 'host'; readonly name: string; readonly port: string };
/** An active link (producers drop inactive/unknown ones, reporting them as they see fit). */
export interface FabricLink {
  readonly a: FabricLinkEnd;
  readonly b: FabricLinkEnd;
}
export interface FabricGraph {
  readonly switches: readonly FabricSwitch[];
  readonly hosts: readonly FabricHost[];
  readonly links: readonly FabricLink[];
}
