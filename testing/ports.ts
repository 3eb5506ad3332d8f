// Free TCP ports on 127.0.0.1 for programs that must be told their listen
// addresses (the executable's --healthz-address / --listen-address). All
// requested ports are held open together before any is released: binding port
// 0 twice in a row can hand out the same port twice.

import { createServer, type Server } from 'node:net';

export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const srv = createServer();
      servers.push(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}
