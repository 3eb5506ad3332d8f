// docs/security.md §3 and §6: whoever answers as a fabric (a UFM, the server
// behind a graph URL) cannot make the controller repeat what it answered. A
// body that is not what the source reads (a token, a private key, an HTML
// page with a key in it, a metadata service's credentials), an error status
// with such a body or reason phrase: the error says what was found (its kind,
// its size, a line and column), and nothing of the body shows in the log at
// -v=10, an Event, a HyperNode or a metric. Run in this process and against
// the built executable.

import { createServer as createHttpServer } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GraphServer } from '../../testing/graph-server.ts';
import { TEST_CA, UfmServer } from '../../testing/ufm-server.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { NS, secretObject, seedConfigMap, seedUfmSecret, setDiscoveryConfig, ufmEntry } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { assertNoLeak, eventMessages, evidence, fakePrivateKey, fakeServiceAccountToken } from './leak-evidence.ts';

const s = session(test);
let graph: GraphServer | undefined;
test.after.each(async () => {
  await graph?.close();
  graph = undefined;
});

const eventSaying = (api: Parameters<typeof eventMessages>[0], reason: string, ...parts: string[]) =>
  s.converge(
    () => eventMessages(api, reason).find((m) => parts.every((p) => m.includes(p))),
    `a ${reason} Event saying ${parts.join(' … ')}`,
  );

/** The graph source reading `url` every second, trusting the stand-ins' CA from its Secret. */
const graphAt = (url: string) =>
  `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n    credentials:\n      secretRef: {name: inventory, namespace: ${NS}}\n    config:\n      url: "${url}"\n`;

/** A metadata service's answer: the node's cloud credentials, as JSON. */
const metadataCredentials = (secret: string) =>
  JSON.stringify({ Code: 'Success', AccessKeyId: 'ASIAFAKE', SecretAccessKey: secret, Token: secret });

test('a graph server answering a token, a private key, an HTML page, cloud credentials or a reason phrase leaks nothing: the error says what it found', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const token = fakeServiceAccountToken();
  const key = fakePrivateKey();
  graph = await new GraphServer().start();
  graph.token = 'inventory-token';
  api.store.create(
    secretObject('inventory', { token: 'inventory-token', 'ca.crt': TEST_CA }, { endpoints: [graph.url()] }),
  );
  graph.answer = { status: 200, body: token };
  seedConfigMap(api, graphAt(graph.url()));
  const run = s.startInProcess(kubeconfig, { verbosity: 10 });

  await eventSaying(api, 'DiscoveryFailed', 'is invalid', `got a string of ${Buffer.byteLength(token)} bytes`);
  graph.answer = { status: 200, body: key };
  await eventSaying(api, 'DiscoveryFailed', 'is invalid', `got a string of ${Buffer.byteLength(key.trim())} bytes`);
  graph.answer = { status: 200, body: `<html><body><p>key: ${token}</p>\n<!-- ${key} --></body></html>` };
  await eventSaying(api, 'DiscoveryFailed', 'not JSON or YAML (a string of', 'line 2, column 1');
  // JSON the source does not read: named by its first unknown keys, never by its values.
  graph.answer = { status: 200, body: metadataCredentials(token) };
  await eventSaying(api, 'DiscoveryFailed', 'the graph has unknown keys "Code", "AccessKeyId", "SecretAccessKey"');
  graph.answer = { status: 500, body: `internal error: ${token}` };
  await eventSaying(api, 'DiscoveryFailed', 'unexpected status code 500 Internal Server Error');
  // A server that puts the secret in its reason phrase (plain http, no token sent to it).
  const phrase = createHttpServer((_req, res) => res.writeHead(502, token.slice(0, 300)).end(token));
  await new Promise<void>((resolve) => phrase.listen(0, '127.0.0.1', resolve));
  try {
    const port = (phrase.address() as { port: number }).port;
    setDiscoveryConfig(
      api,
      `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n    config:\n      url: "http://127.0.0.1:${port}/g"\n`,
    );
    await eventSaying(api, 'DiscoveryFailed', 'unexpected status code 502 Bad Gateway');
  } finally {
    await new Promise((resolve) => phrase.close(resolve));
  }
  const seen = await evidence(api, run);
  assertNoLeak(token, seen, 'the controller');
  assertNoLeak(key, seen, 'the controller');
});

test('a UFM answering a non-JSON body, an error status with a body, or a secret in a field leaks nothing', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const token = fakeServiceAccountToken();
  const key = fakePrivateKey();
  const ufm = (s.ufm = await new UfmServer().start());
  seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
  ufm.answer = { kind: 'raw', body: token };
  seedConfigMap(
    api,
    `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { interval: '1s', insecureSkipVerify: true })}`,
  );
  const run = s.startInProcess(kubeconfig, { verbosity: 10 });

  await eventSaying(
    api,
    'DiscoveryFailed',
    'failed to decode response: the ports answer is not valid JSON: unexpected token',
  );
  ufm.answer = { kind: 'raw', body: `[${JSON.stringify({ tier: token })}]` };
  await eventSaying(api, 'DiscoveryFailed', 'cannot decode string into port [0].tier of type int');
  ufm.answer = { kind: 'raw', body: `[{"description": "Computer IB Port", ${key.trim()}` };
  await eventSaying(
    api,
    'DiscoveryFailed',
    'failed to decode response: the ports answer element [0] is not valid JSON: line 1, column 37',
  );
  ufm.answer = { kind: 'raw', status: 503, body: `<html>${token}</html>` };
  await eventSaying(api, 'DiscoveryFailed', 'unexpected status code: 503 Service Unavailable');
  const seen = await evidence(api, run);
  assertNoLeak(token, seen, 'the controller');
  assertNoLeak(key, seen, 'the controller');
});

test('the executable (-v=10) repeats nothing of a token a graph server or a UFM answers', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const token = fakeServiceAccountToken();
  graph = await new GraphServer().start();
  graph.token = 'inventory-token';
  graph.answer = { status: 200, body: token };
  api.store.create(
    secretObject('inventory', { token: 'inventory-token', 'ca.crt': TEST_CA }, { endpoints: [graph.url()] }),
  );
  seedConfigMap(api, graphAt(graph.url()));
  const run = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=10'] }));
  await eventSaying(api, 'DiscoveryFailed', `got a string of ${Buffer.byteLength(token)} bytes`);
  const ufm = (s.ufm = await new UfmServer().start());
  seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
  ufm.answer = { kind: 'raw', body: metadataCredentials(token) };
  setDiscoveryConfig(
    api,
    `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { interval: '1s', insecureSkipVerify: true })}`,
  );
  await eventSaying(api, 'DiscoveryFailed', 'failed to decode response: cannot decode object into a port list');
  assertNoLeak(token, await evidence(api, run), 'the executable');
  assert.ok(run.log().includes('failed to decode response'));
});

test.run();
