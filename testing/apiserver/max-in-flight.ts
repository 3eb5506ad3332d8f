// The stand-in's limit on requests in flight, as kube-apiserver's
// max-in-flight filter sets it (k8s.io/apiserver pkg/server/filters/
// maxinflight.go, flags --max-requests-inflight / --max-mutating-requests-inflight):
// a request holds a seat from authentication until its answer is sent; a
// request that finds every seat of its kind taken is answered 429 at once, in
// the filter's own words (plain text, `Retry-After: 1`), without being served.
// Long-running requests (watches) take no seat. Members of system:masters are
// served even when the seats are taken, without one. A benchmark that runs
// against a stand-in answering in microseconds never meets a limit a real
// server sets; with latency and these seats it does (README.md).

import { MASTERS_GROUP } from './auth.ts';
import type { Verb } from './request-log.ts';

/** kube-apiserver's --max-requests-inflight default: seats for get, list (and non-resource GETs). */
export const DEFAULT_MAX_REQUESTS_INFLIGHT = 400;
/** kube-apiserver's --max-mutating-requests-inflight default: seats for every other verb. */
export const DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200;
/** The filter's answer over the limit: its Retry-After, and the text http.Error sends. */
export const TOO_MANY_REQUESTS_RETRY_AFTER = '1';
export const TOO_MANY_REQUESTS_TEXT = 'Too many requests, please try again later.\n';
/** Verbs the filter counts as read-only (everything else is mutating). */
const READ_ONLY_VERBS: ReadonlySet<Verb> = new Set(['get', 'list', 'watch']);
/** The subresources kube-apiserver's long-running check exempts besides watches (none is served here). */
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** What the filter made of one request: a seat to give back, no seat needed, or a 429. */
export type Admission = { readonly release: () => void } | 'exempt' | 'rejected';

export interface InFlightCounts {
  readonly readOnly: number;
  readonly mutating: number;
}

export class MaxInFlight {
  private readOnly = 0;
  private mutating = 0;
  private peak = { readOnly: 0, mutating: 0 };
  private rejected = 0;

  /** A limit of 0 turns that kind's limit off, as the flags do. */
  constructor(
    private readonly readOnlyLimit = DEFAULT_MAX_REQUESTS_INFLIGHT,
    private readonly mutatingLimit = DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT,
  ) {}

  /**
   * `verb` is the resource verb, or '' for a non-resource path (the filter
   * reads the HTTP method then: a GET is read-only).
   */
  admit(verb: Verb, method: string, subresource: string, groups: readonly string[]): Admission {
    if (verb === 'watch' || LONG_RUNNING_SUBRESOURCES.has(subresource)) return 'exempt';
    const mutating = verb === '' ? method !== 'GET' && method !== 'HEAD' : !READ_ONLY_VERBS.has(verb);
    const limit = mutating ? this.mutatingLimit : this.readOnlyLimit;
    if (limit === 0) return 'exempt';
    const taken = mutating ? this.mutating : this.readOnly;
    if (taken >= limit) {
      // "a super-admin or a loopback connection" is served anyway, without a seat.
      if (groups.includes(MASTERS_GROUP)) return 'exempt';
      this.rejected++;
      return 'rejected';
    }
    if (mutating) this.peak.mutating = Math.max(this.peak.mutating, ++this.mutating);
    else this.peak.readOnly = Math.max(this.peak.readOnly, ++this.readOnly);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        if (mutating) this.mutating--;
        else this.readOnly--;
      },
    };
  }

  /** Seats taken now. */
  inFlight(): InFlightCounts {
    return { readOnly: this.readOnly, mutating: this.mutating };
  }

  /** The most seats taken at once since the start. */
  peakInFlight(): InFlightCounts {
    return { ...this.peak };
  }

  /** Requests answered 429 by the limit since the start. */
  rejectedCount(): number {
    return this.rejected;
  }
}
