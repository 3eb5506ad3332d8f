// Free TCP (and UDP) ports on 127.0.0.1 for programs that must be told their listen
// addresses (the executable's --healthz-address / --listen-address). All
// requested ports are held open together before any is released: binding port
// 0 twice in a row can hand out the same port twice.

import { createSocket } from 'node:dgram';
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

/** Free UDP ports on 127.0.0.1 (SNMP agents), all held open together before any is released. */
export async function freeUdpPorts(count: number): Promise<number[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createSocket>>((resolve, reject) => {
          const s = createSocket('udp4');
          s.once('error', reject);
          s.bind(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = sockets.map((s) => s.address().port);
  await Promise.all(sockets.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}
