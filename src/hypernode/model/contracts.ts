// The discoverer contract and the narrow API interfaces HyperNode logic uses.
// Mirrors pkg/controllers/hypernode/api/interface.go and types.go. Everything
// here is satisfied by src/kube in production and by in-memory fakes in tests.

import type { Preconditions } from '../../kube/resource.ts';
import type { Informer, KubeObject } from '../../kube/types.ts';
import type { Clock } from '../../kube/clock.ts';
import type { SharedInformer } from '../../kube/informer.ts';
import type { QueueMetrics, WorkerErrorHandler } from '../../kube/rate-limiting-queue.ts';
import type { KV, Logger } from '../../log.ts';
import type { Channel } from '../../util/channel.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta, Secret } from './hypernode-types.ts';
import type { InputPolicy } from './input-policy.ts';

export interface NodeLabelExport {
  /** The label key prefix: every label is `<prefix>/<tier key>`. */
  readonly prefix: string;
}

/** An entry's `exports` (config/exports-config.ts). */
export interface EntryExports {
  /** Absent: this source labels no Node. */
  readonly nodeLabels?: NodeLabelExport;
  /** A Kueue Topology (kueue.x-k8s.io) per tree of this source, its levels the nodeLabels keys. */
  readonly kueueTopology?: true;
  /** A KAI Scheduler Topology (kai.scheduler), as kueueTopology. */
  readonly kaiTopology?: true;
}

/** One entry of `networkTopologyDiscovery` (docs/configuration.md, "Schema"), resolved and frozen. */
export interface DiscoveryEntry {
  readonly source: string;
  readonly enabled: boolean;
  /** Poll period in ms; already defaulted to 1 h when ≤ 0. */
  readonly intervalMs: number;
  readonly credentials?: { readonly secretRef?: { readonly name: string; readonly namespace: string } };
  /** Free-form per-source settings (YAML 1.1 scalars already resolved). */
  readonly config: Readonly<Record<string, unknown>>;
  /**
   * Percentage (0–100) of its HyperNodes one run of this source may delete before deletes are held; defaulted to 50.
   */
  readonly maxDeletePercent: number;
  /** What is published from this source besides HyperNodes; absent when nothing is. */
  readonly exports?: EntryExports;
}

/** A complete desired set of HyperNodes for one source (never a delta). */
export type Snapshot = DiscoveredHyperNode[];

export interface Discoverer {
  /** Begins discovery; returns the stream of snapshots. Must not block for long. */
  start(): Promise<Channel<Snapshot>>;
  /** Stops producing and unregisters informer handlers. Called at most once. */
  stop(): Promise<void>;
  /** Called once per delivered snapshot after the controller reconciled it. */
  resultSynced(): void;
}

/** Reads Secrets; sources read them only from `namespace` (remote/secret-grant.ts). */
export interface SecretClient {
  /** The controller's own namespace (the discovery ConfigMap's): the only one a secretRef may name. */
  readonly namespace: string;
  get(namespace: string, name: string, signal?: AbortSignal): Promise<Secret>;
}

/** Reads one ConfigMap; undefined when there is none. */
export interface ConfigMapReader {
  get(
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<{ readonly data?: Readonly<Record<string, string>> } | undefined>;
}

export interface HyperNodeClient {
  create(hn: HyperNode, signal?: AbortSignal): Promise<HyperNode>;
  /** PUT of metadata + spec; carries hn.metadata.resourceVersion. */
  update(hn: HyperNode, signal?: AbortSignal): Promise<HyperNode>;
  /** PUT of the status subresource; carries hn.metadata.resourceVersion. */
  updateStatus(hn: HyperNode, signal?: AbortSignal): Promise<HyperNode>;
  /**
   * Deletes only the object the caller decided about: `preconditions` carry
   * its uid and resourceVersion, so a re-created or since-modified object of
   * the same name is answered with 409 Conflict and left in place.
   */
  delete(name: string, preconditions: Preconditions, signal?: AbortSignal): Promise<void>;
}

/** Changes of a Node's labels and annotations: a value sets, null removes; nothing else is touched. */
export interface MetadataChanges {
  readonly labels: Readonly<Record<string, string | null>>;
  readonly annotations: Readonly<Record<string, string | null>>;
}

/** Writes the controller's own labels on Nodes (exports.nodeLabels). */
export interface NodeLabelClient {
  patchMetadata(node: string, changes: MetadataChanges, signal?: AbortSignal): Promise<void>;
}

/** A taint of a Node (core/v1 Taint), kept whole: a write of the list must give other writers' taints back unchanged. */
export interface NodeTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  /** Set by the node lifecycle controller on its NoExecute taints; eviction times count from it. */
  readonly timeAdded?: string;
}

/** A Node's taints and the controller's record of its own, at one resourceVersion (health.taint). */
export interface NodeTaints {
  readonly name: string;
  readonly resourceVersion?: string;
  readonly taints: readonly NodeTaint[];
  /** The record (FABRIC_TAINT_ANNOTATION), if any. */
  readonly fabricTaint?: string;
}

/** A Node's taint list and the record to write, against the resourceVersion they were decided on; null removes the record. */
export interface NodeTaintChange {
  readonly resourceVersion?: string;
  readonly taints: readonly NodeTaint[];
  readonly record: string | null;
}

/** Reads and writes the taints of Nodes (health.taint). */
export interface NodeTaintClient {
  /** The Node as the API server holds it now; undefined when there is none. */
  get(node: string, signal?: AbortSignal): Promise<NodeTaints | undefined>;
  /**
   * Replaces the Node's taint list and sets (null: removes) the record, as
   * one write made against `change.resourceVersion`: a Node changed since
   * is answered 409 Conflict and left as it is.
   */
  setTaints(node: string, change: NodeTaintChange, signal?: AbortSignal): Promise<void>;
}

/** A Topology object (Kueue's or KAI's: the same shape), as this controller writes and reads it. */
export interface TopologyObject {
  readonly apiVersion: string;
  readonly kind: 'Topology';
  readonly metadata: {
    readonly name: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly resourceVersion?: string;
    readonly uid?: string;
    /** Set once a delete was accepted while finalizers hold the object. */
    readonly deletionTimestamp?: string;
    /** Whoever still holds it (Kueue's kueue.x-k8s.io/resource-in-use while a ResourceFlavor names it). */
    readonly finalizers?: readonly string[];
  };
  readonly spec: { readonly levels: readonly TopologyLevel[] };
}

/**
 * One level of a Topology: the Node label it names and, where the served schema has the field (KAI 0.17), a name users
 * may write instead.
 */
export interface TopologyLevel {
  readonly nodeLabel: string;
  readonly alias?: string;
}

/** Reads and writes the cluster-scoped `topologies` of one API group (exports.kueueTopology / kaiTopology). */
export interface TopologyObjectClient {
  /**
   * The versions of `group` at which `resource` is served (discovery), empty
   * when it is not (no CRD). A group's kinds may be served at different
   * versions (Kueue 0.9 to 0.13: Topology only at v1alpha1).
   */
  servedVersions(group: string, resource: string, signal?: AbortSignal): Promise<string[]>;
  /**
   * The schema the server publishes (OpenAPI v3) for `kind` of
   * `group`/`version`: what it enforces, such as the most levels and whether
   * a level has an alias. Undefined when the server publishes none this
   * client may read (no /openapi/v3, or not allowed).
   */
  servedSchema(group: string, version: string, kind: string, signal?: AbortSignal): Promise<unknown>;
  /** The Topology objects of `group`/`version` carrying `labelSelector`. */
  list(group: string, version: string, labelSelector: string, signal?: AbortSignal): Promise<TopologyObject[]>;
  create(group: string, version: string, obj: TopologyObject, signal?: AbortSignal): Promise<void>;
  /** Replaces the levels of the object at `resourceVersion` (only aliases may change: the nodeLabels are immutable). */
  updateLevels(
    group: string,
    version: string,
    name: string,
    resourceVersion: string | undefined,
    levels: readonly TopologyLevel[],
    signal?: AbortSignal,
  ): Promise<void>;
  /** Deletes the object if it still has `uid` (it is gone or replaced otherwise). */
  delete(group: string, version: string, name: string, uid: string | undefined, signal?: AbortSignal): Promise<void>;
  /** An informer (not yet run) over the objects carrying `labelSelector`; absent where nothing is watched (plan). */
  informer?(group: string, version: string, labelSelector: string, logger: Logger): SharedInformer<KubeObject>;
}

export type EventType = 'Normal' | 'Warning';

/** Kubernetes Events about an object (best effort: never throws). */
export interface EventRecorder {
  event(regarding: KubeObject, type: EventType, reason: string, message: string): void;
}

/**
 * Where a discoverer reports runs that produced no snapshot (UFM unreachable,
 * a bad answer, a cache error): counted every time, logged and emitted as a
 * Warning Event once per distinct error, and a recovery is logged. Whoever
 * hands it to the discoverer decides how loud each report is, so a preview
 * and the controller tell the same story at the level each needs.
 */
export interface DiscoveryProblems {
  failed(what: string, err: unknown): void;
  /**
   * A run produced a snapshot: called after every successful run (it stamps the last-success metric), logs a recovery.
   */
  recovered(): void;
  /** A risk in a working configuration (e.g. a password over plain http): logged and emitted as a Warning Event. */
  warning(reason: string, message: string): void;
  /**
   * What a run left out that may well be meant so (fabric hosts that are no
   * Node: storage, login, management hosts), with the line's context. The
   * controller logs it at info; `render` and `plan` show it as a warning,
   * since there it says why a Node is missing from the tree.
   */
  leftOut(message: string, kv: KV): void;
}

/** Figures a discoverer reports beside its snapshots. */
export interface DiscovererMetrics {
  /** Hosts a fabric source reports that match no Node (left out of the HyperNodes). */
  unmappedHosts(source: string, fabric: string, count: number): void;
  /**
   * Nodes the source's configuration says it should cover that are in none of
   * its HyperNodes (for ufm: hosts UFM reports that match no Node). Set after
   * every successful run, so a failed run leaves the last value. Without a
   * `reason` the total, which may name the Nodes (with why) where the source
   * knows them (label), for the topology page; with a `reason`, the Nodes left
   * out for that reason.
   */
  uncoveredNodes(source: string, count: number, detail?: UncoveredDetail): void;
  /** One poll of a fabric whose switches are walked one by one (lldp), whether or not it published. */
  fabricPolled(source: string, fabric: string, poll: FabricPoll): void;
  /** LLDP rows a switch serves without a chassis id (identified by system name only), at its fabric's last poll. */
  incompleteLldpRows?(fabric: string, switchAddress: string, count: number): void;
}

/** What `uncoveredNodes` may add to a count. */
export interface UncoveredDetail {
  readonly reason?: string;
  readonly nodes?: readonly { readonly name: string; readonly why: string }[];
}

/** What one poll of a switch-walking source found in one fabric. */
export interface FabricPoll {
  /** Switches that answered with a usable table. */
  readonly answered: number;
  /** Switches that did not answer and whose last table stands in for them (within the staleness window). */
  readonly stale: number;
  /**
   * Switches that did not answer and have no recent table, or whose walk was garbage: the fabric published nothing new.
   */
  readonly unreachable: number;
  /** Links and hosts of the fabric's graph (0 when the poll failed before building it). */
  readonly links: number;
  readonly hosts: number;
  readonly durationSeconds: number;
}

/** One problem of a fabric domain (FabricHealthy, docs/health.md): a link down or missing, a switch not answering. */
export interface FabricHealthProblem {
  /** The switch as the fabric names it. */
  readonly switch: string;
  readonly port?: string;
  /** What is wrong, in a few words: `link to node-3 missing`, `not answering`. */
  readonly what: string;
}

/** One Node's links on one fabric at a poll, as the link memory knows them (health.taint). */
export interface HostLinks {
  /** Links of the Node's hosts the memory knows: present in the poll, or missing within health.linkGracePeriod. */
  readonly links: number;
  /** Of those, the links missing from the poll. */
  readonly missing: number;
  /** When the last of them went missing (ms since the epoch), when every link is missing. */
  readonly cutOffSince?: number;
}

/** What one poll of a fabric found of its Nodes' links, by Node name (Nodes of no link are absent). */
export interface HostLinkReport {
  /** When the poll was read (ms since the epoch): how long a Node has been cut off is judged at this time. */
  readonly at: number;
  readonly nodes: ReadonlyMap<string, HostLinks>;
}

/** Where the fabric sources report the health of the HyperNodes they publish (health/fabric-health.ts). */
export interface FabricHealthReporter {
  /**
   * After a poll that built `fabric`'s HyperNodes: the problems of each (a
   * HyperNode not named has none) and, from a poll (not a report repeated
   * without one), the links of its Nodes.
   */
  report(
    source: string,
    fabric: string,
    problems: ReadonlyMap<string, readonly FabricHealthProblem[]>,
    hosts?: HostLinkReport,
  ): void;
  /**
   * How long a link missing since the last good poll is kept in the topology (health.linkGracePeriod), read at every
   * poll.
   */
  linkGraceMs(): number;
  /**
   * What a source remembers for fabric health under `key`, kept for the
   * controller's lifetime: a discoverer restarted by a configuration change
   * still knows the links of the last good poll. `create` makes it the first time.
   */
  kept<T>(key: string, create: () => T): T;
}

/** A Node kept in place while labels that place it are missing (label memory, docs/health.md). */
export interface HeldNode {
  readonly node: string;
  /** The missing label keys, sorted. */
  readonly keys: readonly string[];
  /** When the first of them went missing (ms since the epoch). */
  readonly since: number;
  /** When its grace period ends and the Node moves (ms since the epoch). */
  readonly until: number;
}

/**
 * Where the sources that place Nodes by their labels (label, and every fabric
 * source's NVLink tier) report the Nodes they keep in place, and what they
 * read back after a restart (reconcile/health/label-holds.ts).
 */
export interface LabelHoldReporter {
  /** How long a missing label is put back (health.labelGracePeriod), read at every run; 0 turns the memory off. */
  labelGraceMs(): number;
  /**
   * After a run that placed `scope`'s Nodes (a fabric's name, '' for the
   * label source): the Nodes held, by the name of each HyperNode holding them
   * directly (a HyperNode not named holds none). Undefined: the scope keeps no
   * label memory (a fabric source without config.nvlink).
   */
  report(source: string, scope: string, held: ReadonlyMap<string, readonly HeldNode[]> | undefined): void;
  /**
   * When the hold of `node` recorded on `hyperNode` (its TopologyLabelsPresent
   * condition, written before a restart) ends; undefined when it records none.
   */
  recordedUntil(hyperNode: HyperNode, node: string): number | undefined;
  /** What a source remembers under `key`, kept for the controller's lifetime (as FabricHealthReporter.kept). */
  kept<T>(key: string, create: () => T): T;
}

export interface DiscovererOptions {
  problems: DiscoveryProblems;
  /** Absent where no condition is written (previews). */
  fabricHealth?: FabricHealthReporter;
  /** Absent where nothing is remembered (render; plan brings its own, seeded from the cluster). */
  labelHolds?: LabelHoldReporter;
  /** Absent where nothing is exported (offline previews). */
  metrics?: DiscovererMetrics;
  /** workqueue_* metrics for a queue the discoverer runs, by queue name, when the caller exports them. */
  queueMetrics?: (queueName: string) => QueueMetrics;
  /** Where a throw of a worker the discoverer runs goes, by queue name (the controller logs and counts it). */
  workerErrors: (queueName: string) => WorkerErrorHandler;
  nodes: Informer<NodeMeta>;
  hyperNodes: Informer<HyperNode>;
  secrets: SecretClient;
  /** ConfigMaps a source reads its input from (the graph source); absent where none can be read (render). */
  configMaps?: ConfigMapReader;
  clock: Clock;
  logger: Logger;
  /** What the operator lets this configuration reach (programs, files, local URLs); absent: DEFAULT_INPUT_POLICY. */
  inputPolicy?: InputPolicy;
}

/** Builds a discoverer for one entry; rejects with a clear error on bad config. */
export type DiscovererFactory = (entry: DiscoveryEntry, opts: DiscovererOptions) => Promise<Discoverer>;
