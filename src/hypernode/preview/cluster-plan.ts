// What the controller would change in a cluster: each enabled source runs
// once (discoverSources), the controller's own TopologyReconciler then
// decides over caches holding the cluster's objects, writing into a
// recording client instead of the API server, and the status writer's own
// nodeCount judgement follows on the result. So the plan is, by
// construction, the controller's decision: creates, updates (spec, labels,
// nodeCount) and deletes per source, each with its field-level diff, the
// deletes its mass-delete guard would hold, and the warnings it would raise
// (names it leaves alone, held deletes). The sources run with the label
// memory read back from the cluster, as a restarted controller's is, so the
// plan keeps in place what the controller keeps; the Nodes it keeps are
// listed with where each moves when its grace period ends. Node labels and
// Topology objects follow the tree as kept (held deletes in it). The fabric
// taint is decided as a restarted controller decides it: from the taints the
// Nodes carry and what each source's one poll finds of their links, so plan
// removes a taint whose host shows a link, whose source or taint is off, and
// rewrites one whose key or effect changed, but adds none for a host newly
// cut off (how long its links have been missing only the running controller
// knows). Go has no equivalent.

import { Registry } from 'prom-client';
import { realClock } from '../../kube/clock.ts';
import { StaticInformer } from '../../kube/static-informer.ts';
import { nullLogger } from '../../log.ts';
import { compareBytes } from '../../util/compare-bytes.ts';
import { errorMessage } from '../../util/error-message.ts';
import type { EventRecorder, EventType, HeldNode, TopologyObject } from '../model/contracts.ts';
import type { DiscoveredHyperNode, HyperNode } from '../model/hypernode-types.ts';
import { sourceOf } from '../model/hypernode-labels.ts';
import { recordingHyperNodeClient, type RecordedWrite } from './dry-run.ts';
import { diffHyperNodes, isEmptyDiff, type HyperNodeDiff } from '../reconcile/hypernode-diff.ts';
import { newHyperNodeMetrics } from '../hypernode-metrics.ts';
import { discoverSources, type PreviewDeps, type PreviewInput, type SourceSnapshot } from './preview.ts';
import { LabelHoldBoard } from '../reconcile/health/label-holds.ts';
import { FabricHealthBoard } from '../reconcile/health/fabric-health.ts';
import {
  decideTaints,
  heldTaintsMessage,
  parseFabricTaint,
  type TaintChange,
} from '../reconcile/health/fabric-taints.ts';
import { exportingEntry } from '../config/loader.ts';
import { FABRIC_TAINT_ANNOTATION, SOURCE_KEYS } from '../model/hypernode-labels.ts';
import type { HostLinkReport } from '../model/contracts.ts';
import { conditionTime } from '../reconcile/health/conditions.ts';
import { TopologyReconciler } from '../reconcile/reconciler.ts';
import { nextStatus } from '../reconcile/status-writer.ts';
import { dependsOnNodes, nodeCount } from '../model/member-selector.ts';
import { planNodeLabels, type LabelPlan, type PlannedLabelChange } from '../exports/node-labels/node-label-preview.ts';
import { decideTopologyObjects } from '../exports/topology-objects/topology-object-decisions.ts';
import {
  levelLabelKeysBySource,
  TOPOLOGY_KINDS,
  type TopologyChange,
} from '../exports/topology-objects/topology-object-specs.ts';
import { topologySequence } from '../exports/topology-objects/topology-object-messages.ts';
import type { PlanDrawing } from '../exports/view/topology-model.ts';

export type PlanAction = 'create' | 'update' | 'delete';

export interface PlannedChange {
  readonly action: PlanAction;
  /** The discovery source owning the object ('' for a nodeCount change of an object no source owns). */
  readonly source: string;
  readonly name: string;
  /** What changes; for a delete, what goes away. */
  readonly diff: HyperNodeDiff;
  /** The object as the server would hold it afterwards (absent for a delete). */
  readonly object?: HyperNode;
  /** A delete the mass-delete guard holds: the controller would not send it (present only when true). */
  readonly held?: true;
}

export interface Plan {
  /** Sorted by source (configuration order, then unowned), action (create, update, delete), name. */
  readonly changes: readonly PlannedChange[];
  /**
   * What the controller would warn about: names a source describes but leaves
   * alone because another source (or nobody) owns them, and deletes it holds.
   */
  readonly warnings: readonly string[];
  /** Node label patches (exports.nodeLabels), by Node name. */
  readonly nodeLabels: readonly PlannedLabelChange[];
  /** Nodes whose label removals the mass-delete guard holds. */
  readonly nodeLabelsHeld: number;
  /** Sources whose labels are off: their removals are not guarded (LabelPlan.off). */
  readonly nodeLabelsOff: LabelPlan['off'];
  /** Kueue and KAI Topology creates, replaces (levels are immutable) and deletes. */
  readonly topologies: readonly PlannedTopologyChange[];
  /** Nodes the label memory keeps in place, and where each moves when its grace period ends, by source and Node. */
  readonly labelHolds: readonly PlannedLabelHold[];
  /** The fabric taints (health.taint) to add, rewrite or remove, by Node; the guard's holds are among the warnings. */
  readonly taints: readonly TaintChange[];
}

/** A Node kept in place while labels that place it are missing (health.labelGracePeriod), and its move to come. */
export interface PlannedLabelHold {
  readonly source: string;
  readonly node: string;
  /** The missing label keys. */
  readonly keys: readonly string[];
  /** When the first went missing, and when the grace period ends (RFC 3339). */
  readonly since: string;
  readonly until: string;
  /** The HyperNodes holding it directly now. */
  readonly from: readonly string[];
  /** Those holding it directly once its grace period ends; empty: it leaves the source's topology. */
  readonly to: readonly string[];
}

export interface PlannedTopologyChange extends Omit<TopologyChange, 'uid' | 'resourceVersion'> {
  /** `Kueue Topology`, `KAI Topology`. */
  readonly kind: string;
  readonly source: string;
  /** The whole sequence the change goes through, in order, one sentence each (topology-object-messages.ts). */
  readonly steps: readonly string[];
}

const ACTION_ORDER: readonly PlanAction[] = ['create', 'update', 'delete'];

/**
 * Runs the sources once and the controller's decisions over `input.existing`; throws PreviewError for a failing source.
 */
export async function planChanges(input: PreviewInput, deps: PreviewDeps): Promise<Plan> {
  // The label memory as a restarted controller reads it back from the HyperNodes (their TopologyLabelsPresent).
  const holds = new LabelHoldBoard(() => {});
  holds.setLabelGraceMs(input.config.health.labelGracePeriodMs);
  // What each source's one poll finds of its Nodes' links, for the taints.
  const fabric = new FabricHealthBoard(() => {});
  const snapshots = await discoverSources(input, { ...deps, labelHolds: holds, fabricHealth: fabric });
  const labelHolds = await plannedLabelHolds(input, deps, holds, snapshots);
  const warnings: string[] = [...snapshots.values()].flatMap((s) => s.warnings);
  const events: EventRecorder = {
    event(_regarding, type, _reason, message) {
      if (isPlanWarning(type)) warnings.push(message);
    },
  };
  const metrics = newHyperNodeMetrics(new Registry());

  // Round one: each source's snapshot, as the controller reconciles them one after the other.
  const existing = new StaticInformer(input.existing);
  const writes: RecordedWrite[] = [];
  const held = new Map<string, ReadonlySet<string>>();
  const reconciler = new TopologyReconciler({
    hyperNodes: existing,
    client: recordingHyperNodeClient(existing, (w) => writes.push(w)),
    events,
    regarding: () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '' } }),
    metrics,
    clock: realClock,
    logger: nullLogger, // progress lines would only be noise in a plan
    // No retry worker runs in a plan (shutDown() follows the reconciles): nothing reaches its queue's worker.
    onWorkerError: () => {},
  });
  try {
    for (const [source, { desired, maxDeletePercent }] of snapshots) {
      await reconciler.reconcile(source, [...desired.values()], maxDeletePercent);
      held.set(source, reconciler.heldDeletesOf(source));
    }
  } finally {
    reconciler.shutDown();
  }

  // Round two: nodeCount, as the status writer judges it, of the objects as those writes leave them.
  const after = new Map(input.existing.map((hn) => [hn.metadata.name, hn]));
  for (const w of writes) w.after ? after.set(w.name, w.after) : after.delete(w.name);
  for (const [name, hn] of after) {
    const status = nextStatus(hn.status, nodeCount(hn, dependsOnNodes(hn) ? input.nodes : [], nullLogger), undefined);
    if (status) after.set(name, { ...hn, status });
  }

  const before = new Map(input.existing.map((hn) => [hn.metadata.name, hn]));
  const changes: PlannedChange[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const from = before.get(name);
    const to = after.get(name);
    const diff = diffHyperNodes(from, to);
    if (isEmptyDiff(diff)) continue;
    const action: PlanAction = !from ? 'create' : !to ? 'delete' : 'update';
    const source = sourceOf(to ?? from) ?? '';
    changes.push({ action, source, name, diff, ...(to ? { object: to } : {}) });
  }
  // Held deletes were never written, so the objects are still in `after`: listed from the reconciler's own decision.
  for (const [source, names] of held) {
    for (const name of names)
      changes.push({ action: 'delete', source, name, diff: diffHyperNodes(before.get(name), undefined), held: true });
  }
  const sourceOrder = [...snapshots.keys()];
  const rank = (source: string) => (sourceOrder.includes(source) ? sourceOrder.indexOf(source) : sourceOrder.length);
  changes.sort(
    (a, b) =>
      rank(a.source) - rank(b.source) ||
      compareBytes(a.source, b.source) ||
      ACTION_ORDER.indexOf(a.action) - ACTION_ORDER.indexOf(b.action) ||
      compareBytes(a.name, b.name),
  );
  // Node labels and Topology objects follow the tree as the reconciler keeps it: the guard's held deletes stay in it.
  const desired = new Map(
    [...snapshots.keys()].flatMap((source) => {
      const tree = reconciler.keptOf(source, holds.heldBy(source));
      return tree ? [[source, tree.hyperNodes] as const] : [];
    }),
  );
  const topologies: PlannedTopologyChange[] = [];
  // The labels live Topology objects of ours name stay on the Nodes (node-label-changes.ts): known from those read.
  const live: TopologyObject[] = [];
  if (deps.topologyObjects) {
    for (const kind of TOPOLOGY_KINDS) {
      let decision: Awaited<ReturnType<typeof decideTopologyObjects>>;
      try {
        decision = await decideTopologyObjects(kind, input.config, desired, deps.topologyObjects, input.nodes);
      } catch (err) {
        // A plan user may not read Topology objects (no grant for the opt-in feature): the rest of the plan still
        // stands.
        warnings.push(`could not read the ${kind.title} objects, so their changes are not shown: ${errorMessage(err)}`);
        continue;
      }
      if (!decision.served) {
        if (decision.wanted) warnings.push(decision.message);
        continue;
      }
      live.push(...decision.ours);
      for (const { source, changes: planned, errors } of decision.sources) {
        warnings.push(...errors);
        for (const { uid: _uid, resourceVersion: _rv, ...c } of planned)
          topologies.push({ kind: kind.title, source, ...c, steps: topologySequence(kind, source, c) });
      }
    }
  }
  const labels = planNodeLabels(input.config, desired, input.nodes, levelLabelKeysBySource(live));
  const taints = plannedTaints(input, fabric);
  return {
    changes,
    warnings: [...warnings, ...labels.warnings, ...taints.held.map(heldTaintsMessage)],
    nodeLabels: labels.changes,
    nodeLabelsHeld: labels.held,
    nodeLabelsOff: labels.off,
    topologies,
    labelHolds,
    taints: taints.changes,
  };
}

/** The taint decision of a controller restarted now: the Nodes' records, and the links of each source's one poll. */
function plannedTaints(input: PreviewInput, fabric: FabricHealthBoard) {
  const sources = new Map<string, ReadonlyMap<string, HostLinkReport>>();
  for (const source of SOURCE_KEYS)
    if (exportingEntry(input.config, source) !== 'off') sources.set(source, fabric.hostLinksOf(source));
  const nodes = input.nodes.map((n) => ({
    name: n.metadata.name,
    record: parseFabricTaint(n.metadata.annotations?.[FABRIC_TAINT_ANNOTATION]),
  }));
  return decideTaints({ settings: input.config.health, sources, nodes });
}

/**
 * The Nodes the label memory keeps in place, each with the HyperNodes holding
 * it now and once its grace period ends: the sources run again without the
 * memory (only when it keeps a Node), as the controller will once every grace
 * period has ended.
 */
async function plannedLabelHolds(
  input: PreviewInput,
  deps: PreviewDeps,
  holds: LabelHoldBoard,
  now: ReadonlyMap<string, SourceSnapshot>,
): Promise<PlannedLabelHold[]> {
  const bySource = [...now.keys()].map((source) => [source, holds.heldBy(source)] as const);
  if (bySource.every(([, held]) => held.length === 0)) return [];
  const later = await discoverSources(input, deps);
  return bySource.flatMap(([source, held]) =>
    held.map((h: HeldNode) => ({
      source,
      node: h.node,
      keys: h.keys,
      since: conditionTime(h.since),
      until: conditionTime(h.until),
      from: holdersOf(h.node, now.get(source)?.desired.values()),
      to: holdersOf(h.node, later.get(source)?.desired.values()),
    })),
  );
}

/** `tray-3 (source "ufm"): nvidia.com/gpu.clique missing since …; kept in a until …, then moves to b`: one line. */
/** What the HTML view draws of a plan: its changes, the warnings and the label memory's holds as notes, its taints. */
export function planDrawing(plan: Plan): PlanDrawing {
  const holds = plan.labelHolds.map((h) => `Label memory (health.labelGracePeriod): ${describeLabelHold(h)}`);
  return { changes: plan.changes, notes: [...plan.warnings, ...holds], taints: plan.taints };
}

export function describeLabelHold(h: PlannedLabelHold): string {
  const from = h.from.length > 0 ? `kept in ${h.from.join(', ')}` : 'kept in place';
  const to = h.to.length > 0 ? `moves to ${h.to.join(', ')}` : `leaves the topology of source "${h.source}"`;
  return `${h.node} (source "${h.source}"): ${h.keys.join(', ')} missing since ${h.since}; ${from} until ${h.until}, then ${to}`;
}

/** The HyperNodes naming `node` as a member, byte-sorted. */
function holdersOf(node: string, tree: Iterable<DiscoveredHyperNode> | undefined): string[] {
  const out: string[] = [];
  for (const hn of tree ?? [])
    if (hn.spec.members.some((m) => m.type === 'Node' && m.selector?.exactMatch?.name === node))
      out.push(hn.metadata.name);
  return out.sort(compareBytes);
}

/**
 * Which of the reconciler's Events a plan passes on as warnings: its Warnings.
 * In a plan these are a name held by an object the source does not own
 * (NameConflict) and deletes the guard holds (DeletesHeld); write failures
 * cannot happen against the recording client, and a snapshot the rules refuse
 * fails discoverSources before the reconciler runs. Its Normal run summary
 * (TopologyChanged) only restates the plan's changes. Deciding by the type
 * keeps this free of reason names, which the Events' catalogue owns.
 */
function isPlanWarning(type: EventType): boolean {
  return type === 'Warning';
}
