// The Lease resource lock (client-go's tools/leaderelection/resourcelock/leaselock.go):
// reads and writes the leader-election record in a coordination.k8s.io/v1
// Lease, keeping the last object read so updates carry its resourceVersion.

import type { ResourceClient } from './resource.ts';
import type { KubeObject, ObjectMeta } from './types.ts';

export const LEASE_RESOURCE = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  namespaced: true,
} as const;

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with exactly 6 fractional digits. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  metadata: ObjectMeta;
  spec?: LeaseSpec;
}

/** client-go's LeaderElectionRecord, times in ms since the epoch. */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number;
  renewTime: number;
  leaderTransitions: number;
}

/** metav1.MicroTime wire format: the API server rejects anything but 6 fractional digits. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function parseTime(s: string | undefined): number {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

export function recordFromSpec(spec: LeaseSpec = {}): LeaderElectionRecord {
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(spec.acquireTime),
    renewTime: parseTime(spec.renewTime),
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

export function specFromRecord(r: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: formatMicroTime(r.acquireTime),
    renewTime: formatMicroTime(r.renewTime),
    leaseTransitions: r.leaderTransitions,
  };
}

/** What the elector needs from a lock; in-memory fakes implement it in tests. */
export interface ResourceLock {
  /** The current record and its raw form (compared to detect change); rejects NotFound when absent. */
  get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Writes over the last object read or created (optimistic concurrency). */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** `namespace/name`, for logs. */
  describe(): string;
  /** The Lease as an Event's involved object, once known. */
  object(): Lease | undefined;
}

export class LeaseLock implements ResourceLock {
  private lease: Lease | undefined;
  constructor(
    private readonly client: ResourceClient<Lease>,
    private readonly namespace: string,
    private readonly name: string,
  ) {}

  async get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }> {
    this.lease = await this.client.get(this.name, { namespace: this.namespace, ...(signal ? { signal } : {}) });
    return { record: recordFromSpec(this.lease.spec), raw: JSON.stringify(this.lease.spec ?? {}) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.lease = await this.client.create(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: this.namespace },
        spec: specFromRecord(record),
      },
      { namespace: this.namespace, ...(signal ? { signal } : {}) },
    );
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.lease) throw new Error('lease not initialized, call get or create first');
    this.lease = await this.client.update(
      { ...this.lease, spec: specFromRecord(record) },
      { namespace: this.namespace, ...(signal ? { signal } : {}) },
    );
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  object(): Lease | undefined {
    return this.lease;
  }
}
