// UFM failure modes end to end (runServer in-process, chart RBAC, the UFM
// stand-in over HTTPS): once the ufm HyperNodes exist, a UFM that answers 401,
// malformed JSON, `[]` or `null`, presents a certificate from an untrusted CA,
// or is gone altogether deletes nothing and writes nothing, and each failure
// is logged with its cause (docs/differences-from-go.md item 3). A rotated credentials
// Secret applies without a restart; recovery then applies.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seriesValue } from '../../testing/prometheus-text.ts';
import { UfmServer, type UfmAnswer } from '../../testing/ufm-server.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import {
  NS,
  UFM_WORKED_EXAMPLE,
  assertNoForbidden,
  describeWrites,
  answeredHyperNodeWrites,
  hyperNodes,
  nodeCount,
  seedConfigMap,
  secretObject,
  seedUfmSecret,
  setDiscoveryConfig,
  UFM_SECRET,
  ufmEntry,
  ufmTree,
  workedExamplePorts,
} from './cluster.ts';
import { session } from './session.ts';

/** The shortest poll period the discoverer honours, so that every failure mode shows within seconds. */
const INTERVAL = '1s';

const s = session(test);
const converge = s.converge.bind(s);

test('UFM unreachable, 401, untrusted certificate, malformed JSON, [] and null each leave every ufm HyperNode in place and are logged', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
  seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
  // The test process does not trust the stand-in's CA: the good configuration skips verification.
  const trusting = `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { interval: INTERVAL, insecureSkipVerify: true })}`;
  seedConfigMap(api, trusting);
  const controller = s.startInProcess(kubeconfig);
  // Legacy mode reports fabric health too: each HyperNode's first FabricHealthy write belongs to the good start.
  const fabricHealthy = (hn: HyperNode) =>
    hn.status?.conditions?.some((c) => c.type === 'FabricHealthy' && c.status === 'True');
  await converge(
    () => hyperNodes(api, 'ufm').length === 3 && hyperNodes(api).every((hn) => nodeCount(hn) > 0 && fabricHealthy(hn)),
    'the three ufm HyperNodes of the UFM worked example, FabricHealthy',
  );
  const uids = new Map(hyperNodes(api).map((hn) => [hn.metadata.name, hn.metadata.uid]));
  api.requests.clear();

  /**
   * Switches the UFM answer, then waits until a request made after the switch
   * has been fully handled (the loop is sequential: the second request after
   * the switch starts only once the first one's outcome is logged).
   */
  async function failWith(what: string, change: () => void, expected: RegExp): Promise<void> {
    const mark = controller.log().length;
    const asked = ufm.requests.length;
    change();
    await converge(
      () => ufm.requests.length >= asked + 2 && expected.test(controller.log().slice(mark)),
      `${what}: a log line matching ${expected}`,
    );
    assert.equal(ufmTree(api), UFM_WORKED_EXAMPLE, `${what}: ufm HyperNodes unchanged`);
  }
  const answer = (a: UfmAnswer) => () => void (ufm.answer = a);

  await failWith(
    '401',
    () => void (ufm.password = 'rotated'),
    /Failed to fetch UFM data.*unexpected status code: 401 Unauthorized/,
  );
  // The Secret is read before every run: rotating it fixes the source without a restart.
  seedUfmSecret(api, ufm.endpoint(), ufm.username, 'rotated');
  const rotated = `Basic ${Buffer.from(`${ufm.username}:rotated`).toString('base64')}`;
  await converge(
    () => ufm.requests.some((r) => r.authorization === rotated),
    'a UFM request with the rotated password',
  );
  await failWith(
    'malformed JSON',
    answer({ kind: 'raw', body: '[{"description": "Computer IB Port", "system_name": ' }),
    /Failed to fetch UFM data.*failed to decode response/,
  );
  await failWith(
    '[]',
    answer({ kind: 'ports', ports: [] }),
    /UFM reported no Computer ports; keeping the existing ufm HyperNodes/,
  );
  await failWith(
    'null',
    answer({ kind: 'raw', body: 'null' }),
    /UFM reported no Computer ports; keeping the existing ufm HyperNodes/,
  );
  await failWith(
    '500',
    answer({ kind: 'status', status: 500 }),
    /Failed to fetch UFM data.*unexpected status code: 500 Internal Server Error/,
  );
  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };

  // Verification on (the source restarts): the stand-in's certificate chains to a CA this process does not trust.
  let mark = controller.log().length;
  setDiscoveryConfig(api, `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { interval: INTERVAL })}`);
  await converge(
    () =>
      /Failed to fetch UFM data.*failed to send request: .*(certificate|self.signed|verify)/i.test(
        controller.log().slice(mark),
      ),
    'a TLS verification failure in the log',
  );
  assert.equal(ufmTree(api), UFM_WORKED_EXAMPLE, 'untrusted certificate: ufm HyperNodes unchanged');

  // Back to a working configuration, then UFM goes away.
  setDiscoveryConfig(api, trusting);
  mark = controller.log().length;
  await ufm.close();
  s.ufm = undefined;
  await converge(
    () =>
      (
        controller
          .log()
          .slice(mark)
          .match(/Failed to fetch UFM data.*failed to send request: .*ECONNREFUSED/g) ?? []
      ).length >= 2,
    'two refused connections in the log',
  );
  assert.equal(ufmTree(api), UFM_WORKED_EXAMPLE, 'unreachable: ufm HyperNodes unchanged');

  assert.equal(
    new Map(hyperNodes(api).map((hn) => [hn.metadata.name, hn.metadata.uid])),
    uids,
    'same objects throughout',
  );
  assert.equal(
    describeWrites(await answeredHyperNodeWrites(api)),
    [],
    'no HyperNode write (in particular no delete) while UFM failed',
  );
  assert.equal(hyperNodes(api).map(nodeCount).sort(), [2, 4, 4]);
  // Visible beyond the log: one Warning Event on the ConfigMap per distinct error, every failed run counted.
  type Ev = { type: string; reason: string; message: string; involvedObject: { kind: string } };
  const failedEvents = (api.store.list('events', NS) as unknown as Ev[]).filter(
    (e) => e.type === 'Warning' && e.reason === 'DiscoveryFailed' && e.involvedObject.kind === 'ConfigMap',
  );
  for (const cause of [
    '401 Unauthorized',
    'failed to decode response',
    'no Computer ports',
    '500 Internal Server Error',
    'ECONNREFUSED',
  ]) {
    assert.ok(
      failedEvents.some((e) => e.message.includes(cause)),
      `a DiscoveryFailed Event naming ${cause}: ${failedEvents.map((e) => e.message).join(' | ')}`,
    );
  }
  const failures = seriesValue(await controller.metrics(), 'hypernode_discovery_failures_total', { source: 'ufm' });
  assert.ok(
    failures >= failedEvents.length,
    `hypernode_discovery_failures_total{source="ufm"} = ${failures} counts every failed run`,
  );
  assertNoForbidden(api);
});

test('a UFM failing from the start creates nothing; its first good answer creates the HyperNodes of the UFM worked example', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.answer = { kind: 'status', status: 503 };
  seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
  seedConfigMap(
    api,
    `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { interval: INTERVAL, insecureSkipVerify: true })}`,
  );
  const controller = s.startInProcess(kubeconfig);
  await converge(() => /unexpected status code: 503 Service Unavailable/.test(controller.log()), 'the 503 in the log');
  assert.equal(hyperNodes(api), [], 'nothing created from a failed fetch');

  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
  await converge(() => hyperNodes(api, 'ufm').length === 3, 'the ufm HyperNodes once UFM answers');
  assert.equal(ufmTree(api), UFM_WORKED_EXAMPLE);
  assertNoForbidden(api);
});

test('a plain-http UFM endpoint whose Secret consents to it works but is warned about once per start: a log line and a CleartextCredentials Warning Event', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const ufm = (s.ufm = await new UfmServer({ plain: true }).start());
  ufm.answer = { kind: 'status', status: 503 }; // failing runs retry within seconds, so several polls happen quickly
  const credentials = { username: ufm.username, password: ufm.password };
  api.store.apply(secretObject(UFM_SECRET, credentials, { endpoints: [ufm.endpoint()], plainHttp: true }));
  seedConfigMap(api, `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { interval: INTERVAL })}`);
  const controller = s.startInProcess(kubeconfig);
  await converge(() => ufm.requests.length >= 2, 'two polls of the plain-http UFM');
  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
  await converge(() => hyperNodes(api, 'ufm').length === 3, 'the ufm HyperNodes: the endpoint still works');
  assert.is(
    controller.log().match(/sent unencrypted on every poll/g)?.length,
    1,
    'one log line per start, not per poll',
  );
  type Ev = { type: string; reason: string; message: string; involvedObject: { kind: string } };
  const cleartext = () =>
    (api.store.list('events', NS) as unknown as Ev[]).filter(
      (e) => e.type === 'Warning' && e.reason === 'CleartextCredentials' && e.involvedObject.kind === 'ConfigMap',
    );
  await converge(() => cleartext().length === 1, 'a CleartextCredentials Warning Event on the ConfigMap');
  assert.match(
    cleartext()[0]!.message,
    new RegExp(
      `Discovery source "ufm": WARNING: the UFM endpoint ${ufm.endpoint()}/ufmRest/resources/ports is plain http`,
    ),
  );
  assertNoForbidden(api);
});

test.run();
