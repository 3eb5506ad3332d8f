// A stand-in for an inventory system serving a static fabric graph, for the
// graph source's tests: HTTPS on 127.0.0.1 with the test server certificate
// (signed by testing/tls/ca.crt), a bearer token it accepts (401 otherwise),
// and a switchable answer (a body, or a status). It records the
// Authorization header of every request.

import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { LoopbackServer } from './loopback-server.ts';

const tls = (name: string) => readFileSync(new URL(`./tls/${name}`, import.meta.url));

export class GraphServer {
  /** The token accepted as `Authorization: Bearer <token>`; undefined accepts any request. */
  token: string | undefined = 'inventory-token';
  answer: { status: number; body: string } = { status: 200, body: '' };
  readonly authorizations: (string | undefined)[] = [];
  private readonly server: LoopbackServer;

  constructor() {
    this.server = new LoopbackServer(
      createServer({ cert: tls('server.crt'), key: tls('server.key') }, (req, res) => {
        this.authorizations.push(req.headers.authorization);
        if (this.token !== undefined && req.headers.authorization !== `Bearer ${this.token}`) {
          res.writeHead(401).end('unauthorized');
          return;
        }
        res.writeHead(this.answer.status, { 'Content-Type': 'application/yaml' }).end(this.answer.body);
      }),
    );
  }

  async start(): Promise<this> {
    await this.server.listen();
    return this;
  }

  /** The graph's URL. */
  url(path = '/fabrics/lab.yaml'): string {
    return `https://127.0.0.1:${this.server.port}${path}`;
  }

  async close(): Promise<void> {
    await this.server.close();
  }
}

/**
 * A rail-optimised fabric as a graph document (JSON): `sus` scalable units of
 * `hostsPerSu` hosts (`su<s>-h<h>`), each host on one leaf per rail
 * (`leaf-su<s>-r<r>`), every leaf cabled to `spines` spines (`spine-<n>`).
 */
export function railGraphDocument(opts: { sus: number; rails: number; hostsPerSu: number; spines: number }): {
  switches: { id: string; name: string }[];
  links: unknown[];
} {
  const switches: { id: string; name: string }[] = [];
  const links: unknown[] = [];
  for (let n = 1; n <= opts.spines; n++) switches.push({ id: `spine-${n}`, name: `SPINE-${n}` });
  for (let s = 1; s <= opts.sus; s++) {
    for (let r = 1; r <= opts.rails; r++) {
      const leaf = `leaf-su${s}-r${r}`;
      switches.push({ id: leaf, name: leaf.toUpperCase() });
      for (let n = 1; n <= opts.spines; n++)
        links.push({
          a: { switch: leaf, port: `swp${60 + n}` },
          b: { switch: `spine-${n}`, port: `swp${s * opts.rails + r}` },
        });
      for (let h = 1; h <= opts.hostsPerSu; h++)
        links.push({ a: { host: `su${s}-h${h}`, port: `eth${r}` }, b: { switch: leaf, port: `swp${h}` } });
    }
  }
  return { switches, links };
}
