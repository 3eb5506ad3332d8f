// The request layer of one client set (client-go's rest.RESTClient): a token
// bucket enforcing --kube-api-qps/--kube-api-burst on every request including
// watch (re)starts, a deadline on every call except watches (which carry
// timeoutSeconds and an idle guard instead), Status error bodies as ApiError,
// retries of 429/5xx with backoff honouring Retry-After, the rest_client_*
// metrics, and an optional write fence consulted before every write.

import type { IncomingMessage } from 'node:http';
import { childSignal, type ChildSignal } from './abort.ts';
import { realClock, type Clock } from './clock.ts';
import { ApiError } from './errors.ts';
import { errorFromResponse, isStatusBody, parseRetryAfter, statusToError } from './status.ts';
import type { Transport } from './transport.ts';
import type { WatchEvent } from './types.ts';
import { TokenBucket } from './workqueue.ts';
import { FencedError, type WriteFence } from './write-fence.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 5;
const RETRY_BASE_DELAY_MS = 250;
const RETRY_MAX_DELAY_MS = 10_000;
/** A Retry-After beyond this is capped: a misbehaving proxy must not park the client for hours. */
const RETRY_AFTER_CAP_MS = 60_000;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Observes requests; src/kube/rest-metrics.ts turns this into rest_client_* metrics. */
export interface RestMetrics {
  /** `code` is the HTTP status or `<error>` when no response arrived. */
  requestDone(host: string, method: string, code: string, durationMs: number): void;
  rateLimiterWaited(host: string, method: string, waitMs: number): void;
  retried(host: string, method: string, code: string): void;
}

export type QueryValue = string | number | boolean | undefined;

export interface RestRequest {
  method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/nodes`. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  accept?: string;
  contentType?: string;
  signal?: AbortSignal;
}

export interface RestClientOptions {
  transport: Transport;
  userAgent: string;
  qps: number;
  burst: number;
  clock?: Clock;
  metrics?: RestMetrics;
  requestTimeoutMs?: number;
  maxRetries?: number;
  random?: () => number;
  /** Asked before every request that is not a GET (reads and watches are never fenced). */
  fence?: WriteFence;
}

export class RestClient {
  readonly userAgent: string;
  private readonly transport: Transport;
  private readonly bucket: TokenBucket;
  private readonly clock: Clock;
  private readonly metrics: RestMetrics | undefined;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly random: () => number;
  private readonly fence: WriteFence | undefined;

  constructor(opts: RestClientOptions) {
    this.transport = opts.transport;
    this.userAgent = opts.userAgent;
    this.clock = opts.clock ?? realClock;
    // Go: burst < 1 with a positive QPS still lets single requests through.
    this.bucket = new TokenBucket(opts.qps, Math.max(1, opts.burst), this.clock);
    this.metrics = opts.metrics;
    this.timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.random = opts.random ?? Math.random;
    this.fence = opts.fence;
  }

  /** Sends a request and returns the decoded JSON body (undefined when empty). */
  async request<T>(req: RestRequest): Promise<T> {
    return this.withRetries(req, async ({ signal }) => {
      const res = await this.send(req, signal);
      const text = await readBody(res);
      if (res.statusCode! >= 300) throw errorFromResponse(res.statusCode!, text, parseRetryAfter(res.headers['retry-after']));
      return (text ? JSON.parse(text) : undefined) as T;
    }, true);
  }

  /**
   * Opens a watch; resolves once the server accepted it. The stream ends when
   * the server closes it (timeoutSeconds) and throws on broken connections,
   * on an idle connection (`idleTimeoutMs`) and on ERROR events (as ApiError).
   */
  async watch<T>(req: RestRequest & { idleTimeoutMs: number }): Promise<AsyncIterable<WatchEvent<T>>> {
    const { res, call } = await this.withRetries(req, async (call) => {
      const res = await this.send(req, call.signal, req.idleTimeoutMs);
      if (res.statusCode! >= 300) throw errorFromResponse(res.statusCode!, await readBody(res), parseRetryAfter(res.headers['retry-after']));
      return { res, call };
    }, false);
    return watchEvents<T>(res, call);
  }

  private url(req: RestRequest): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return qs ? `${req.path}?${qs}` : req.path;
  }

  private async send(req: RestRequest, signal: AbortSignal, idleTimeoutMs?: number): Promise<IncomingMessage> {
    const waitMs = this.bucket.reserve();
    this.metrics?.rateLimiterWaited(this.transport.host, req.method, waitMs);
    if (waitMs > 0) await this.clock.sleep(waitMs, signal);
    const headers: Record<string, string> = { Accept: req.accept ?? 'application/json', 'User-Agent': this.userAgent };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const started = performance.now();
    const path = this.url(req);
    try {
      const credentials = await this.transport.credentials();
      // Last moment before the request goes on the wire, after every wait (rate
      // limiter, credentials): the process may have been frozen during any of them.
      if (req.method !== 'GET') this.fence?.check();
      const res = await this.transport.send(
        { method: req.method, path, headers, signal, ...(body !== undefined ? { body } : {}), ...(idleTimeoutMs ? { idleTimeoutMs } : {}) },
        credentials,
      );
      this.metrics?.requestDone(this.transport.host, req.method, String(res.statusCode), performance.now() - started);
      return res;
    } catch (err) {
      // Refused by the fence: nothing was sent, so no request to count, and never retried (not a GET).
      if (err instanceof FencedError) throw err;
      this.metrics?.requestDone(this.transport.host, req.method, '<error>', performance.now() - started);
      if (signal.aborted) throw signal.reason;
      throw new Error(`${req.method} ${this.transport.config.server}${path}: ${(err as Error).message}`, { cause: err });
    }
  }

  /**
   * Runs `attempt` with a per-attempt deadline (when `deadline`) and retries
   * what is safe to retry: any 429 (the server did not process the request),
   * and 5xx or a broken connection only for GET (never a write that may have
   * been applied).
   */
  private async withRetries<R>(req: RestRequest, attempt: (call: ChildSignal) => Promise<R>, deadline: boolean): Promise<R> {
    for (let retry = 0; ; retry++) {
      const call = childSignal(req.signal);
      const timer = deadline
        ? setTimeout(() => call.abort(new Error(`${req.method} ${req.path}: no answer from the API server within ${this.timeoutMs} ms`)), this.timeoutMs)
        : undefined;
      try {
        return await attempt(call);
      } catch (err) {
        call.dispose();
        if (req.signal?.aborted || retry >= this.maxRetries || !this.retryable(req.method, err)) throw err;
        const code = err instanceof ApiError ? String(err.code) : '<error>';
        this.metrics?.retried(this.transport.host, req.method, code);
        await this.clock.sleep(this.retryDelay(retry, err), req.signal);
      } finally {
        clearTimeout(timer);
        // A watch keeps its link to the caller's signal for as long as it streams.
        if (deadline) call.dispose();
      }
    }
  }

  private retryable(method: HttpMethod, err: unknown): boolean {
    if (err instanceof ApiError) return err.code === 429 || (method === 'GET' && err.code >= 500);
    return method === 'GET';
  }

  private retryDelay(retry: number, err: unknown): number {
    if (err instanceof ApiError && err.retryAfterSeconds !== undefined) return Math.min(err.retryAfterSeconds * 1000, RETRY_AFTER_CAP_MS);
    const base = Math.min(RETRY_BASE_DELAY_MS * 2 ** retry, RETRY_MAX_DELAY_MS);
    return base * (0.5 + this.random() / 2);
  }
}

async function readBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Newline-delimited watch events; an ERROR event ends the stream with its Status as ApiError. */
async function* watchEvents<T>(res: IncomingMessage, call: ChildSignal): AsyncGenerator<WatchEvent<T>> {
  let pending = '';
  try {
    for await (const chunk of res) {
      pending += (chunk as Buffer).toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line) yield decodeEvent<T>(line);
      }
    }
    if (pending.trim()) yield decodeEvent<T>(pending.trim());
  } finally {
    res.destroy();
    call.dispose();
  }
}

function decodeEvent<T>(line: string): WatchEvent<T> {
  let ev: WatchEvent<T>;
  try {
    ev = JSON.parse(line) as WatchEvent<T>;
  } catch {
    throw new Error(`undecodable watch event: ${line.slice(0, 200)}`);
  }
  if (ev.type === 'ERROR') {
    const status = ev.object as unknown;
    throw isStatusBody(status) ? statusToError(status, status.code ?? 500) : new Error(`watch ERROR event: ${line.slice(0, 200)}`);
  }
  return ev;
}
