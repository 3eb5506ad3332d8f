// Fault injection for the stand-in: answer the next N matching requests with
// an error Status (5xx, 429 with Retry-After, ...) and delay matching
// requests, as overloaded or flaky API servers do.

import { matchesRequest, type RequestMatch, type RequestRecord } from './request-log.ts';
import { status, StatusError } from './status.ts';

export interface FailureSpec {
  /** HTTP status to answer with, e.g. 500, 503, 429. */
  code: number;
  /** Status reason; defaults to the one Kubernetes uses for the code. */
  reason?: string;
  message?: string;
  /** Sent as the Retry-After header and details.retryAfterSeconds (429 defaults to 1, like priority and fairness). */
  retryAfterSeconds?: number;
  /** Only requests matching this fail. */
  match?: RequestMatch;
}

const DEFAULTS: Record<number, [string, string]> = {
  // What CEL validation answered intermittently under concurrent HyperNode writes.
  422: ['Invalid', 'internal error: runtime error: index out of range [1] with length 1'],
  429: ['TooManyRequests', 'Too many requests, please try again later.'],
  500: ['InternalError', 'Internal error occurred: injected fault'],
  502: ['InternalError', 'Bad Gateway'],
  503: ['ServiceUnavailable', 'The server is currently unable to handle the request'],
  504: [
    'Timeout',
    'The server was unable to return a response in the time allotted, but may still be processing the request',
  ],
};

interface Pending {
  left: number;
  spec: FailureSpec;
}

interface Delay {
  ms: number;
  match?: RequestMatch;
}

export class Faults {
  private failures: Pending[] = [];
  private delays = new Set<Delay>();

  failNext(n: number, spec: FailureSpec): void {
    this.failures.push({ left: n, spec });
  }

  /** Adds `ms` of delay to matching requests until the returned function is called. */
  latency(ms: number, match?: RequestMatch): () => void {
    const d = { ms, match };
    this.delays.add(d);
    return () => this.delays.delete(d);
  }

  clear(): void {
    this.failures = [];
    this.delays.clear();
  }

  delayFor(r: RequestRecord): number {
    let total = 0;
    for (const d of this.delays) if (matchesRequest(r, d.match)) total += d.ms;
    return total;
  }

  /** The injected error for this request, consuming one from the first matching failure. */
  take(r: RequestRecord): StatusError | undefined {
    const p = this.failures.find((f) => f.left > 0 && matchesRequest(r, f.spec.match));
    if (!p) return undefined;
    p.left--;
    this.failures = this.failures.filter((f) => f.left > 0);
    const { code } = p.spec;
    const [reason, message] = DEFAULTS[code] ?? ['InternalError', `injected failure ${code}`];
    const retry = p.spec.retryAfterSeconds ?? (code === 429 ? 1 : undefined);
    const body = status(
      code,
      p.spec.reason ?? reason,
      p.spec.message ?? message,
      retry !== undefined ? { retryAfterSeconds: retry } : undefined,
    );
    return new StatusError(body, retry !== undefined ? { 'Retry-After': String(retry) } : {});
  }
}
