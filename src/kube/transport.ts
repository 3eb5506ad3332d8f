// One keep-alive connection pool per API server, shared by every client set
// (client-go's transport cache): without it each call would open a new TCP
// and TLS connection (docs/dependencies.md: client-node creates an agent per request).

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ClientConfig, Credentials } from './config.ts';

export interface RawRequest {
  method: string;
  /** Path and query, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Abort when the connection is idle this long (watches). */
  idleTimeoutMs?: number;
}

export class Transport {
  readonly server: URL;
  /** `host:port` as used in metric labels. */
  readonly host: string;
  private readonly secure: boolean;
  private agent: HttpAgent;
  private agentCert: Buffer | undefined;

  constructor(readonly config: ClientConfig) {
    this.server = new URL(config.server);
    this.secure = this.server.protocol === 'https:';
    this.host = this.server.host;
    this.agentCert = config.tls.cert;
    this.agent = this.newAgent(config.tls.cert, config.tls.key);
  }

  credentials(): Promise<Credentials> {
    return this.config.credentials();
  }

  /** Sends one request and resolves with the response head; the body is left to the caller. */
  send(req: RawRequest, creds: Credentials): Promise<IncomingMessage> {
    const agent = this.agentFor(creds);
    const send = this.secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const r = send(
        {
          protocol: this.server.protocol,
          hostname: this.server.hostname.replace(/^\[|\]$/g, ''),
          port: this.server.port || (this.secure ? 443 : 80),
          method: req.method,
          path: this.server.pathname.replace(/\/$/, '') + req.path,
          headers: { ...req.headers, ...creds.headers },
          agent,
          signal: req.signal,
        },
        resolve,
      );
      r.on('error', reject);
      if (req.idleTimeoutMs) {
        r.setTimeout(req.idleTimeoutMs, () =>
          r.destroy(new Error(`no data from the API server for ${req.idleTimeoutMs} ms`)),
        );
      }
      r.end(req.body);
    });
  }

  /** Closes idle pooled connections (shutdown). */
  close(): void {
    this.agent.destroy();
  }

  /** An exec plugin may hand out a new client certificate; connections made with the old one are retired. */
  private agentFor(creds: Credentials): HttpAgent {
    if (creds.cert && creds.key && !(this.agentCert && creds.cert.equals(this.agentCert))) {
      this.agent.destroy();
      this.agentCert = creds.cert;
      this.agent = this.newAgent(creds.cert, creds.key);
    }
    return this.agent;
  }

  private newAgent(cert?: Buffer, key?: Buffer): HttpAgent {
    if (!this.secure) return new HttpAgent({ keepAlive: true });
    const tls = this.config.tls;
    return new HttpsAgent({
      keepAlive: true,
      rejectUnauthorized: tls.rejectUnauthorized,
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(tls.servername ? { servername: tls.servername } : {}),
    });
  }
}
