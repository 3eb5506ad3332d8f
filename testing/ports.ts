// Free TCP (and UDP) ports on 127.0.0.1 for programs that must be told their listen
// addresses (the executable's --healthz-address / --listen-address). All
// requested ports are held open together before any is released: binding port
// 0 twice in a row can hand out the same port twice.
//
// The ports come from below Linux's ephemeral range (32768–60999 by default),
// never from it: between the release here and the program's own bind, every
// outgoing connection of the machine takes its local port from that range, and
// a busy test (the soak's replicas, the API server's watches) took the very
// port a replica was about to bind. A port is drawn at random from the range
// below, so test processes running side by side rarely draw the same one, and
// a drawn port that is taken is skipped.

import { createSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';

/** Ports handed out: registered ports below the ephemeral range, above what services commonly use. */
const FIRST_PORT = 20_000;
const LAST_PORT = 32_767;
/** Draws before giving up: only a machine whose every port of the range is taken runs out. */
const MAX_DRAWS = 1_000;

const drawPort = () => FIRST_PORT + Math.floor(Math.random() * (LAST_PORT - FIRST_PORT + 1));

/** Binds `bind(port)` to drawn ports until `count` are held, then releases them all. */
async function heldPorts<T>(
  count: number,
  bind: (port: number) => Promise<T | undefined>,
  release: (held: T) => Promise<void>,
): Promise<number[]> {
  const held: { port: number; handle: T }[] = [];
  try {
    for (let draws = 0; held.length < count; draws++) {
      if (draws >= MAX_DRAWS) throw new Error(`no free port on 127.0.0.1 in ${FIRST_PORT}-${LAST_PORT}`);
      const port = drawPort();
      if (held.some((h) => h.port === port)) continue;
      const handle = await bind(port);
      if (handle !== undefined) held.push({ port, handle });
    }
    return held.map((h) => h.port);
  } finally {
    await Promise.all(held.map((h) => release(h.handle)));
  }
}

export function freePorts(count: number): Promise<number[]> {
  return heldPorts(
    count,
    (port) =>
      new Promise<Server | undefined>((resolve) => {
        const srv = createServer();
        srv.once('error', () => resolve(undefined));
        srv.listen(port, '127.0.0.1', () => resolve(srv));
      }),
    (srv) => new Promise((r) => srv.close(() => r())),
  );
}

/** Free UDP ports on 127.0.0.1 (SNMP agents), all held open together before any is released. */
export function freeUdpPorts(count: number): Promise<number[]> {
  return heldPorts(
    count,
    (port) =>
      new Promise<ReturnType<typeof createSocket> | undefined>((resolve) => {
        const s = createSocket('udp4');
        s.once('error', () => {
          try {
            s.close();
          } catch {
            // never bound: nothing to release
          }
          resolve(undefined);
        });
        s.bind(port, '127.0.0.1', () => resolve(s));
      }),
    (s) => new Promise((r) => s.close(() => r())),
  );
}
