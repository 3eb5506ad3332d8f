// A UFM stand-in for tests: HTTPS on 127.0.0.1 with the test server
// certificate (valid for 127.0.0.1 and localhost), basic auth on /ufmRest and
// access tokens on /ufmRestV3 (`Authorization: Basic <token>`, as UFM takes
// them), and a switchable answer: a ports list for GET
// /ufmRest/resources/ports, or a generated fabric served as ports (full, or
// brief with `?brief=true`), links (bare, or in a `data` envelope) and systems.
// It records every request so tests can assert what the discoverer sent.

import { createServer } from 'node:https';
import { createServer as createPlainServer } from 'node:http';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { briefPort, type FatTree } from './fat-tree.ts';
import { LoopbackServer } from './loopback-server.ts';

const tls = (name: string) => readFileSync(new URL(`./tls/${name}`, import.meta.url));
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
  | { kind: 'redirect'; status?: number; location: string; ports: UfmPortJson[] }
  /** A generated fabric on the ports, links and systems resources; `linksEnvelope` wraps links in `{data: […]}`. */
  | { kind: 'fabric'; fabric: FatTree; linksEnvelope?: boolean };

export interface RecordedRequest {
  method: string;
  path: string;
  host: string;
  authorization?: string;
  accept?: string;
  /** When it arrived (Date.now()). */
  at: number;
}

/** Computer ports: every `node` connected to every leaf in `leaves`. */
export function computerPorts(nodes: string[], leaves: string[], description = 'Computer IB Port'): UfmPortJson[] {
  return nodes.flatMap((n) =>
    leaves.map((l) => ({ description, tier: 1, system_name: n, node_description: `${n} HCA-1`, peer_node_name: l })),
  );
}

/** Runs `fn` with `count` started stand-ins and closes them afterwards, also when `fn` throws. */
export async function withUfmServers<T>(
  count: number,
  fn: (servers: UfmServer[]) => Promise<T>,
  opts: { plain?: boolean } = {},
): Promise<T> {
  const servers = await Promise.all(Array.from({ length: count }, () => new UfmServer(opts).start()));
  try {
    return await fn(servers);
  } finally {
    for (const s of servers) await s.close();
  }
}

export class UfmServer {
  readonly requests: RecordedRequest[] = [];
  answer: UfmAnswer = { kind: 'ports', ports: [] };
  username = 'admin';
  password = 'secret';
  /** Access tokens accepted on /ufmRestV3; a revoked or expired one is removed (401). */
  readonly tokens = new Set<string>(['ufm-access-token']);
  private readonly server: LoopbackServer;

  /** `plain` serves http instead of https (for the cleartext-credentials cases). */
  constructor(private readonly opts: { plain?: boolean } = {}) {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    this.server = new LoopbackServer(
      opts.plain
        ? createPlainServer(handler)
        : createServer({ cert: tls('server.crt'), key: tls('server.key') }, handler),
    );
  }

  async start(): Promise<this> {
    await this.server.listen();
    return this;
  }

  /** Base endpoint, e.g. `https://127.0.0.1:1234`; `host` may be `localhost`. */
  endpoint(host = '127.0.0.1'): string {
    return `${this.opts.plain ? 'http' : 'https'}://${host}:${this.server.port}`;
  }

  async close(): Promise<void> {
    await this.server.close();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      host: req.headers.host ?? '',
      authorization: req.headers.authorization,
      accept: req.headers.accept,
      at: Date.now(),
    });
    const a = this.answer;
    if (a.kind === 'redirect' && req.url !== '/final/ufmRest/resources/ports') {
      res.writeHead(a.status ?? 302, { Location: a.location }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'https://ufm');
    const token = url.pathname.includes('/ufmRestV3/');
    if (!this.authorized(req.headers.authorization, token)) {
      res.writeHead(401, token ? {} : { 'WWW-Authenticate': 'Basic realm="ufm"' }).end('unauthorized');
      return;
    }
    const resource = url.pathname.replace(/^.*\/ufmRest(V3)?\/resources\//, '');
    if (a.kind !== 'fabric' && (resource !== 'ports' || url.search !== '')) {
      res.writeHead(404).end();
      return;
    }
    switch (a.kind) {
      case 'fabric':
        this.serveFabric(a, resource, url, res);
        return;
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
        res.writeHead(200, {
          'Content-Type': 'application/json',
          ...(a.announce ? { 'Content-Length': String(a.bytes) } : {}),
        });
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

  private authorized(header: string | undefined, token: boolean): boolean {
    if (token)
      return header !== undefined && header.startsWith('Basic ') && this.tokens.has(header.slice('Basic '.length));
    return header === `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
  }

  private serveFabric(
    a: Extract<UfmAnswer, { kind: 'fabric' }>,
    resource: string,
    url: URL,
    res: ServerResponse,
  ): void {
    let body: unknown;
    if (resource === 'ports')
      body = url.searchParams.get('brief') === 'true' ? a.fabric.ports.map(briefPort) : a.fabric.ports;
    else if (resource === 'links')
      body = a.linksEnvelope ? { data: a.fabric.links, total_resources: a.fabric.links.length } : a.fabric.links;
    else if (resource === 'systems') body = a.fabric.systems;
    else return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  }
}
