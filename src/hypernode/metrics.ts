// HyperNode controller metrics per discovery source (docs/metrics.md).
// Go has no equivalent: pkg/controllers/hypernode exposes no metrics. Names
// follow Prometheus conventions (`_total` counters, `_seconds` histograms) and
// are registered on the Registry the caller passes in, so /metrics serves them
// next to the workqueue_* and rest_client_* families.

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DiscovererMetrics } from './api/interface.ts';

/** The verbs counted by `hypernode_api_writes_total`. */
export type WriteVerb = 'create' | 'update' | 'update_status' | 'delete';

export interface HyperNodeMetrics extends DiscovererMetrics {
  /** A discovery snapshot reached the controller. */
  resultReceived(source: string): void;
  /** One write of a reconcile round failed. */
  reconcileFailed(source: string): void;
  reconcileDuration(source: string, seconds: number): void;
  /** HyperNodes currently owned by `source` after its last reconcile. */
  managed(source: string, count: number): void;
  /** A successful API write; `source` is empty for status (nodeCount) writes. */
  apiWrite(source: string, verb: WriteVerb): void;
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
  const results = counter(registry, 'hypernode_discovery_results_total', 'Discovery snapshots received by the controller, per source.', ['source']);
  const failures = counter(registry, 'hypernode_reconcile_failures_total', 'Failed HyperNode writes while reconciling a snapshot, per source.', ['source']);
  const writes = counter(registry, 'hypernode_api_writes_total', 'Successful HyperNode API writes by source and verb (source is empty for nodeCount status writes).', ['source', 'verb']);
  const writeFailures = counter(
    registry,
    'hypernode_api_write_failures_total',
    'Failed HyperNode API writes by source, verb and status code class (4xx, 5xx, network); each is retried with backoff.',
    ['source', 'verb', 'code_class'],
  );
  const discovererFailures = counter(registry, 'hypernode_discoverer_failures_total', 'Failed attempts to create or start a discoverer, per source.', ['source']);
  const discoveryFailures = counter(registry, 'hypernode_discovery_failures_total', 'Discovery runs that produced no snapshot (nothing was changed), per source.', ['source']);
  const snapshotsRejected = counter(
    registry,
    'hypernode_snapshot_rejected_total',
    'Discovery snapshots refused before any write because they break a snapshot rule, per source and rule (one snapshot may count under several rules).',
    ['source', 'rule'],
  );
  const managed = existing<Gauge>(registry, 'hypernode_managed') ??
    new Gauge({ name: 'hypernode_managed', help: 'HyperNodes owned by each source after its last reconcile.', labelNames: ['source'], registers: [registry] });
  const held = existing<Gauge>(registry, 'hypernode_deletes_held') ??
    new Gauge({
      name: 'hypernode_deletes_held',
      help: "HyperNode deletes the mass-delete guard holds after each source's last run; raise the source's maxDeletePercent to allow them.",
      labelNames: ['source'],
      registers: [registry],
    });
  const unmapped = existing<Gauge>(registry, 'hypernode_ufm_unmapped_hosts') ??
    new Gauge({
      name: 'hypernode_ufm_unmapped_hosts',
      help: "Hosts a UFM fabric reports that match no Kubernetes Node after config.hostMapping, per source and fabric, at the fabric's last discovery; they are left out of the HyperNodes.",
      labelNames: ['source', 'fabric'],
      registers: [registry],
    });
  const duration = existing<Histogram>(registry, 'hypernode_reconcile_duration_seconds') ??
    new Histogram({
      name: 'hypernode_reconcile_duration_seconds',
      help: 'Time to reconcile one discovery snapshot, per source.',
      labelNames: ['source'],
      buckets: RECONCILE_DURATION_BUCKETS_S,
      registers: [registry],
    });
  return {
    resultReceived: (source) => results.inc({ source }),
    reconcileFailed: (source) => failures.inc({ source }),
    reconcileDuration: (source, seconds) => duration.observe({ source }, seconds),
    managed: (source, count) => managed.set({ source }, count),
    apiWrite: (source, verb) => writes.inc({ source, verb }),
    apiWriteFailed: (source, verb, codeClass) => writeFailures.inc({ source, verb, code_class: codeClass }),
    discovererFailed: (source) => discovererFailures.inc({ source }),
    discoveryFailed: (source) => discoveryFailures.inc({ source }),
    snapshotRejected: (source, rule) => snapshotsRejected.inc({ source, rule }),
    deletesHeld: (source, count) => held.set({ source }, count),
    unmappedHosts: (source, fabric, count) => unmapped.set({ source, fabric }, count),
  };
}

function counter(registry: Registry, name: string, help: string, labelNames: string[]): Counter {
  return existing<Counter>(registry, name) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

function existing<M>(registry: Registry, name: string): M | undefined {
  return registry.getSingleMetric(name) as M | undefined;
}
