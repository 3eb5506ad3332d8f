// HyperNode controller metrics per discovery source (docs/metrics.md).
// Go has no equivalent: pkg/controllers/hypernode exposes no metrics. Names
// follow Prometheus conventions (`_total` counters, `_seconds` histograms) and
// are registered on the Registry the caller passes in, so /metrics serves them
// next to the workqueue_* and rest_client_* families.

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DiscovererMetrics } from './model/contracts.ts';
import type { Lister } from '../kube/types.ts';
import type { HyperNode } from './model/hypernode-types.ts';
import { sourceOf } from './model/hypernode-labels.ts';

/**
 * Every rule of snapshot validation (reconcile/snapshot-validation.ts), as `hypernode_snapshot_rejected_total` labels
 * them.
 */
export const SNAPSHOT_RULES = ['member-selector', 'cycle', 'parents', 'tier-order', 'name', 'label', 'size'] as const;
export type SnapshotRule = (typeof SNAPSHOT_RULES)[number];

/** The verbs of HyperNode writes. */
export type WriteVerb = 'create' | 'update' | 'update_status' | 'delete';
/** The verbs counted by `hypernode_api_writes_total`: HyperNode writes, and `patch` for a Node's labels. */
export type ApiWriteVerb = WriteVerb | 'patch';
/**
 * The kinds `hypernode_api_writes_total` counts by: HyperNodes, the Node
 * label patches of exports.nodeLabels, and the Topology objects of
 * exports.kueueTopology / kaiTopology (`Topology.<group>`).
 */
export type WriteKind = 'HyperNode' | 'Node' | `Topology.${string}`;
/** The status code classes of `hypernode_api_write_failures_total`. */
export const WRITE_FAILURE_CODE_CLASSES = ['4xx', '5xx', 'network'] as const;
/** The verbs a source's own writes use (`update_status` is written with `source=""`). */
const SOURCE_WRITE_VERBS: readonly WriteVerb[] = ['create', 'update', 'delete'];

export interface HyperNodeMetrics extends DiscovererMetrics {
  /**
   * A source is in the discovery configuration: its failure counters and
   * gauges exist from now on at 0 (Prometheus' increase() cannot see a
   * series' first failure when that failure creates the series), and its
   * interval is published for the alert rules. Idempotent; `intervalMs` is
   * absent when the entry is invalid.
   */
  sourceConfigured(source: string, intervalMs?: number): void;
  /** A discovery run of `source` produced a snapshot at `unixMs`. */
  discoverySucceeded(source: string, unixMs: number): void;
  /** A snapshot of `source` was written in full (or its last failed write went through on retry) at `unixMs`. */
  reconcileSucceeded(source: string, unixMs: number): void;
  /** A discovery snapshot reached the controller. */
  resultReceived(source: string): void;
  /** One write of a reconcile round failed. */
  reconcileFailed(source: string): void;
  reconcileDuration(source: string, seconds: number): void;
  /** HyperNodes currently owned by `source` after its last reconcile. */
  managed(source: string, count: number): void;
  /**
   * A successful API write of `kind` (default HyperNode); `source` is empty for status (nodeCount, conditions) writes.
   */
  apiWrite(source: string, verb: ApiWriteVerb, kind?: WriteKind): void;
  /**
   * A HyperNode write the API server rejected (or that never got an answer);
   * `codeClass` is `4xx`, `5xx` or `network`. The write is retried.
   */
  apiWriteFailed(source: string, verb: WriteVerb, codeClass: string): void;
  /** A discoverer could not be created or started (bad entry, unknown type, missing credentials). */
  discovererFailed(source: string): void;
  /** A discovery run produced no snapshot (UFM unreachable or a bad answer, a cache error). */
  discoveryFailed(source: string): void;
  /** A snapshot broke snapshot rule `rule` and nothing of it was written. */
  snapshotRejected(source: string, rule: string): void;
  /** How many deletes of `source` the mass-delete guard holds after its last run. */
  deletesHeld(source: string, count: number): void;
}

/** Seconds; a reconcile is a handful of API calls, a big cluster's first round a few thousand. */
const RECONCILE_DURATION_BUCKETS_S = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * Registers (or reuses, when the controller runs again in the same process)
 * the HyperNode metric families on `registry`.
 */
export function newHyperNodeMetrics(registry: Registry): HyperNodeMetrics {
  const results = counter(
    registry,
    'hypernode_discovery_results_total',
    'Discovery snapshots received by the controller, per source.',
    ['source'],
  );
  const failures = counter(
    registry,
    'hypernode_reconcile_failures_total',
    'Failed HyperNode writes while reconciling a snapshot, per source.',
    ['source'],
  );
  const writes = counter(
    registry,
    'hypernode_api_writes_total',
    'Successful API writes by kind (HyperNode, Node, Topology.<group>), source and verb (source is empty for status writes: nodeCount, conditions).',
    ['kind', 'source', 'verb'],
  );
  const writeFailures = counter(
    registry,
    'hypernode_api_write_failures_total',
    'Failed HyperNode API writes by source, verb and status code class (4xx, 5xx, network); each is retried with backoff.',
    ['source', 'verb', 'code_class'],
  );
  const discovererFailures = counter(
    registry,
    'hypernode_discoverer_failures_total',
    'Failed attempts to create or start a discoverer, per source.',
    ['source'],
  );
  const discoveryFailures = counter(
    registry,
    'hypernode_discovery_failures_total',
    'Discovery runs that produced no snapshot (nothing was changed), per source.',
    ['source'],
  );
  const snapshotsRejected = counter(
    registry,
    'hypernode_snapshot_rejected_total',
    'Discovery snapshots refused before any write because they break a snapshot rule, per source and rule (one snapshot may count under several rules).',
    ['source', 'rule'],
  );
  const managed = gauge(registry, 'hypernode_managed', 'HyperNodes owned by each source after its last reconcile.', [
    'source',
  ]);
  const held = gauge(
    registry,
    'hypernode_deletes_held',
    "HyperNode deletes the mass-delete guard holds after each source's last run; raise the source's maxDeletePercent to allow them.",
    ['source'],
  );
  const discoverySuccess = gauge(
    registry,
    'hypernode_discovery_last_success_timestamp_seconds',
    'Unix time of the last discovery run of each source that produced a snapshot; 0 until the first one.',
    ['source'],
  );
  const reconcileSuccess = gauge(
    registry,
    'hypernode_reconcile_last_success_timestamp_seconds',
    'Unix time of the last reconcile of each source whose writes all went through; 0 until the first one.',
    ['source'],
  );
  const interval = gauge(
    registry,
    'hypernode_discovery_interval_seconds',
    "Each polling source's configured interval (ufm, graph, lldp, ibnetdiscover; the label source runs on Node changes instead), what the alert rules measure staleness in.",
    ['source'],
  );
  const unmapped = gauge(
    registry,
    'hypernode_ufm_unmapped_hosts',
    "Hosts a UFM fabric reports that match no Kubernetes Node after config.hostMapping, per source and fabric, at the fabric's last discovery; they are left out of the HyperNodes.",
    ['source', 'fabric'],
  );
  const fabricSwitches = gauge(
    registry,
    'hypernode_fabric_switches',
    'Switches of a fabric at its last poll by state: answered, stale (silent, its last table standing in for it within config.staleAfter) or unreachable (silent past it, or a garbage walk: the fabric published nothing new).',
    ['source', 'fabric', 'state'],
  );
  const fabricLinks = gauge(
    registry,
    'hypernode_fabric_links',
    "Links in a fabric's graph at its last poll that built one.",
    ['source', 'fabric'],
  );
  const fabricHosts = gauge(
    registry,
    'hypernode_fabric_hosts',
    "Hosts (LLDP neighbours named as hosts) in a fabric's graph at its last poll that built one.",
    ['source', 'fabric'],
  );
  const incompleteRows = gauge(
    registry,
    'hypernode_lldp_incomplete_rows',
    "LLDP neighbour rows a switch serves without lldpRemChassisId at its fabric's last poll; such neighbours are identified by system name only.",
    ['fabric', 'switch'],
  );
  const fabricPollDuration = gauge(
    registry,
    'hypernode_fabric_poll_duration_seconds',
    "Wall time of a fabric's last poll (every switch walked).",
    ['source', 'fabric'],
  );
  const uncovered = gauge(
    registry,
    'hypernode_uncovered_nodes',
    "Nodes each source should cover that are in none of its HyperNodes, at its last successful discovery: for label, Nodes carrying a topology type's level labels but not a usable tier-1 one, or whose labels do not fit a preset (the series without reason is the total, one series per reason beside it); for ufm, hosts UFM reports that match no Node (summed over fabrics).",
    ['source', 'reason'],
  );
  const duration =
    existing<Histogram>(registry, 'hypernode_reconcile_duration_seconds') ??
    new Histogram({
      name: 'hypernode_reconcile_duration_seconds',
      help: 'Time to reconcile one discovery snapshot, per source.',
      labelNames: ['source'],
      buckets: RECONCILE_DURATION_BUCKETS_S,
      registers: [registry],
    });
  return {
    sourceConfigured(source, intervalMs) {
      // inc by 0 creates a missing series at 0 and leaves an existing one alone.
      for (const c of [results, failures, discovererFailures, discoveryFailures]) c.inc({ source }, 0);
      for (const verb of SOURCE_WRITE_VERBS)
        for (const code_class of WRITE_FAILURE_CODE_CLASSES) writeFailures.inc({ source, verb, code_class }, 0);
      for (const rule of SNAPSHOT_RULES) snapshotsRejected.inc({ source, rule }, 0);
      for (const g of [held, discoverySuccess, reconcileSuccess, uncovered]) g.inc({ source }, 0);
      if (intervalMs !== undefined) interval.set({ source }, intervalMs / 1000);
    },
    discoverySucceeded: (source, unixMs) => discoverySuccess.set({ source }, unixMs / 1000),
    reconcileSucceeded: (source, unixMs) => reconcileSuccess.set({ source }, unixMs / 1000),
    resultReceived: (source) => results.inc({ source }),
    reconcileFailed: (source) => failures.inc({ source }),
    reconcileDuration: (source, seconds) => duration.observe({ source }, seconds),
    managed: (source, count) => managed.set({ source }, count),
    apiWrite: (source, verb, kind = 'HyperNode') => writes.inc({ kind, source, verb }),
    apiWriteFailed: (source, verb, codeClass) => writeFailures.inc({ source, verb, code_class: codeClass }),
    discovererFailed: (source) => discovererFailures.inc({ source }),
    discoveryFailed: (source) => discoveryFailures.inc({ source }),
    snapshotRejected: (source, rule) => snapshotsRejected.inc({ source, rule }),
    deletesHeld: (source, count) => held.set({ source }, count),
    unmappedHosts: (source, fabric, count) => unmapped.set({ source, fabric }, count),
    uncoveredNodes: (source, count, detail) =>
      uncovered.set(detail?.reason === undefined ? { source } : { source, reason: detail.reason }, count),
    fabricPolled(source, fabric, poll) {
      for (const state of ['answered', 'stale', 'unreachable'] as const)
        fabricSwitches.set({ source, fabric, state }, poll[state]);
      if (poll.links > 0 || poll.hosts > 0) {
        fabricLinks.set({ source, fabric }, poll.links);
        fabricHosts.set({ source, fabric }, poll.hosts);
      }
      fabricPollDuration.set({ source, fabric }, poll.durationSeconds);
    },
    incompleteLldpRows: (fabric, switchAddress, count) => incompleteRows.set({ fabric, switch: switchAddress }, count),
  };
}

function counter(registry: Registry, name: string, help: string, labelNames: string[]): Counter {
  return existing<Counter>(registry, name) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

function gauge(registry: Registry, name: string, help: string, labelNames: string[]): Gauge {
  return existing<Gauge>(registry, name) ?? new Gauge({ name, help, labelNames, registers: [registry] });
}

/** A gauge family counted at scrape time from what the running controller attached. */
export interface ScrapeGauge<S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: string[];
  /** Adds this scrape's series to `gauge` (reset just before) from the attached `source`. */
  collect(gauge: Gauge, source: S): void;
}

/** Per registry, the source each family group reads at scrape time, by the group's first family name. */
const scrapeSources = new WeakMap<Registry, Map<string, unknown>>();

/**
 * Registers `gauges` once per registry, each counted at every scrape from the
 * `source` attached last (a new controller run replaces the old one's), so a
 * deleted object leaves no stale series. Returns the function that detaches
 * `source` when the controller stops; the families then read empty until the
 * next controller attaches its own.
 */
export function attachScrapeGauges<S>(registry: Registry, source: S, gauges: readonly ScrapeGauge<S>[]): () => void {
  const key = gauges[0]!.name;
  let sources = scrapeSources.get(registry);
  if (!sources) scrapeSources.set(registry, (sources = new Map()));
  const attached = sources;
  attached.set(key, source);
  for (const g of gauges) {
    if (existing(registry, g.name)) continue;
    new Gauge({
      name: g.name,
      help: g.help,
      labelNames: g.labelNames,
      registers: [registry],
      collect() {
        this.reset();
        if (attached.has(key)) g.collect(this, attached.get(key) as S);
      },
    });
  }
  return () => {
    if (attached.get(key) === source) attached.delete(key);
  };
}

/**
 * Registers `hypernode_hypernodes{source,tier}`, counted from `hyperNodes` (the
 * informer cache, so it shows what the cluster holds, whoever wrote it) at every
 * scrape. Returns the function that detaches the cache when the controller stops.
 */
export function exportTopologyCounts(registry: Registry, hyperNodes: Lister<HyperNode>): () => void {
  return attachScrapeGauges(registry, hyperNodes, [
    {
      name: 'hypernode_hypernodes',
      help: 'HyperNodes in the cluster per owning source (the network-topology-source label, "" when absent) and tier.',
      labelNames: ['source', 'tier'],
      collect(gauge, cache) {
        for (const hn of cache.list()) gauge.inc({ source: sourceOf(hn) ?? '', tier: String(hn.spec?.tier ?? 0) }, 1);
      },
    },
  ]);
}

function existing<M>(registry: Registry, name: string): M | undefined {
  return registry.getSingleMetric(name) as M | undefined;
}
