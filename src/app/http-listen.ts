// Starting the plain-HTTP servers (probes, metrics) the way Go's net/http does:
// on the address validation resolved (host and service names are looked up
// once, in src/app/options.ts, and never parsed again here), with the timeouts
// of volcano's helpers.go (read-header 5 s, read 30 s, write 60 s) enforced
// within a second, an idle keep-alive connection closed after 5 s (Go keeps it
// 30 s), bounds on the connections of each client and in all that never turn
// a probe away (connection-limits.ts), and bind errors worded like Go's,
// quoting the address as the user wrote it (`listen tcp :11251: bind: address
// already in use`).

import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitConnections } from './connection-limits.ts';
import type { TcpAddress } from './flags/tcp-address.ts';

export const READ_HEADER_TIMEOUT_MS = 5_000;
export const READ_TIMEOUT_MS = 30_000;
export const WRITE_TIMEOUT_MS = 60_000;
/**
 * Node enforces the header and request timeouts only when it sweeps its
 * connections, every 30 s by default: a client sending half a header would
 * hold a connection that long. Sweep every second so the 5 s limit holds.
 */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;
/** An idle keep-alive connection (kubelet probes, Prometheus) is closed after this. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** A resolved listen address and the text it was resolved from, which Go quotes in listen errors. */
export interface ListenAddress extends TcpAddress {
  readonly text: string;
}

function goListenError(address: string, err: NodeJS.ErrnoException): Error {
  const why: Record<string, string> = {
    EADDRINUSE: 'bind: address already in use',
    EACCES: 'bind: permission denied',
    EADDRNOTAVAIL: 'bind: cannot assign requested address',
  };
  return new Error(`listen tcp ${address}: ${why[err.code ?? ''] ?? err.message}`, { cause: err });
}

/** Binds `address` and resolves once listening; rejects with a Go-worded error. */
export function listenHttp(address: ListenAddress, handler: RequestListener): Promise<Server> {
  const server = createServer(
    {
      headersTimeout: READ_HEADER_TIMEOUT_MS,
      requestTimeout: READ_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    },
    handler,
  );
  limitConnections(server);
  server.on('request', (req, res) => {
    // Go's WriteTimeout: the answer must be written within this of its request's header, however slowly it is read.
    const deadline = setTimeout(() => req.socket.destroy(), WRITE_TIMEOUT_MS).unref();
    res.once('close', () => clearTimeout(deadline));
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(goListenError(address.text, err as NodeJS.ErrnoException)));
    server.listen({ port: address.port, ...(address.ip !== undefined ? { host: address.ip } : {}) }, () => {
      server.removeAllListeners('error');
      server.on('error', () => {}); // per-connection errors after bind are not fatal
      resolve(server);
    });
  });
}

/** `host:port` a server actually listens on (tests bind port 0). */
export function boundAddress(server: Server): string {
  const a = server.address() as AddressInfo;
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

/** Closes the server and its idle keep-alive connections. */
export function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
