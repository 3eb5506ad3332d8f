// Every request the stand-in answered, in arrival order, so tests assert the
// exact API calls a component made (sample-controller style), including
// "no writes at all".

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | '';

export interface RequestRecord {
  /** ISO time the request arrived. */
  time: string;
  /** Authenticated user name ('' when authentication failed). */
  user: string;
  /** Kubernetes verb; '' for non-resource paths (/healthz, discovery). */
  verb: Verb;
  method: string;
  path: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  query: Record<string, string>;
  /** HTTP status sent (200 for a watch that started streaming). */
  code: number;
  userAgent: string;
  /** Milliseconds from arrival until the answer was sent (a watch: until it ended); 0 until then. */
  durationMs: number;
}

const WRITE_VERBS = new Set<Verb>(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** A partial record to compare field by field, or a predicate. */
export type RequestMatch = Partial<Omit<RequestRecord, 'query'>> | ((r: RequestRecord) => boolean);

/** A create, update, patch or delete (what the in-flight limit counts as mutating, watches aside). */
export const isWriteRequest = (r: RequestRecord): boolean => WRITE_VERBS.has(r.verb);

export function matchesRequest(r: RequestRecord, m: RequestMatch | undefined): boolean {
  if (!m) return true;
  if (typeof m === 'function') return m(r);
  return Object.entries(m).every(([k, v]) => v === undefined || r[k as keyof RequestRecord] === v);
}

export class RequestLog {
  private records: RequestRecord[] = [];

  add(r: RequestRecord): void {
    this.records.push(r);
  }

  /** All records (a copy), optionally filtered. */
  all(match?: RequestMatch): RequestRecord[] {
    return this.records.filter((r) => matchesRequest(r, match));
  }

  /** create/update/patch/delete requests, optionally filtered further. */
  writes(match?: RequestMatch): RequestRecord[] {
    return this.all((r) => isWriteRequest(r) && matchesRequest(r, match));
  }

  count(match?: RequestMatch): number {
    return this.all(match).length;
  }

  clear(): void {
    this.records = [];
  }
}
