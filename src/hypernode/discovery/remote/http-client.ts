// The HTTP(S) GET client of the sources that read a remote system (a fabric
// manager's REST API, a graph URL): one GET with an Authorization header, TLS
// verification unless told otherwise, no proxies, a deadline for the whole
// exchange, a cap on the body size and at most 10 redirects. Mirrors the
// http.Client that Go's pkg/controllers/hypernode/discovery/ufm/ufm.go builds,
// with three changes:
// the Authorization header follows a redirect only to the same scheme, host
// and port (Go also keeps it for subdomains and across an https → http
// downgrade), a body over the cap is an error naming the cap and the URL, and
// no request, redirects included, reaches a loopback, link-local or metadata
// address the operator did not allow (allowed-addresses.ts).

import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import { Buffer } from 'node:buffer';
import { BodyTooLargeError } from '../../../util/body-too-large-error.ts';
import { redactUrl } from '../../../util/redact-url.ts';
import { UrlAddressPolicy, UrlRefusedError } from './allowed-addresses.ts';

export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * The largest ports answer read. A 10,000-host fabric (one HCA port per host,
 * a fat tree of 64-port switches: about 40,000 port objects of about 1.1 KB
 * each as UFM 6 serialises them) answers about 45 MiB; 64 MiB leaves 40 %
 * margin. Go reads up to 100 MiB, which costs about 0.5 GB of memory to parse.
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The first buffer for a body of unknown length; it doubles as needed up to the cap. */
const INITIAL_BODY_BYTES = 64 * 1024;
export const MAX_REDIRECTS = 10;

export interface HttpClientOptions {
  insecureSkipVerify: boolean;
  /** Trusted roots (PEM). Default: the system store plus Node's bundled roots, like Go's system pool. */
  ca?: string | string[];
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** Which local addresses may be asked (default: none, only what is neither loopback, link-local nor metadata). */
  addresses?: UrlAddressPolicy;
}

export interface HttpResponse {
  status: number;
  /** The body decoded as UTF-8; its bytes are not kept, so only one copy stays alive. */
  body: string;
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

/**
 * Credentials go only where they were configured for: the same scheme, host
 * and port as the first request (URL.origin normalises case and default
 * ports). A redirect to plain http on the same host would otherwise send the
 * password in cleartext.
 */
function keepsAuthorization(initial: URL, next: URL): boolean {
  return initial.origin === next.origin;
}

/** Collects a body into one buffer: exactly sized when the length is announced, else grown by doubling. */
class BodyBuffer {
  private buf: Buffer;
  size = 0;

  constructor(
    announced: number | undefined,
    private readonly maxBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(announced ?? Math.min(INITIAL_BODY_BYTES, maxBytes));
  }

  /** false when the body would pass the cap. */
  append(chunk: Buffer): boolean {
    const needed = this.size + chunk.length;
    if (needed > this.maxBytes) return false;
    if (needed > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.min(Math.max(needed, this.buf.length * 2), this.maxBytes));
      this.buf.copy(grown, 0, 0, this.size);
      this.buf = grown;
    }
    chunk.copy(this.buf, this.size);
    this.size = needed;
    return true;
  }

  text(): string {
    return this.buf.toString('utf8', 0, this.size);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class HttpGetClient {
  private readonly agentOptions: https.AgentOptions;
  private readonly addresses: UrlAddressPolicy;

  constructor(private readonly opts: HttpClientOptions) {
    this.agentOptions = { rejectUnauthorized: !opts.insecureSkipVerify, ca: opts.ca ?? defaultRoots() };
    this.addresses = opts.addresses ?? new UrlAddressPolicy([]);
  }

  /**
   * GET `url` with `authorization` (none when empty), following redirects; rejects on transport errors and the
   * deadline.
   */
  async get(url: string, authorization: string, signal?: AbortSignal): Promise<HttpResponse> {
    const timeoutMs = this.opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const first = new URL(url);
    let current = first;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> =
        authorization !== '' && keepsAuthorization(first, current) ? { Authorization: authorization } : {};
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
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return reject(new Error(`unsupported protocol scheme "${url.protocol.replace(/:$/, '')}"`));
      // A literal address is connected to without a lookup: it is checked here; a name is checked as it resolves.
      const refused = this.addresses.refusedHost(url.hostname);
      if (refused) return reject(new UrlRefusedError(refused));
      const fail = (err: unknown) =>
        reject(
          deadline.aborted ? new Error(`Client.Timeout exceeded: no complete answer within ${timeoutMs} ms`) : err,
        );
      const requestOptions: https.RequestOptions = {
        method: 'GET',
        headers,
        signal,
        agent: false,
        lookup: this.addresses.lookup,
      };
      const req =
        url.protocol === 'https:'
          ? https.request(url, { ...requestOptions, ...this.agentOptions })
          : http.request(url, requestOptions);
      req.on('error', fail);
      req.on('response', (res) => {
        const announced = Number(res.headers['content-length']);
        const known = Number.isSafeInteger(announced) && announced >= 0 ? announced : undefined;
        const tooLarge = () => {
          res.destroy();
          reject(
            new BodyTooLargeError(
              maxBytes,
              `the answer of ${redactUrl(url.href)} is larger than the body limit of ${maxBytes} bytes (${(maxBytes / 2 ** 20).toFixed(0)} MiB); not reading it`,
            ),
          );
        };
        if (known !== undefined && known > maxBytes) return tooLarge();
        let body: BodyBuffer | undefined = new BodyBuffer(known, maxBytes);
        res.on('data', (chunk: Buffer) => {
          if (body && !body.append(chunk)) {
            body = undefined;
            tooLarge();
          }
        });
        res.on('end', () => {
          if (!body) return;
          const text = body.text();
          body = undefined; // the bytes are garbage from here on; only the text lives
          resolve({
            status: res.statusCode ?? 0,
            body: text,
            location: res.headers.location,
          });
        });
        res.on('error', (err) => {
          if (body) fail(err);
        });
        res.on('aborted', () => {
          if (body) fail(new Error('connection closed before the response was complete'));
        });
      });
      req.end();
    });
  }
}
