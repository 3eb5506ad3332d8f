// A UFM stand-in for tests: HTTPS on 127.0.0.1 with the test server
// certificate (valid for 127.0.0.1 and localhost), basic auth, and a
// switchable answer for GET /ufmRest/resources/ports. It records every
// request so tests can assert what the discoverer sent.

import { createServer } from 'node:https';
import { createServer as createPlainServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const tls = (name: string) => readFileSync(new URL(`../../testing/tls/${name}`, import.meta.url));
export const TEST_CA = tls('ca.crt').toString();
export const OTHER_CA = tls('other-ca.crt').toString();

export interface UfmPortJson {
  description?: unknown;
  tier?: unknown;
  system_name?: unknown;
  node_description?: unknown;
  peer_node_name?: unknown;
  [key: string]: unknown;
}

export type UfmAnswer =
  | { kind: 'ports'; ports: UfmPortJson[] | null }
  | { kind: 'raw'; status?: number; body: string }
  | { kind: 'status'; status: number }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  /** A 200 whose body is `bytes` long (a JSON array padded with spaces); `announce` sends Content-Length. */
  | { kind: 'huge'; bytes: number; announce?: boolean }
  /** Redirects every path except `/final/ufmRest/resources/ports`, which serves `ports`. */
  | { kind: 'redirect'; status?: number; location: string; ports: UfmPortJson[] };

export interface RecordedRequest {
  method: string;
  path: string;
  host: string;
  authorization?: string;
  accept?: string;
}

/** Computer ports: every `node` connected to every leaf in `leaves`. */
export function computerPorts(nodes: string[], leaves: string[], description = 'Computer IB Port'): UfmPortJson[] {
  return nodes.flatMap((n) => leaves.map((l) => ({ description, tier: 1, system_name: n, node_description: `${n} HCA-1`, peer_node_name: l })));
}

export class UfmServer {
  readonly requests: RecordedRequest[] = [];
  answer: UfmAnswer = { kind: 'ports', ports: [] };
  username = 'admin';
  password = 'secret';
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  /** `plain` serves http instead of https (for the cleartext-credentials cases). */
  constructor(private readonly opts: { plain?: boolean } = {}) {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    this.server = opts.plain ? createPlainServer(handler) : createServer({ cert: tls('server.crt'), key: tls('server.key') }, handler);
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** Base endpoint, e.g. `https://127.0.0.1:1234`; `host` may be `localhost`. */
  endpoint(host = '127.0.0.1'): string {
    return `${this.opts.plain ? 'http' : 'https'}://${host}:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      host: req.headers.host ?? '',
      authorization: req.headers.authorization,
      accept: req.headers.accept,
    });
    const expected = `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
    const a = this.answer;
    if (a.kind === 'redirect' && req.url !== '/final/ufmRest/resources/ports') {
      res.writeHead(a.status ?? 302, { Location: a.location }).end();
      return;
    }
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="ufm"' }).end('unauthorized');
      return;
    }
    if (!req.url?.endsWith('/ufmRest/resources/ports')) {
      res.writeHead(404).end();
      return;
    }
    switch (a.kind) {
      case 'ports':
      case 'redirect':
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(a.ports));
        return;
      case 'raw':
        res.writeHead(a.status ?? 200, { 'Content-Type': 'application/json' }).end(a.body);
        return;
      case 'status':
        res.writeHead(a.status).end();
        return;
      case 'hang':
        return;
      case 'huge': {
        res.writeHead(200, { 'Content-Type': 'application/json', ...(a.announce ? { 'Content-Length': String(a.bytes) } : {}) });
        const chunk = Buffer.alloc(64 * 1024, ' ');
        let left = a.bytes - 2;
        res.write('[');
        const pump = () => {
          while (left > 0) {
            const n = Math.min(left, chunk.length);
            left -= n;
            if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
          }
          res.end(']');
        };
        pump();
        return;
      }
    }
  }
}
