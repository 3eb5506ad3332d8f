// limitConnections on a real HTTP server with small bounds (2 per client, 4
// in all): a newcomer is always let in; shortly after, the client past its
// bound loses the connections that waited longest without an answer, then the
// heaviest client does while the total is passed; a connection serving a
// request is never closed for another; a flood past twice a bound is cut as
// it arrives.

import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ENFORCE_DELAY_MS, limitConnections } from '../../src/app/connection-limits.ts';
import { closeHttp } from '../../src/app/http-listen.ts';
import { waitFor } from '../../testing/wait.ts';

const LIMITS = { perClient: 2, total: 4 };

interface Held {
  readonly socket: Socket;
  readonly from: string;
  closed: boolean;
}

let server: Server;
let port = 0;
/** Responses the /hold route keeps open until the test ends them. */
const holding: ServerResponse[] = [];

test.before.each(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hold') holding.push(res);
    else res.end('ok');
  });
  limitConnections(server, LIMITS);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
test.after.each(async () => {
  for (const res of holding.splice(0)) res.end();
  await closeHttp(server);
});

async function open(from: string, send?: string): Promise<Held> {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from });
  const held: Held = { socket, from, closed: false };
  socket.on('error', () => {});
  socket.on('close', () => (held.closed = true));
  socket.resume();
  await new Promise((r) => socket.once('connect', r));
  if (send) socket.write(send);
  return held;
}

/** Lets the enforcement run (it waits ENFORCE_DELAY_MS after a bound is passed) and the closes arrive. */
const settle = () => new Promise((r) => setTimeout(r, ENFORCE_DELAY_MS + 150));

const openOnes = (all: Held[]) => all.filter((h) => !h.closed);

test('past its own bound, a client loses the connections that waited longest; others keep theirs', async () => {
  const other = await open('127.0.0.3');
  const first = await open('127.0.0.2');
  const second = await open('127.0.0.2');
  const third = await open('127.0.0.2');
  await settle();
  assert.ok(first.closed, 'the oldest of the client past its bound');
  assert.equal(openOnes([second, third, other]).length, 3);
});

test('past the total, the heaviest client loses its oldest; a light client keeps its one', async () => {
  const light = await open('127.0.0.4');
  const heavy = [await open('127.0.0.5'), await open('127.0.0.5')];
  const middle = [await open('127.0.0.6'), await open('127.0.0.6')];
  await settle();
  assert.ok(!light.closed);
  assert.is(openOnes([...heavy, ...middle]).length, 3, 'one of the two-connection clients gave one up');
  assert.ok(heavy[0]!.closed || middle[0]!.closed, 'the oldest of a heaviest client');
});

test('a connection answering a request is never closed for another; one that was answered waits from then', async () => {
  const answered = await open('127.0.0.7');
  const silent = await open('127.0.0.7');
  const answer = new Promise((r) => answered.socket.once('data', r));
  answered.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await answer;
  const serving = await open('127.0.0.7', 'GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
  await waitFor(() => holding.length === 1, { what: 'the held request' });
  await settle();
  assert.ok(!serving.closed, 'serving a request');
  assert.ok(silent.closed, 'silent since it connected');
  assert.ok(!answered.closed, 'connected first, but answered since');
});

test('a probe is answered although its client is past its bound, and the silent connections go', async () => {
  const silent = [await open('127.0.0.1'), await open('127.0.0.1'), await open('127.0.0.1')];
  const code = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
  assert.is(code, 200);
  await settle();
  assert.is(openOnes(silent).length, LIMITS.perClient);
});

test('a flood past twice a bound is cut as it arrives, oldest first', async () => {
  const flood: Held[] = [];
  for (let i = 0; i < 3 * LIMITS.perClient; i++) flood.push(await open('127.0.0.8'));
  await waitFor(() => openOnes(flood).length <= 2 * LIMITS.perClient, { what: 'the flood to be cut' });
  assert.ok(flood[0]!.closed && flood[1]!.closed, 'the first ones went first');
  await settle();
  assert.is(openOnes(flood).length, LIMITS.perClient);
});

test.run();
