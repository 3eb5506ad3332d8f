// Minimal HTTP(S) client for the stand-in: its own tests and the API server
// benchmark. One request, or a watch stream read line by line. Trusts the
// test CA; optional client cert.

import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ApiServer } from './apiserver/index.ts';
import { waitFor } from './wait.ts';

export interface CallOptions {
  /** Bearer token; default the admin token. Pass '' for none. */
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Present the test client certificate (CN=cert-user, O=testers), or the given files. */
  clientCert?: boolean | { certFile: string; keyFile: string };
}

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  body: any;
}

function clientCertOptions(
  api: ApiServer,
  c: true | { certFile: string; keyFile: string },
): { cert: Buffer; key: Buffer } {
  const files = c === true ? { certFile: api.clientCertFile, keyFile: api.clientKeyFile } : c;
  return { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) };
}

function open(api: ApiServer, method: string, path: string, o: CallOptions): Promise<IncomingMessage> {
  const url = new URL(path, api.url);
  const headers: Record<string, string> = { ...o.headers };
  const token = o.token ?? api.adminToken;
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  if (o.body !== undefined) {
    payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  const tls = url.protocol === 'https:';
  const options = {
    method,
    headers,
    agent: false as const,
    ...(tls ? { ca: readFileSync(api.caFile) } : {}),
    ...(tls && o.clientCert ? clientCertOptions(api, o.clientCert) : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(url, options, resolve);
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end(payload);
  });
}

export async function call(api: ApiServer, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const res = await open(api, method, path, o);
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.statusCode ?? 0, headers: res.headers, text, body };
}

export interface WatchStream {
  status: number;
  events: any[];
  /** Resolves when the server ends the stream cleanly; `aborted` says whether it was cut. */
  ended: Promise<{ aborted: boolean }>;
  /** Waits until at least `n` events arrived; returns them all. */
  waitForEvents(n: number, what?: string): Promise<any[]>;
  close(): void;
}

export async function watch(api: ApiServer, path: string, o: CallOptions = {}): Promise<WatchStream> {
  const res = await open(api, 'GET', path, o);
  const events: any[] = [];
  let buf = '';
  let done = false;
  res.setEncoding('utf8');
  res.on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) events.push(JSON.parse(line));
    }
  });
  const ended = new Promise<{ aborted: boolean }>((resolve) => {
    res.on('end', () => {
      done = true;
      resolve({ aborted: false });
    });
    res.on('aborted', () => resolve({ aborted: true }));
    res.on('error', () => resolve({ aborted: true }));
    res.on('close', () => {
      if (!done) resolve({ aborted: true });
    });
  });
  return {
    status: res.statusCode ?? 0,
    events,
    ended,
    waitForEvents: (n, what = `${n} watch events`) =>
      waitFor(() => events.length >= n && events, { what, timeoutMs: 5_000 }),
    close: () => res.destroy(),
  };
}

export const HN = '/apis/topology.volcano.sh/v1alpha1/hypernodes';

export function hyperNode(name: string, extra: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: { name, labels: { 'volcano.sh/network-topology-source': 'label' } },
    spec: { tier: 1, members: [{ type: 'Node', selector: { exactMatch: { name: 'node-0' } } }] },
    ...extra,
  };
}
