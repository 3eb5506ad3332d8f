// An HTTP(S) server of a stand-in on 127.0.0.1, on a free port, whose close()
// also ends kept-alive connections, so a test's teardown never waits for a
// client's idle socket.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export class LoopbackServer {
  private readonly sockets = new Set<Socket>();
  /** The port, once listening. */
  port = 0;

  constructor(private readonly server: Server) {
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
