// Which connections a listener keeps when it holds too many: a bound per
// client address and a bound in all, kept by closing connections that sit
// silent rather than by turning newcomers away. Go's net/http has no such
// bound (its only guard is the header timeout); a plain connection cap, which
// refuses the newest, let any pod holding the cap starve the kubelet's probes.
//
// Here a new connection is always accepted. Shortly after one passes a bound
// (ENFORCE_DELAY_MS: time for a probe, which asks at once, to be answered),
// the client over its own bound, and then whoever holds the most while the
// listener is over its total, lose the connections that have waited longest
// without a request being answered (idle or trickling), never one serving a
// request. At twice a bound (a flood within that delay) the same happens at
// once, as each newcomer arrives. A probe is the newest connection of its
// address and answered within the delay, so it is answered while others hold
// or trickle connections, even from its own address (docs/security.md §5).

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Connections one client address may hold; a browser opens six, Prometheus and the kubelet one or two. */
export const MAX_CONNECTIONS_PER_CLIENT = 16;
/** Connections a listener holds in all, bounding its descriptors and memory. */
export const MAX_CONNECTIONS = 64;
/** How long connections past a bound are left before the silent ones are closed. */
export const ENFORCE_DELAY_MS = 50;
/** Past this many times a bound (a flood within ENFORCE_DELAY_MS), connections are closed as newcomers arrive. */
const FLOOD_FACTOR = 2;

export interface ConnectionLimits {
  readonly perClient: number;
  readonly total: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  perClient: MAX_CONNECTIONS_PER_CLIENT,
  total: MAX_CONNECTIONS,
};

interface Held {
  readonly socket: Socket;
  readonly client: string;
  /** Requests being answered on it; a connection serving one is never closed for another. */
  serving: number;
  /** When it connected or last finished an answer (a counter): the one waiting longest goes first. */
  since: number;
}

/** Tracks `server`'s connections and keeps them within `limits` by the rule above. */
export function limitConnections(server: Server, limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS): void {
  const held = new Map<Socket, Held>();
  const byClient = new Map<string, Set<Held>>();
  let order = 0; // a counter, not the clock: many connections arrive within one millisecond
  let enforcing: NodeJS.Timeout | undefined;

  const forget = (h: Held) => {
    if (!held.delete(h.socket)) return;
    const mine = byClient.get(h.client)!;
    mine.delete(h);
    if (mine.size === 0) byClient.delete(h.client);
  };

  /** The connection of `client` waiting longest, not serving a request. */
  const waitingLongest = (client: string): Held | undefined => {
    let oldest: Held | undefined;
    for (const h of byClient.get(client) ?? []) if (h.serving === 0 && (!oldest || h.since < oldest.since)) oldest = h;
    return oldest;
  };

  /** The connection waiting longest of the heaviest client that has one. */
  const heaviestWaiting = (): Held | undefined => {
    const heaviestFirst = [...byClient].sort((a, b) => b[1].size - a[1].size);
    for (const [client] of heaviestFirst) {
      const h = waitingLongest(client);
      if (h) return h;
    }
    return undefined;
  };

  /** Closes `victim`, if there is one; false when there is none. */
  const drop = (victim: Held | undefined): boolean => {
    if (!victim) return false;
    forget(victim);
    victim.socket.destroy();
    return true;
  };

  const enforce = () => {
    enforcing = undefined;
    for (const [client, mine] of byClient) while (mine.size > limits.perClient && drop(waitingLongest(client)));
    while (held.size > limits.total && drop(heaviestWaiting()));
  };

  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress;
    if (client === undefined) return void socket.destroy(); // already gone
    const mine = byClient.get(client)?.size ?? 0;
    // A flood: make room now, or (every candidate is being answered) turn the newcomer away.
    if (mine >= FLOOD_FACTOR * limits.perClient && !drop(waitingLongest(client))) return void socket.destroy();
    if (held.size >= FLOOD_FACTOR * limits.total && !drop(heaviestWaiting())) return void socket.destroy();
    const h: Held = { socket, client, serving: 0, since: order++ };
    held.set(socket, h);
    if (!byClient.has(client)) byClient.set(client, new Set());
    byClient.get(client)!.add(h);
    socket.once('close', () => forget(h));
    if ((byClient.get(client)!.size > limits.perClient || held.size > limits.total) && !enforcing)
      enforcing = setTimeout(enforce, ENFORCE_DELAY_MS).unref();
  });

  server.on('request', (req, res) => {
    const h = held.get(req.socket);
    if (!h) return;
    h.serving++;
    res.once('close', () => {
      h.serving--;
      h.since = order++;
    });
  });
}
