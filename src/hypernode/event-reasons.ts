// Every reason of the Events the HyperNode controller emits, in one place, so
// the code that emits them and the documentation cannot drift apart (a test
// compares the table in docs/design.md with this list). Leader election's
// Event is Kubernetes plumbing and lives in src/kube/leader-election.ts.
//
// All of them are filed on the discovery ConfigMap (Events about one
// HyperNode name it in the message), because a cluster-scoped HyperNode's
// Events would land in `default`, where the controller may not write.

import type { EventType } from './model/contracts.ts';
import { ALLOWED_HOSTS_ANNOTATION } from './model/hypernode-labels.ts';

export interface EventReason {
  /** The Event's `reason`, a stable CamelCase word that alerts and `kubectl get events` filter on. */
  readonly reason: string;
  readonly type: EventType;
  /** When it is emitted, in one line (also the docs' description). */
  readonly description: string;
}

const define = (reason: string, type: EventType, description: string): EventReason =>
  Object.freeze({ reason, type, description });

export const FAILED_CREATE = define(
  'FailedCreate',
  'Warning',
  'Creating a discovered HyperNode failed; retried with backoff, once per distinct error.',
);
export const FAILED_UPDATE = define(
  'FailedUpdate',
  'Warning',
  'Updating a HyperNode to its discovered spec failed; retried with backoff, once per distinct error.',
);
export const FAILED_DELETE = define(
  'FailedDelete',
  'Warning',
  'Deleting a HyperNode its source no longer reports failed; retried with backoff, once per distinct error.',
);
export const NAME_CONFLICT = define(
  'NameConflict',
  'Warning',
  'A discovered name is held by a HyperNode this source does not own; that object is left alone.',
);
export const SNAPSHOT_REJECTED = define(
  'SnapshotRejected',
  'Warning',
  "A source's snapshot breaks the HyperNode rules; nothing of it is written.",
);
export const DELETES_HELD = define(
  'DeletesHeld',
  'Warning',
  "One run would delete more of a source's HyperNodes than its maxDeletePercent allows; the deletes are held.",
);
export const TOPOLOGY_CHANGED = define(
  'TopologyChanged',
  'Normal',
  'A discovery run created, updated or deleted HyperNodes (counts in the message).',
);
export const DISCOVERY_FAILED = define(
  'DiscoveryFailed',
  'Warning',
  'A running source produced no result (e.g. UFM unreachable); its HyperNodes are kept.',
);
export const DISCOVERER_FAILED = define(
  'DiscovererFailed',
  'Warning',
  'A source could not be created or started; retried with backoff, others unaffected.',
);
export const DISCOVERY_CONFIG_INVALID = define(
  'DiscoveryConfigInvalid',
  'Warning',
  'The discovery configuration cannot be loaded (e.g. invalid YAML); running sources keep their previous configuration.',
);
export const NODES_LEFT_OUT = define(
  'NodesLeftOut',
  'Warning',
  'Nodes whose labels do not fit a preset profile are left out of its HyperNodes; one per distinct problem, naming the first Nodes and their labels.',
);
export const TIER_NAME_AMBIGUOUS = define(
  'TierNameAmbiguous',
  'Warning',
  'The label HyperNodes give one tierName more than one tier number, which released Volcano schedulers resolve at random; once per distinct set.',
);
export const CLEARTEXT_CREDENTIALS = define(
  'CleartextCredentials',
  'Warning',
  'The UFM endpoint or the fabric graph URL is plain http, or an LLDP source uses SNMPv2c, so a password, access token or community is sent unencrypted.',
);
export const SWITCH_UNREACHABLE = define(
  'SwitchUnreachable',
  'Warning',
  'An LLDP fabric switch did not answer; its last table stands in for it until config.staleAfter (a crawled neighbour that never answered is left out of its fabric), once per switch and outage.',
);
export const CREDENTIALS_WITHHELD = define(
  'CredentialsWithheld',
  'Warning',
  `An LLDP crawl learned a neighbour's management address that the fabric's Secret does not name in ${ALLOWED_HOSTS_ANNOTATION}, so the neighbour is not walked with the Secret's credentials; once per distinct list.`,
);
export const FABRIC_MISCABLED = define(
  'FabricMiscabled',
  'Warning',
  'Links of a fabric join no group (a host on two units, an unpolled switch, a neighbour without a name); once per distinct list.',
);
export const NVLINK_DOMAIN_SPLIT = define(
  'NvlinkDomainSplit',
  'Warning',
  "An NVLink domain's Nodes sit under several leaf groups of a fabric (miscabled, or a rack split over units); each part becomes its own domain HyperNode under its leaf group; once per distinct list.",
);
export const TOPOLOGY_DELETION_HELD = define(
  'TopologyDeletionHeld',
  'Warning',
  "A Kueue or KAI Topology of ours is being deleted (its levels changed, or its export is off) but a finalizer holds it (Kueue's while a ResourceFlavor names it); once per object and set of finalizers, naming what to do.",
);
export const TOPOLOGY_CHANGE_WAITING = define(
  'TopologyChangeWaiting',
  'Normal',
  "A create, replace, update or delete of a Kueue or KAI Topology of ours waits until it can be made at once (the Nodes lack the labels of the new levels, or the source's latest snapshot was rejected); the old object stays meanwhile; once per object and cause.",
);
export const HYPERNODE_UNHEALTHY = define(
  'HyperNodeUnhealthy',
  'Warning',
  'A condition of a HyperNode (NodesReady, FabricHealthy, TopologyLabelsPresent; docs/health.md) turned False; the message names the Nodes, links or missing labels.',
);
export const FABRIC_TAINTS_CHANGED = define(
  'FabricTaintsChanged',
  'Normal',
  'The controller tainted Nodes whose every fabric link has been missing for health.taint.after, or removed its taint (a link is back, the source or health.taint is off); the message names the Nodes.',
);
export const FABRIC_TAINTS_HELD = define(
  'FabricTaintsHeld',
  'Warning',
  'A fabric source would taint more of the Nodes its fabrics connect than health.maxTaintPercent allows; nothing new is tainted, the taints already set stay, and the message names the value that would allow it; once per distinct hold.',
);
export const HYPERNODE_HEALTHY = define(
  'HyperNodeHealthy',
  'Normal',
  'A condition of a HyperNode that was False is True again.',
);

/** The catalogue, in the order the docs list it. */
export const HYPERNODE_EVENT_REASONS: readonly EventReason[] = Object.freeze([
  FAILED_CREATE,
  FAILED_UPDATE,
  FAILED_DELETE,
  NAME_CONFLICT,
  SNAPSHOT_REJECTED,
  DELETES_HELD,
  TOPOLOGY_CHANGED,
  DISCOVERY_FAILED,
  DISCOVERER_FAILED,
  DISCOVERY_CONFIG_INVALID,
  NODES_LEFT_OUT,
  TIER_NAME_AMBIGUOUS,
  CLEARTEXT_CREDENTIALS,
  SWITCH_UNREACHABLE,
  CREDENTIALS_WITHHELD,
  FABRIC_MISCABLED,
  NVLINK_DOMAIN_SPLIT,
  TOPOLOGY_DELETION_HELD,
  TOPOLOGY_CHANGE_WAITING,
  HYPERNODE_UNHEALTHY,
  HYPERNODE_HEALTHY,
  FABRIC_TAINTS_CHANGED,
  FABRIC_TAINTS_HELD,
]);
