// Write sinks that record instead of writing: a HyperNodeClient whose
// create/update/updateStatus/delete answer as if the API server had accepted
// them, and an EventRecorder that only logs. The reconciler and the status
// sync run unchanged on top of them, so what they record is exactly what
// they would have written. Used by `--dry-run` (every write logged with its
// diff and counted) and by `plan` (writes collected into the plan). Go has no
// equivalent.
//
// A recorded write counts as a success, so the reconciler never queues a
// retry for it; and since nothing reaches the server, no informer event
// follows, so nothing is decided again until an input (a Node, the
// ConfigMap, a poll) changes.

import { compareBytes } from '../../util/compare-bytes.ts';
import { Counter, type Registry } from 'prom-client';
import type { Preconditions } from '../../kube/resource.ts';
import type { Lister } from '../../kube/types.ts';
import type { Logger } from '../../log.ts';
import type {
  EventRecorder,
  HyperNodeClient,
  NodeLabelClient,
  NodeTaintClient,
  TopologyObjectClient,
} from '../model/contracts.ts';
import type { HyperNode } from '../model/hypernode-types.ts';
import { sourceOf } from '../model/hypernode-labels.ts';
import { describeDiff, diffHyperNodes } from '../reconcile/hypernode-diff.ts';
import { describeLevels } from '../exports/topology-objects/topology-object-specs.ts';
import type { WriteVerb } from '../hypernode-metrics.ts';

export const DRY_RUN_WRITES_METRIC = 'hypernode_dry_run_writes_total';

/** One write that was not sent: the object before (from the cache) and after it. */
export interface RecordedWrite {
  readonly verb: WriteVerb;
  readonly name: string;
  /** The object's discovery source label ('' when it has none). */
  readonly source: string;
  /** Absent for a create (or an object the cache no longer holds). */
  readonly before?: HyperNode;
  /** What the server would hold afterwards; absent for a delete. */
  readonly after?: HyperNode;
}

/** A HyperNodeClient that hands every write to `record` and answers like a server that accepted it. */
export function recordingHyperNodeClient(
  cache: Lister<HyperNode>,
  record: (write: RecordedWrite) => void,
): HyperNodeClient {
  return {
    async create(hn) {
      // The server drops status on create; the status writer writes it afterwards.
      const { status: _status, ...after } = structuredClone(hn);
      record({ verb: 'create', name: hn.metadata.name, source: sourceOf(hn) ?? '', after });
      return after;
    },
    async update(hn) {
      const before = cache.get(hn.metadata.name);
      // The main resource ignores status: it stays what the server holds.
      const { status: _status, ...rest } = structuredClone(hn);
      const after: HyperNode = before?.status ? { ...rest, status: structuredClone(before.status) } : rest;
      record({
        verb: 'update',
        name: hn.metadata.name,
        source: sourceOf(after) ?? '',
        ...(before ? { before } : {}),
        after,
      });
      return after;
    },
    async updateStatus(hn) {
      const before = cache.get(hn.metadata.name);
      // The status subresource changes status only.
      const after = structuredClone(before ?? hn);
      if (hn.status) after.status = structuredClone(hn.status);
      else delete after.status;
      record({
        verb: 'update_status',
        name: hn.metadata.name,
        source: sourceOf(after) ?? '',
        ...(before ? { before } : {}),
        after,
      });
      return after;
    },
    async delete(name: string, _preconditions: Preconditions) {
      const before = cache.get(name);
      record({ verb: 'delete', name, source: sourceOf(before) ?? '', ...(before ? { before } : {}) });
    },
  };
}

/** What the controller gets in dry-run mode instead of its API clients. */
export interface DryRunSinks {
  readonly hyperNodeClient: HyperNodeClient;
  /** Logs each Node label patch (exports.nodeLabels) with the keys it would set and remove. */
  readonly nodeLabelClient: NodeLabelClient;
  /** Reads Nodes through the real client; logs each taint change (health.taint) instead of sending it. */
  readonly nodeTaintClient?: NodeTaintClient;
  /** Reads through the real client (discovery, lists); logs each Topology create and delete instead of sending it. */
  readonly topologyObjectClient?: TopologyObjectClient;
  readonly events: EventRecorder;
  /**
   * Tells the controller that its writes are recorded, not sent: they are
   * counted here, so it keeps them out of hypernode_api_writes_total, and its
   * reconcile log lines say dryRun=true.
   */
  readonly dryRun: true;
}

export interface DryRunDeps {
  /** The HyperNode cache: the base every diff is computed against. */
  readonly hyperNodes: Lister<HyperNode>;
  readonly logger: Logger;
  /** Where `hypernode_dry_run_writes_total` is registered (next to the other metrics). */
  readonly registry: Registry;
  /** The real Topology client, whose reads the dry run keeps. */
  readonly topologyObjectClient?: TopologyObjectClient;
  /** The real Node taint client, whose reads the dry run keeps. */
  readonly nodeTaintClient?: NodeTaintClient;
}

/** Sinks that log every would-be write with its diff (one info line per object) and count it. */
export function dryRunSinks(deps: DryRunDeps): DryRunSinks {
  const writes =
    (deps.registry.getSingleMetric(DRY_RUN_WRITES_METRIC) as Counter | undefined) ??
    new Counter({
      name: DRY_RUN_WRITES_METRIC,
      help: 'Writes a --dry-run controller would have made and did not (HyperNodes, Node label and taint patches, Topology objects), by source label and verb.',
      labelNames: ['source', 'verb'],
      registers: [deps.registry],
    });
  const record = (w: RecordedWrite) => {
    writes.inc({ source: w.source, verb: w.verb });
    const diff = w.verb === 'delete' ? [] : describeDiff(diffHyperNodes(w.before, w.after));
    deps.logger.info(`Dry run: would ${w.verb.replace('_', ' ')} HyperNode`, {
      name: w.name,
      source: w.source,
      ...(diff.length > 0 ? { diff: diff.join('; ') } : {}),
    });
  };
  return {
    hyperNodeClient: recordingHyperNodeClient(deps.hyperNodes, record),
    nodeLabelClient: {
      async patchMetadata(node, changes) {
        const set = Object.entries(changes.labels)
          .filter(([, v]) => v !== null)
          .sort(([a], [b]) => compareBytes(a, b));
        const removed = Object.keys(changes.labels)
          .filter((k) => changes.labels[k] === null)
          .sort(compareBytes);
        writes.inc({ source: '', verb: 'patch_node_labels' });
        deps.logger.info('Dry run: would patch Node labels', {
          node,
          ...(set.length > 0 ? { set: set.map(([k, v]) => `${k}=${v}`).join(',') } : {}),
          ...(removed.length > 0 ? { removed: removed.join(',') } : {}),
        });
      },
    },
    ...(deps.topologyObjectClient
      ? { topologyObjectClient: recordingTopologyClient(deps.topologyObjectClient, deps.logger, writes) }
      : {}),
    ...(deps.nodeTaintClient
      ? { nodeTaintClient: recordingTaintClient(deps.nodeTaintClient, deps.logger, writes) }
      : {}),
    events: {
      event(regarding, type, reason, message) {
        deps.logger.info('Dry run: would emit Event', {
          kind: regarding.kind ?? '',
          name: regarding.metadata.name,
          type,
          reason,
          message,
        });
      },
    },
    dryRun: true,
  };
}

function recordingTaintClient(real: NodeTaintClient, logger: Logger, writes: Counter): NodeTaintClient {
  return {
    get: (node, signal) => real.get(node, signal),
    async setTaints(node, change) {
      writes.inc({ source: '', verb: 'patch_node_taints' });
      logger.info('Dry run: would set Node taints', {
        node,
        taints: change.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(','),
      });
    },
  };
}

function recordingTopologyClient(real: TopologyObjectClient, logger: Logger, writes: Counter): TopologyObjectClient {
  return {
    servedVersions: (group, resource, signal) => real.servedVersions(group, resource, signal),
    servedSchema: (group, version, kind, signal) => real.servedSchema(group, version, kind, signal),
    list: (group, version, selector, signal) => real.list(group, version, selector, signal),
    ...(real.informer ? { informer: real.informer.bind(real) } : {}),
    async create(group, _version, obj) {
      writes.inc({ source: sourceOf(obj) ?? '', verb: 'create_topology' });
      logger.info('Dry run: would create Topology', {
        group,
        name: obj.metadata.name,
        levels: describeLevels(obj.spec.levels, ','),
      });
    },
    async updateLevels(group, _version, name, _resourceVersion, levels) {
      writes.inc({ source: '', verb: 'update_topology' });
      logger.info('Dry run: would update Topology aliases', { group, name, levels: describeLevels(levels, ',') });
    },
    async delete(group, _version, name) {
      writes.inc({ source: '', verb: 'delete_topology' });
      logger.info('Dry run: would delete Topology', { group, name });
    },
  };
}
