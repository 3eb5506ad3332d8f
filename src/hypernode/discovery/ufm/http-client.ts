// The UFM HTTP client: one GET with basic auth, TLS verification unless told
// otherwise, no proxies, a deadline for the whole exchange, a cap on the body
// size and Go's redirect rules (at most 10; the Authorization header is kept
// only for the same host or its subdomains). Mirrors the http.Client that
// pkg/controllers/hypernode/discovery/ufm/ufm.go builds (04-discovery §5.1, §5.4).

import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import { Buffer } from 'node:buffer';

export const REQUEST_TIMEOUT_MS = 30_000;
export const MAX_BODY_BYTES = 100 * 1024 * 1024;
export const MAX_REDIRECTS = 10;

export interface HttpClientOptions {
  insecureSkipVerify: boolean;
  /** Trusted roots (PEM). Default: the system store plus Node's bundled roots, like Go's system pool. */
  ca?: string | string[];
  timeoutMs?: number;
  maxBodyBytes?: number;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  body: Buffer;
  /** The body was cut at maxBodyBytes. */
  truncated: boolean;
}

/** Go uses the system roots; Node 22.15+/23.5+ can read them, older runtimes keep their defaults. */
function defaultRoots(): string[] | undefined {
  const get = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  if (!get) return undefined;
  try {
    return [...get('bundled'), ...get('system'), ...get('extra')];
  } catch {
    return undefined;
  }
}

/** Go's shouldCopyHeaderOnRedirect: same host name, or a subdomain of the first one. */
function keepsAuthorization(initial: URL, next: URL): boolean {
  const a = initial.hostname.toLowerCase();
  const b = next.hostname.toLowerCase();
  return a === b || b.endsWith(`.${a}`);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class UfmHttpClient {
  private readonly agentOptions: https.AgentOptions;

  constructor(private readonly opts: HttpClientOptions) {
    this.agentOptions = { rejectUnauthorized: !opts.insecureSkipVerify, ca: opts.ca ?? defaultRoots() };
  }

  /** GET `url` with `authorization`, following redirects; rejects on transport errors and the deadline. */
  async get(url: string, authorization: string, signal?: AbortSignal): Promise<HttpResponse> {
    const timeoutMs = this.opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const first = new URL(url);
    let current = first;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = keepsAuthorization(first, current) ? { Authorization: authorization } : {};
      const res = await this.once(current, headers, combined, deadline, timeoutMs);
      const location = res.location;
      if (!REDIRECTS.has(res.status) || location === undefined) return res;
      // Go refuses the redirect that would make the 11th request.
      if (hop + 1 >= MAX_REDIRECTS) throw new Error(`stopped after ${MAX_REDIRECTS} redirects`);
      current = new URL(location, current);
    }
  }

  private once(
    url: URL,
    headers: Record<string, string>,
    signal: AbortSignal,
    deadline: AbortSignal,
    timeoutMs: number,
  ): Promise<HttpResponse & { location?: string }> {
    const maxBytes = this.opts.maxBodyBytes ?? MAX_BODY_BYTES;
    return new Promise((resolve, reject) => {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new Error(`unsupported protocol scheme "${url.protocol.replace(/:$/, '')}"`));
      const fail = (err: unknown) =>
        reject(deadline.aborted ? new Error(`Client.Timeout exceeded: no complete answer within ${timeoutMs} ms`) : err);
      const requestOptions: https.RequestOptions = { method: 'GET', headers, signal, agent: false };
      const req =
        url.protocol === 'https:'
          ? https.request(url, { ...requestOptions, ...this.agentOptions })
          : http.request(url, requestOptions);
      req.on('error', fail);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          size += chunk.length;
          if (size > maxBytes) {
            truncated = true;
            chunks.push(chunk.subarray(0, chunk.length - (size - maxBytes)));
            res.destroy();
            finish();
            return;
          }
          chunks.push(chunk);
        });
        const finish = () =>
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            body: Buffer.concat(chunks),
            truncated,
            location: res.headers.location,
          });
        res.on('end', finish);
        res.on('error', (err) => {
          if (!truncated) fail(err);
        });
        res.on('aborted', () => {
          if (!truncated) fail(new Error('connection closed before the response was complete'));
        });
      });
      req.end();
    });
  }
}
