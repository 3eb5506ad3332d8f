// The health server (docs/design.md §3.3; Volcano's server.go healthz mux):
// /healthz always 200, /readyz 200 when ready or 503 with Go's plain-text
// body, exact paths only, anything else Go's `404 page not found`.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { listenHttp, type ListenAddress } from './http-listen.ts';
import type { Readiness } from './readiness.ts';
import { wrapError } from '../util/error-message.ts';

export const NOT_READY_BODY = 'HyperNode controller is not ready\n';

/** Go's http.NotFound / http.Error: text body with nosniff. */
export function sendText(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The request's path, without its query: what the listeners route on (exact paths only). */
export function requestPath(req: IncomingMessage): string {
  return (req.url ?? '').split('?')[0]!;
}

function healthHandler(readiness: Readiness) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = requestPath(req);
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Length': 0 }).end();
    } else if (path === '/readyz') {
      if (readiness.isReady()) res.writeHead(200, { 'Content-Length': 0 }).end();
      else sendText(res, 503, NOT_READY_BODY);
    } else {
      sendText(res, 404, '404 page not found\n');
    }
  };
}

/** Binds the health listener; the caller awaits it before going on (bind errors are fatal). */
export async function startHealthServer(address: ListenAddress, readiness: Readiness): Promise<Server> {
  try {
    return await listenHttp(address, healthHandler(readiness));
  } catch (err) {
    throw wrapError('failed to create health listener', err);
  }
}
