// docs/security.md §1 and §3: a URL the discovery ConfigMap names (the graph
// source's config.url, a UFM endpoint) never makes the controller connect to
// its own host, a link-local address or a cloud metadata service, unless the
// operator allows that network (--allow-url-cidr): not written as an address,
// not as a name that resolves there, not through a redirect. Listeners that
// record every connection show that none is made; the refusal names the key
// and the flag.

import { lookup } from 'node:dns/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpGetClient } from '../../src/hypernode/discovery/remote/http-client.ts';
import { UrlAddressPolicy } from '../../src/hypernode/discovery/remote/allowed-addresses.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { testNeeding } from '../support/skip.ts';
import { NS, seedConfigMap, setDiscoveryConfig } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { eventMessages } from './leak-evidence.ts';

const s = session(test);

/** A TCP listener on `host` that counts the connections made to it, and answers none. */
class ConnectionRecorder {
  connections = 0;
  private readonly server: Server = createServer((socket) => {
    this.connections++;
    socket.destroy();
  });

  async listen(host: string): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, host, resolve));
    return (this.server.address() as { port: number }).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
const recorders: ConnectionRecorder[] = [];
const recorder = async (host = '127.0.0.1') => {
  const r = new ConnectionRecorder();
  recorders.push(r);
  return { recorder: r, port: await r.listen(host) };
};
test.after.each(async () => {
  for (const r of recorders.splice(0)) await r.close();
});

const graphAt = (url: string) =>
  `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n    config:\n      url: "${url}"\n`;
const ufmAt = (endpoint: string) =>
  `networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    interval: 1s\n    config:\n      endpoint: "${endpoint}"\n`;

const eventSaying = (api: Parameters<typeof eventMessages>[0], reason: string, ...parts: string[]) =>
  s.converge(
    () => eventMessages(api, reason).find((m) => parts.every((p) => m.includes(p))),
    `a ${reason} Event saying ${parts.join(' … ')}`,
  );

/** The machine's own name, when it resolves to a loopback address (Debian's /etc/hosts makes it so). */
async function loopbackName(): Promise<string | undefined> {
  try {
    const found = await lookup(hostname(), { all: true });
    return found.length > 0 && found.every((a) => a.address.startsWith('127.')) ? hostname() : undefined;
  } catch {
    return undefined;
  }
}
const LOOPBACK_NAME = await loopbackName();
const withLoopbackName = testNeeding(LOOPBACK_NAME ? undefined : `the host name ${hostname()} resolving to 127.x`);

test('a URL to 127.0.0.1, localhost, 0.0.0.0, a mapped IPv4 address or a metadata address is refused at load naming the key and the flag, and no connection is made', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const { recorder: local, port } = await recorder();
  seedConfigMap(api, graphAt(`http://127.0.0.1:${port}/fabric.json`));
  s.startInProcess(kubeconfig, { shippedInputPolicy: true });
  const refused = (what: string) => ['graph source: config.url is refused: ', what, '--allow-url-cidr'];
  await eventSaying(api, 'DiscovererFailed', ...refused('127.0.0.1 is a loopback address'));
  for (const [url, what] of [
    [`http://localhost:${port}/fabric.json`, 'localhost is this host (loopback)'],
    [`http://0.0.0.0:${port}/fabric.json`, '0.0.0.0 is an address of this host'],
    [`http://[::ffff:127.0.0.1]:${port}/fabric.json`, 'is a loopback address'],
    [`http://[::1]:${port}/fabric.json`, 'is a loopback address'],
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'cloud metadata services answer there'],
    ['http://metadata.google.internal/computeMetadata/v1/?recursive=true', "a cloud metadata service's name"],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'is a cloud metadata address'],
    ['http://100.100.100.200/latest/meta-data/', 'is a cloud metadata address'],
  ] as const) {
    setDiscoveryConfig(api, graphAt(url));
    await eventSaying(api, 'DiscovererFailed', ...refused(what));
  }
  setDiscoveryConfig(api, ufmAt(`https://127.0.0.1:${port}`));
  await eventSaying(api, 'DiscovererFailed', 'ufm source: config.endpoint is refused: 127.0.0.1 is a loopback address');
  assert.is(local.connections, 0, 'no connection reached the loopback listener');
});

withLoopbackName(
  'a name that resolves to a loopback address is refused as it resolves, before any connection, and allowed with --allow-url-cidr',
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const { recorder: local, port } = await recorder();
    seedConfigMap(api, graphAt(`http://${LOOPBACK_NAME}:${port}/fabric.json`));
    s.startInProcess(kubeconfig, { shippedInputPolicy: true });
    await eventSaying(
      api,
      'DiscoveryFailed',
      `GET http://${LOOPBACK_NAME}:${port}/fabric.json failed: ${LOOPBACK_NAME} resolves to 127.`,
      'which is a loopback address',
      '--allow-url-cidr',
    );
    assert.is(local.connections, 0, 'no connection reached the loopback listener');
    // The same name once the operator allows the network: the connection is made (the listener answers nothing).
    const allowed = new HttpGetClient({ insecureSkipVerify: false, addresses: new UrlAddressPolicy(['127.0.0.0/8']) });
    await allowed.get(`http://${LOOPBACK_NAME}:${port}/fabric.json`, '').catch(() => undefined);
    assert.is(local.connections, 1);
  },
);

test('a redirect from an allowed server to another loopback address or to a metadata address is refused before it is followed', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const { recorder: elsewhere, port: elsewherePort } = await recorder('127.0.0.2');
  let location = `http://127.0.0.2:${elsewherePort}/admin`;
  const redirector = createHttpServer((_req, res) => res.writeHead(302, { Location: location }).end());
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  try {
    const port = (redirector.address() as { port: number }).port;
    seedConfigMap(api, graphAt(`http://127.0.0.1:${port}/fabric.json`));
    // The operator allows the server's own address, 127.0.0.1/32, and nothing more.
    s.startInProcess(kubeconfig);
    await eventSaying(api, 'DiscoveryFailed', 'failed: 127.0.0.2 is a loopback address', '--allow-url-cidr');
    location = 'http://169.254.169.254/latest/meta-data/';
    await eventSaying(api, 'DiscoveryFailed', 'failed: 169.254.169.254 is a link-local address');
    assert.is(elsewhere.connections, 0, 'the redirect to 127.0.0.2 was never followed');
  } finally {
    await new Promise((resolve) => redirector.close(resolve));
  }
});

test('the executable refuses a graph URL and a UFM endpoint on loopback by default, connecting to neither', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const { recorder: local, port } = await recorder();
  seedConfigMap(api, graphAt(`http://127.0.0.1:${port}/fabric.json`));
  s.controller = await startControllerBinary({ kubeconfig, namespace: NS, shippedInputPolicy: true });
  await eventSaying(
    api,
    'DiscovererFailed',
    'config.url is refused: 127.0.0.1 is a loopback address',
    '--allow-url-cidr',
  );
  setDiscoveryConfig(api, ufmAt(`https://127.0.0.1:${port}`));
  await eventSaying(api, 'DiscovererFailed', 'config.endpoint is refused: 127.0.0.1 is a loopback address');
  if (LOOPBACK_NAME) {
    setDiscoveryConfig(api, graphAt(`http://${LOOPBACK_NAME}:${port}/fabric.json`));
    await eventSaying(api, 'DiscoveryFailed', `${LOOPBACK_NAME} resolves to 127.`, 'which is a loopback address');
  }
  assert.is(local.connections, 0, 'no connection reached the loopback listener');
});

test.run();
