// Every label key the controller writes on a HyperNode or reads on a Node,
// the sources' names and the reads of them, in one home: a source, the
// reconcile core and every preview agree on what a label means without
// importing a source's internals. Mirrors Volcano's labels.go.

import { labelValue } from './label-reads.ts';

/** The ownership label: the discovery source that manages a HyperNode. */
export const NETWORK_TOPOLOGY_SOURCE_LABEL = 'volcano.sh/network-topology-source';

/** The discovery sources' keys in the ConfigMap, and the values of the ownership label. */
export const LABEL_SOURCE = 'label';
export const UFM_SOURCE = 'ufm';
export const GRAPH_SOURCE = 'graph';
export const LLDP_SOURCE = 'lldp';
export const IBNETDISCOVER_SOURCE = 'ibnetdiscover';
/** Every source the controller runs; the registry must have a factory for each. */
export const SOURCE_KEYS = [LABEL_SOURCE, UFM_SOURCE, GRAPH_SOURCE, LLDP_SOURCE, IBNETDISCOVER_SOURCE] as const;
export type SourceKey = (typeof SOURCE_KEYS)[number];

/** The label profile that grouped a HyperNode (label source with profiles). */
export const NETWORK_TOPOLOGY_PROFILE_LABEL = 'volcano.sh/network-topology-profile';
/** Which fabric of the ufm source (fabric mode) a HyperNode describes. */
export const UFM_FABRIC_LABEL = 'volcano.sh/ufm-fabric';
/** Which fabric of the lldp source a HyperNode describes. */
export const LLDP_FABRIC_LABEL = 'volcano.sh/lldp-fabric';
/** Which InfiniBand subnet of the ibnetdiscover source a HyperNode describes. */
export const IBNETDISCOVER_FABRIC_LABEL = 'volcano.sh/ibnetdiscover-fabric';
/**
 * The annotation on a fabric HyperNode naming, for people, the switches that
 * formed its group: the name of the switch its HyperNode name derives from
 * (the lowest id), then ` +<n>` when the group holds n more (`sw-leaf-01 +3`).
 * HyperNode names carry switch ids (an InfiniBand GUID tells a person
 * nothing), and names stay content-named from ids, so the human name rides
 * along here. Written by the fabric layer only.
 */
export const FABRIC_SWITCHES_ANNOTATION = 'volcano.sh/fabric-switches';
/**
 * The label a Secret carries to say its credentials are for HyperNode
 * discovery (value "true"). A Secret without it is never used, whatever a
 * source's secretRef names (docs/configuration.md, "Credentials").
 */
export const DISCOVERY_CREDENTIALS_LABEL = 'topology.volcano.sh/discovery-credentials';
/** On such a Secret: the URL origins (`https://host[:port]`) its token or password may be sent to (ufm, graph). */
export const ALLOWED_ENDPOINTS_ANNOTATION = 'topology.volcano.sh/allowed-endpoints';
/** On such a Secret: the SNMP agents (addresses, IPv4/IPv6 networks, host names) its community or keys may go to (lldp). */
export const ALLOWED_HOSTS_ANNOTATION = 'topology.volcano.sh/allowed-hosts';
/** On such a Secret, "true": its credentials may be sent over plain http to an endpoint it allows. */
export const ALLOW_PLAIN_HTTP_ANNOTATION = 'topology.volcano.sh/allow-plain-http';
/** On such a Secret, "true": its credentials may be sent with TLS verification off (config.insecureSkipVerify). */
export const ALLOW_INSECURE_SKIP_VERIFY_ANNOTATION = 'topology.volcano.sh/allow-insecure-skip-verify';
/** `<this><source>`: the annotation listing, comma-separated, the label keys that source wrote on the Node. */
export const OWNED_LABELS_ANNOTATION = 'topology.volcano.sh/owned-labels.';
/** The taint of a Node cut off from its fabric (health.taint), unless the configuration names another key. */
export const FABRIC_TAINT_KEY = 'topology.volcano.sh/fabric-unreachable';
/**
 * On a Node, the record of the taint this controller set there (health.taint):
 * `<key>=<value>:<effect>`, as `kubectl taint` writes one. It says which of the
 * Node's taints are the controller's, so it removes its own and no other,
 * also after a restart or once health.taint is off; written with the taint,
 * in the same patch.
 */
export const FABRIC_TAINT_ANNOTATION = 'topology.volcano.sh/fabric-taint';
/**
 * The Node annotations the Node cache keeps, the rest being dropped: the
 * controller's own records, of the labels each source wrote and of its taint.
 */
export const isRecordAnnotation = (key: string): boolean =>
  key.startsWith(OWNED_LABELS_ANNOTATION) || key === FABRIC_TAINT_ANNOTATION;
/** The well-known Node label holding the host name; also the lowest level of the Kueue and KAI Topology objects. */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** A fabric label and how people call the system whose fabric it names. */
export interface FabricLabel {
  readonly key: string;
  readonly source: string;
  /** As a person names the fabric's system: `UFM fabric pod-a`, `LLDP fabric roce`, `InfiniBand fabric compute`. */
  readonly system: string;
}

/** Every fabric label a source writes. */
export const FABRIC_LABELS: readonly FabricLabel[] = [
  { key: UFM_FABRIC_LABEL, source: UFM_SOURCE, system: 'UFM' },
  { key: LLDP_FABRIC_LABEL, source: LLDP_SOURCE, system: 'LLDP' },
  { key: IBNETDISCOVER_FABRIC_LABEL, source: IBNETDISCOVER_SOURCE, system: 'InfiniBand' },
];

/** Labels that say who made a HyperNode (owner, profile, fabric), not which Nodes it groups. */
export const OWNERSHIP_LABELS: ReadonlySet<string> = new Set([
  NETWORK_TOPOLOGY_SOURCE_LABEL,
  NETWORK_TOPOLOGY_PROFILE_LABEL,
  ...FABRIC_LABELS.map((f) => f.key),
]);

type Labelled = { readonly metadata: { readonly labels?: Readonly<Record<string, string>> } } | undefined;

/** The discovery source that owns `obj` (its ownership label), or undefined for a hand-made object. */
export function sourceOf(obj: Labelled): string | undefined {
  return labelValue(obj?.metadata.labels, NETWORK_TOPOLOGY_SOURCE_LABEL);
}

/** Whether `source` owns `obj`. */
export function isOwnedBy(obj: Labelled, source: string): boolean {
  return sourceOf(obj) === source;
}

/** The fabric a HyperNode describes and its label, when a fabric source wrote one. */
export function fabricOf(obj: Labelled): { readonly label: FabricLabel; readonly fabric: string } | undefined {
  for (const label of FABRIC_LABELS) {
    const fabric = labelValue(obj?.metadata.labels, label.key);
    if (fabric) return { label, fabric };
  }
  return undefined;
}
