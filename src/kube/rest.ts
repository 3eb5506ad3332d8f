// The request layer of one client set, as client-go's rest.RESTClient: every
// request goes through here so the rate limit, deadlines, safe retries, the
// write fence and the bound on writes in flight (write-pace.ts) hold for all
// callers together, and every error comes back as an ApiError.

import type { IncomingMessage } from 'node:http';
import { parseJson } from '../util/syntax-error.ts';
import { truncateText } from '../util/truncate.ts';
import { childSignal, type ChildSignal } from '../util/abort.ts';
import { realClock, type Clock } from './clock.ts';
import { ApiError } from './errors.ts';
import { ListStreamReader } from './list-stream.ts';
import { errorFromResponse, isStatusBody, parseRetryAfter, statusToError } from './status.ts';
import type { Transport } from './transport.ts';
import type { WatchEvent } from './types.ts';
import { TokenBucket } from './token-bucket.ts';
import { FencedError, type WriteFence } from './write-fence.ts';
import { WritePace } from './write-pace.ts';
import { wrapError } from '../util/error-message.ts';
import { BodyTooLargeError } from '../util/body-too-large-error.ts';
import { Slots } from '../util/slots.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 5;
const RETRY_BASE_DELAY_MS = 250;
const RETRY_MAX_DELAY_MS = 10_000;
/** A Retry-After beyond this is capped: a misbehaving proxy must not park the client for hours. */
const RETRY_AFTER_CAP_MS = 60_000;
/**
 * The largest response body read into memory. The biggest legitimate ones are
 * list pages of 500 items: metadata-only Nodes with their managedFields run to
 * a few KiB each (≈ 5–10 MiB a page), and a page of objects with long member
 * lists stays well under this; a single object is at most ~1.5 MiB (etcd).
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/**
 * The largest list answered whole (no limit, or resourceVersion=0, which the
 * API server's watch cache answers whole): it grows with the cluster, and
 * 100,000 metadata-only Nodes with their managedFields are ~70 MB. Beyond
 * this the reflector falls back to pages.
 */
export const MAX_WHOLE_LIST_BYTES = 512 * 1024 * 1024;
/**
 * The longest watch event line: one object (etcd stores at most ~1.5 MiB, and
 * JSON from a protobuf-stored built-in can be larger) plus the event envelope.
 */
export const MAX_WATCH_EVENT_BYTES = 4 * 1024 * 1024;

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
  /** A list that may come whole, in one answer: allowed MAX_WHOLE_LIST_BYTES instead of MAX_RESPONSE_BYTES. */
  wholeList?: boolean;
  /**
   * With wholeList: applied to each item of a successful List answer as it
   * is read (list-stream.ts), so the whole answer is never held at once.
   */
  eachItem?: (item: unknown) => unknown;
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
  /** Defaults MAX_RESPONSE_BYTES / MAX_WATCH_EVENT_BYTES (tests lower them). */
  maxResponseBytes?: number;
  maxWholeListBytes?: number;
  maxWatchEventBytes?: number;
  /** Asked before every request that is not a GET (reads and watches are never fenced). */
  fence?: WriteFence;
}

/** A response or watch event beyond its size limit. */
function bodyTooLarge(limitBytes: number, what: string, request: string): BodyTooLargeError {
  return new BodyTooLargeError(limitBytes, `${request}: ${what} larger than the ${formatBytes(limitBytes)} limit`);
}

export class RestClient {
  readonly userAgent: string;
  /** How many writes to keep in flight through this client set, from its rate limit and measured answer times. */
  readonly pace: WritePace;
  /** Writes on the wire at once through this client set, whoever sends them. */
  private readonly writeSlots: Slots;
  private readonly transport: Transport;
  private readonly bucket: TokenBucket;
  private readonly clock: Clock;
  private readonly metrics: RestMetrics | undefined;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly random: () => number;
  private readonly bodyLimits: BodyLimits;
  private readonly fence: WriteFence | undefined;

  constructor(opts: RestClientOptions) {
    this.transport = opts.transport;
    this.userAgent = opts.userAgent;
    this.clock = opts.clock ?? realClock;
    // Go: burst < 1 with a positive QPS still lets single requests through.
    this.bucket = new TokenBucket(opts.qps, Math.max(1, opts.burst), this.clock);
    this.pace = new WritePace(opts.qps, Math.max(1, opts.burst));
    this.writeSlots = new Slots(() => this.pace.concurrency());
    this.metrics = opts.metrics;
    this.timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.random = opts.random ?? Math.random;
    this.bodyLimits = {
      response: opts.maxResponseBytes ?? MAX_RESPONSE_BYTES,
      wholeList: opts.maxWholeListBytes ?? MAX_WHOLE_LIST_BYTES,
      watchEvent: opts.maxWatchEventBytes ?? MAX_WATCH_EVENT_BYTES,
    };
    this.fence = opts.fence;
  }

  /** Sends a request and returns the decoded JSON body (undefined when empty). */
  async request<T>(req: RestRequest): Promise<T> {
    return this.withRetries(
      req,
      async ({ signal }) => {
        const res = await this.send(req, signal);
        if (req.wholeList && req.eachItem && res.statusCode! < 300)
          return (await readListStream(res, this.bodyLimits.wholeList, req, req.eachItem)) as T;
        const text = await readBody(res, req.wholeList ? this.bodyLimits.wholeList : this.bodyLimits.response, req);
        if (res.statusCode! >= 300)
          throw errorFromResponse(res.statusCode!, text, parseRetryAfter(res.headers['retry-after']));
        return (text ? parseJson(text, `${req.method} ${req.path}: the response`) : undefined) as T;
      },
      true,
    );
  }

  /**
   * Opens a watch; resolves once the server accepted it. The stream ends when
   * the server closes it (timeoutSeconds) and throws on broken connections,
   * on an idle connection (`idleTimeoutMs`) and on ERROR events (as ApiError).
   */
  async watch<T>(req: RestRequest & { idleTimeoutMs: number }): Promise<AsyncIterable<WatchEvent<T>>> {
    const { res, call } = await this.withRetries(
      req,
      async (call) => {
        const res = await this.send(req, call.signal, req.idleTimeoutMs);
        if (res.statusCode! >= 300) {
          throw errorFromResponse(
            res.statusCode!,
            await readBody(res, this.bodyLimits.response, req),
            parseRetryAfter(res.headers['retry-after']),
          );
        }
        return { res, call };
      },
      false,
    );
    return watchEvents<T>(res, call, this.bodyLimits.watchEvent, req);
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
    // A write takes its slot after its token: a write waiting for the rate limiter holds none.
    const write = req.method !== 'GET';
    if (write) await this.writeSlots.acquire();
    const started = performance.now();
    const path = this.url(req);
    try {
      const credentials = await this.transport.credentials();
      // Last moment before the request goes on the wire, after every wait (rate
      // limiter, credentials): the process may have been frozen during any of them.
      if (write) this.fence?.check();
      const res = await this.transport.send(
        {
          method: req.method,
          path,
          headers,
          signal,
          ...(body !== undefined ? { body } : {}),
          ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
        },
        credentials,
      );
      const tookMs = performance.now() - started;
      this.metrics?.requestDone(this.transport.host, req.method, String(res.statusCode), tookMs);
      // A 429 is answered before any work: it says nothing of how long a write takes.
      if (write && res.statusCode !== 429) this.pace.observe(tookMs);
      return res;
    } catch (err) {
      // Refused by the fence: nothing was sent, so no request to count, and never retried (not a GET).
      if (err instanceof FencedError) throw err;
      this.metrics?.requestDone(this.transport.host, req.method, '<error>', performance.now() - started);
      if (signal.aborted) throw signal.reason;
      throw wrapError(`${req.method} ${this.transport.config.server}${path}`, err);
    } finally {
      if (write) this.writeSlots.release();
    }
  }

  /**
   * Runs `attempt` with a per-attempt deadline (when `deadline`) and retries
   * what is safe to retry: any 429 (the server did not process the request),
   * and 5xx or a broken connection only for GET (never a write that may have
   * been applied).
   */
  private async withRetries<R>(
    req: RestRequest,
    attempt: (call: ChildSignal) => Promise<R>,
    deadline: boolean,
  ): Promise<R> {
    for (let retry = 0; ; retry++) {
      const call = childSignal(req.signal);
      const timer = deadline
        ? setTimeout(
            () =>
              call.abort(
                new Error(`${req.method} ${req.path}: no answer from the API server within ${this.timeoutMs} ms`),
              ),
            this.timeoutMs,
          )
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
    if (err instanceof BodyTooLargeError) return false;
    if (err instanceof ApiError) return err.code === 429 || (method === 'GET' && err.code >= 500);
    return method === 'GET';
  }

  private retryDelay(retry: number, err: unknown): number {
    if (err instanceof ApiError && err.retryAfterSeconds !== undefined)
      return Math.min(err.retryAfterSeconds * 1000, RETRY_AFTER_CAP_MS);
    const base = Math.min(RETRY_BASE_DELAY_MS * 2 ** retry, RETRY_MAX_DELAY_MS);
    return base * (0.5 + this.random() / 2);
  }
}

interface BodyLimits {
  readonly response: number;
  readonly wholeList: number;
  readonly watchEvent: number;
}

function formatBytes(n: number): string {
  const MiB = 1024 * 1024;
  return n >= MiB && n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`;
}

/** The body's chunks, refused (and the connection dropped) once they exceed `limit` bytes. */
async function* boundedChunks(res: IncomingMessage, limit: number, req: RestRequest): AsyncGenerator<Buffer> {
  const tooLarge = () => {
    res.destroy();
    return bodyTooLarge(limit, 'response body', `${req.method} ${req.path}`);
  };
  if (Number(res.headers['content-length'] ?? 0) > limit) throw tooLarge();
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    yield chunk as Buffer;
  }
}

/** The whole body as text, refused once it exceeds `limit` bytes. */
async function readBody(res: IncomingMessage, limit: number, req: RestRequest): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of boundedChunks(res, limit, req)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** A List body read item by item (each transformed as it arrives), refused once it exceeds `limit` bytes. */
async function readListStream(
  res: IncomingMessage,
  limit: number,
  req: RestRequest,
  eachItem: (item: unknown) => unknown,
): Promise<unknown> {
  const reader = new ListStreamReader(eachItem);
  try {
    for await (const chunk of boundedChunks(res, limit, req)) reader.push(chunk);
    return reader.finish();
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw err;
    res.destroy();
    throw wrapError(`${req.method} ${req.path}: the response`, err);
  }
}

/**
 * Newline-delimited watch events; an ERROR event ends the stream with its
 * Status as ApiError. Lines are cut as bytes and decoded whole, so a
 * character split across chunks survives; a line longer than `maxLineBytes`
 * ends the stream with BodyTooLargeError instead of growing without bound.
 */
async function* watchEvents<T>(
  res: IncomingMessage,
  call: ChildSignal,
  maxLineBytes: number,
  req: RestRequest,
): AsyncGenerator<WatchEvent<T>> {
  const request = `${req.method} ${req.path}`;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const tooLarge = () => bodyTooLarge(maxLineBytes, 'watch event', request);
  try {
    for await (const received of res) {
      let chunk = received as Buffer;
      let nl: number;
      while ((nl = chunk.indexOf(0x0a)) >= 0) {
        if (pendingBytes + nl > maxLineBytes) throw tooLarge();
        const line = pending.length === 0 ? chunk.subarray(0, nl) : Buffer.concat([...pending, chunk.subarray(0, nl)]);
        pending = [];
        pendingBytes = 0;
        chunk = chunk.subarray(nl + 1);
        const text = line.toString('utf8').trim();
        if (text) yield decodeEvent<T>(text, request);
      }
      if (chunk.length > 0) {
        pendingBytes += chunk.length;
        if (pendingBytes > maxLineBytes) throw tooLarge();
        pending.push(chunk);
      }
    }
    const last = Buffer.concat(pending).toString('utf8').trim();
    if (last) yield decodeEvent<T>(last, request);
  } finally {
    res.destroy();
    call.dispose();
  }
}

function decodeEvent<T>(line: string, request: string): WatchEvent<T> {
  const ev = parseJson(line, `${request}: a watch event`) as WatchEvent<T>;
  if (ev.type === 'ERROR') {
    const status = ev.object as unknown;
    throw isStatusBody(status)
      ? statusToError(status, status.code ?? 500)
      : new Error(`${request}: watch ERROR event: ${truncateText(line, 200)}`);
  }
  return ev;
}
