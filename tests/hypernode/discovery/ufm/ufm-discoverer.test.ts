import { RecordingProblems } from '../../../support/recording-problems.ts';
import { TEST_INPUT_POLICY } from '../../../support/input-policy.ts';
import { RecordingMetrics } from '../../../support/recording-metrics.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUfmDiscovererFactory, type UfmTuning } from '../../../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import { MAX_BODY_BYTES } from '../../../../src/hypernode/discovery/remote/http-client.ts';
import type { Discoverer, DiscoveryEntry, Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { realClock } from '../../../../src/kube/clock.ts';
import type { Channel } from '../../../../src/util/channel.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { FakeSecrets } from '../../../support/fake-secrets.ts';
import type { SecretAllows } from '../../../../testing/discovery-secret.ts';
import { computerPorts, OTHER_CA, TEST_CA, UfmServer, withUfmServers } from '../../../../testing/ufm-server.ts';
import { waitFor, within } from '../../../../testing/wait.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import type { Clock } from '../../../../src/kube/clock.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

const REF = { secretRef: { name: 'ufm-credentials', namespace: 'volcano-system' } };
const INTERVAL_MS = 60_000;
const entry = (config: Record<string, unknown>, credentials: DiscoveryEntry['credentials'] = REF): DiscoveryEntry => ({
  source: 'ufm',
  enabled: true,
  intervalMs: INTERVAL_MS,
  maxDeletePercent: 50,
  credentials,
  config,
});

interface Rig {
  server: UfmServer;
  secrets: FakeSecrets;
  /** What the rig's Secrets allow: the stand-in's endpoint, also with verification off. */
  allows: SecretAllows;
  lines: string[];
  /** The Node cache and the metrics every discoverer of the rig gets. */
  nodes: FakeInformer<NodeMeta>;
  metrics: RecordingMetrics;
  make(
    config?: Record<string, unknown>,
    tuning?: UfmTuning,
    credentials?: DiscoveryEntry['credentials'],
    clock?: Clock,
  ): Promise<Discoverer>;
}

async function withRig(fn: (rig: Rig) => Promise<void>): Promise<void> {
  const server = await new UfmServer().start();
  const secrets = new FakeSecrets();
  const allows: SecretAllows = { endpoints: [server.endpoint()], insecureSkipVerify: true };
  secrets.put('volcano-system', 'ufm-credentials', { username: 'admin', password: 'secret' }, allows);
  const { lines, logger } = capturingLogger();
  const started: Discoverer[] = [];
  const rig: Rig = {
    server,
    secrets,
    allows,
    lines,
    nodes: new FakeInformer<NodeMeta>(),
    metrics: new RecordingMetrics(),
    async make(config = { endpoint: server.endpoint() }, tuning = {}, credentials = REF, clock = realClock) {
      const factory = createUfmDiscovererFactory({ ca: TEST_CA, retryBaseMs: 20, timeoutMs: 5_000, ...tuning });
      const d = await factory(entry(config, credentials), {
        nodes: rig.nodes,
        hyperNodes: new FakeInformer(),
        secrets,
        clock,
        logger,
        workerErrors: unexpectedWorkerError,
        inputPolicy: TEST_INPUT_POLICY,
        problems: new RecordingProblems(logger),
        metrics: rig.metrics,
      });
      started.push(d);
      return d;
    },
  };
  try {
    await fn(rig);
  } finally {
    for (const d of started) await d.stop();
    await server.close();
  }
}

const next = (ch: Channel<Snapshot>) => within(ch.recv(), 10_000, 'a snapshot').then((r) => r.value!);

/** What is buffered right now, without waiting for more. */
async function buffered(ch: Channel<Snapshot>): Promise<Snapshot | undefined> {
  const ac = new AbortController();
  const p = ch.recv(ac.signal).then(
    (r) => r.value,
    () => undefined,
  );
  await new Promise((r) => setImmediate(r));
  ac.abort();
  return p;
}

const LABELS = { 'volcano.sh/network-topology-source': 'ufm' };
const members = (type: string, names: string[]) => names.map((name) => ({ type, selector: { exactMatch: { name } } }));

test('the UFM worked example: its snapshot from a real HTTPS exchange with basic auth', () =>
  withRig(async (rig) => {
    rig.server.answer = {
      kind: 'ports',
      ports: [
        ...computerPorts(['node0', 'node1', 'node2', 'node3'], ['leaf0', 'leaf1', 'leaf2', 'leaf3']),
        ...computerPorts(['node4', 'node7'], ['leaf4', 'leaf5', 'leaf6']),
        ...computerPorts(['node5', 'node6'], ['leaf4', 'leaf5', 'leaf6', 'leaf7']),
      ],
    };
    const d = await rig.make({ endpoint: `${rig.server.endpoint()}/` });
    const snap = await next(await d.start());
    assert.equal(snap, [
      {
        metadata: { name: 'leaf-hn-0', labels: LABELS },
        spec: { tier: 1, members: members('Node', ['node0', 'node1', 'node2', 'node3']) },
      },
      {
        metadata: { name: 'leaf-hn-1', labels: LABELS },
        spec: { tier: 1, members: members('Node', ['node4', 'node5', 'node6', 'node7']) },
      },
      {
        metadata: { name: 'spine-hn', labels: LABELS },
        spec: { tier: 2, members: members('HyperNode', ['leaf-hn-0', 'leaf-hn-1']) },
      },
    ]);
    const { at: _, ...first } = rig.server.requests[0]!;
    assert.equal(first, {
      method: 'GET',
      path: '/ufmRest/resources/ports',
      host: rig.server.endpoint().replace('https://', ''),
      authorization: `Basic ${b64('admin:secret')}`,
      accept: undefined,
    });
  }));

test('legacy mode: Computer hosts that match no Node are counted as uncovered and named once; a new Node brings the count to 0', () =>
  withRig(async (rig) => {
    const clock = new FakeClock();
    for (const name of ['n1', 'n2']) rig.nodes.apply({ metadata: { name } });
    rig.server.answer = { kind: 'ports', ports: computerPorts(['n1', 'n2', 'n3'], ['L1']) };
    const ch = await (await rig.make(undefined, {}, REF, clock)).start();
    const snap = await next(ch);
    assert.equal(
      snap[0]!.spec.members.map((m) => m.selector!.exactMatch!.name),
      ['n1', 'n2', 'n3'],
      'members as Volcano makes them',
    );
    assert.is(rig.metrics.uncovered.get('ufm'), 1, 'hypernode_uncovered_nodes');
    assert.is(rig.metrics.unmapped.get('ufm'), 1, 'hypernode_ufm_unmapped_hosts of the one fabric');
    await clock.advance(INTERVAL_MS);
    await next(ch);
    const named = rig.lines.filter((l) =>
      l.includes('UFM hosts that match no Node are leaf members that select nothing'),
    );
    assert.is(named.length, 1, 'named once over two runs');
    assert.match(named[0]!, /count=1.*hosts="?n3/);
    rig.nodes.apply({ metadata: { name: 'n3' } });
    await clock.advance(INTERVAL_MS);
    await next(ch);
    assert.is(rig.metrics.uncovered.get('ufm'), 0);
  }));

const failures: [string, UfmServer['answer'], RegExp][] = [
  ['a 500', { kind: 'status', status: 500 }, /unexpected status code: 500 Internal Server Error/],
  ['a malformed body', { kind: 'raw', body: '[{"description": "Computer' }, /failed to decode response/],
  [
    'a string tier',
    { kind: 'raw', body: '[{"description":"Computer IB Port","tier":"1","system_name":"n","peer_node_name":"L"}]' },
    /failed to decode response: .*tier/,
  ],
  ['an object instead of a list', { kind: 'raw', body: '{"ports": []}' }, /failed to decode response/],
  ['an empty list', { kind: 'ports', ports: [] }, /UFM reported no Computer ports/],
  ['null', { kind: 'ports', ports: null }, /UFM reported no Computer ports/],
  [
    'only switch ports',
    { kind: 'ports', ports: computerPorts(['sw'], ['L1'], 'Switch IB Port') },
    /UFM reported no Computer ports/,
  ],
];
for (const [what, answer, logged] of failures) {
  test(`${what} produces no snapshot, is retried, and recovers`, () =>
    withRig(async (rig) => {
      rig.server.answer = answer;
      const ch = await (await rig.make()).start();
      await waitFor(() => rig.server.requests.length >= 2, { what: 'a retry before the next interval tick' });
      assert.is(await buffered(ch), undefined, 'nothing emitted, so nothing gets deleted');
      assert.ok(
        rig.lines.some((l) => logged.test(l)),
        `log line ${logged}: ${rig.lines.join('')}`,
      );
      rig.server.answer = { kind: 'ports', ports: computerPorts(['n1'], ['L1']) };
      assert.is((await next(ch)).length, 2);
    }));
}

test('bad credentials (401) produce no snapshot; a rotated Secret is picked up on the next run', () =>
  withRig(async (rig) => {
    rig.server.answer = { kind: 'ports', ports: computerPorts(['n1'], ['L1']) };
    rig.server.password = 'rotated';
    const ch = await (await rig.make()).start();
    await waitFor(() => rig.lines.some((l) => l.includes('unexpected status code: 401 Unauthorized')), {
      what: '401 logged',
    });
    assert.is(await buffered(ch), undefined);
    rig.secrets.put('volcano-system', 'ufm-credentials', { username: 'admin', password: 'rotated' }, rig.allows);
    assert.is((await next(ch)).length, 2);
    assert.is(rig.server.requests.at(-1)!.authorization, `Basic ${b64('admin:rotated')}`);
  }));

test('an untrusted server certificate fails the run; insecureSkipVerify: true accepts it', () =>
  withRig(async (rig) => {
    rig.server.answer = { kind: 'ports', ports: computerPorts(['n1'], ['L1']) };
    const strict = await (await rig.make(undefined, { ca: OTHER_CA })).start();
    await waitFor(() => rig.lines.some((l) => /Failed to fetch UFM data.*failed to send request/.test(l)), {
      what: 'TLS failure logged',
    });
    assert.is(await buffered(strict), undefined);
    assert.is(rig.server.requests.length, 0, 'no request got through');
    const lax = await (
      await rig.make({ endpoint: rig.server.endpoint(), insecureSkipVerify: true }, { ca: OTHER_CA })
    ).start();
    assert.is((await next(lax)).length, 2);
    assert.ok(rig.lines.some((l) => l.includes('WARNING: TLS certificate verification is disabled')));
  }));

test('insecureSkipVerify as a quoted string means false, and says so', () =>
  withRig(async (rig) => {
    await (await rig.make({ endpoint: rig.server.endpoint(), insecureSkipVerify: 'true' }, { ca: OTHER_CA })).start();
    await waitFor(() => rig.lines.some((l) => l.includes('failed to send request')), { what: 'TLS failure logged' });
    assert.not.ok(rig.lines.some((l) => l.includes('WARNING: TLS')));
    assert.ok(rig.lines.some((l) => l.includes('config.insecureSkipVerify is not a YAML boolean')));
  }));

test('an unreachable UFM produces no snapshot', () =>
  withRig(async (rig) => {
    const gone = await new UfmServer().start();
    const endpoint = gone.endpoint();
    await gone.close();
    rig.secrets.put(
      'volcano-system',
      'ufm-credentials',
      { username: 'admin', password: 'secret' },
      {
        endpoints: [endpoint],
      },
    );
    const ch = await (await rig.make({ endpoint })).start();
    await waitFor(
      () =>
        rig.lines.filter((l) => /Failed to fetch UFM data.*failed to send request: .*ECONNREFUSED/.test(l)).length >= 2,
      { what: 'refused twice' },
    );
    assert.is(await buffered(ch), undefined);
  }));

test('a server that never answers is cut off by the deadline', () =>
  withRig(async (rig) => {
    rig.server.answer = { kind: 'hang' };
    await (await rig.make(undefined, { timeoutMs: 200 })).start();
    await waitFor(() => rig.lines.some((l) => /failed to send request: .*Timeout/.test(l)), {
      what: 'deadline logged',
    });
  }));

for (const announce of [false, true]) {
  test(`a body over the size limit fails the run with an error naming the limit and the URL (${announce ? 'Content-Length' : 'chunked'})`, () =>
    withRig(async (rig) => {
      rig.server.answer = { kind: 'huge', bytes: 256 * 1024, announce };
      const ch = await (await rig.make(undefined, { maxBodyBytes: 64 * 1024 })).start();
      const expected = `failed to read response: the answer of ${rig.server.endpoint()}/ufmRest/resources/ports is larger than the body limit of 65536 bytes`;
      await waitFor(() => rig.lines.some((l) => l.includes(expected)), { what: 'size error' });
      assert.is(await buffered(ch), undefined);
    }));
}

test('the default body limit is 64 MiB', () => {
  assert.is(MAX_BODY_BYTES, 64 * 1024 * 1024);
});

for (const { what, status, plain } of [
  { what: 'to another port of the same host', status: 307, plain: false },
  { what: 'from https to http on the same host (no password in cleartext)', status: 302, plain: true },
]) {
  test(`a redirect ${what} drops the Authorization header`, () =>
    withRig((rig) =>
      withUfmServers(
        1,
        async ([other]) => {
          other!.answer = { kind: 'ports', ports: computerPorts(['n1'], ['L1']) };
          rig.server.answer = {
            kind: 'redirect',
            status,
            location: `${other!.endpoint()}/ufmRest/resources/ports`,
            ports: [],
          };
          await (await rig.make()).start();
          await waitFor(() => other!.requests.length >= 1, { what: 'the redirected request' });
          assert.is(rig.server.requests[0]!.authorization, `Basic ${b64('admin:secret')}`);
          assert.is(other!.requests[0]!.authorization, undefined, 'credentials stay with the configured endpoint');
        },
        { plain },
      ),
    ));
}

test('an http:// endpoint whose Secret consents to it works but is warned about once per start (log line and Warning Event)', () =>
  withRig(async (rig) => {
    const plain = await new UfmServer({ plain: true }).start();
    try {
      rig.secrets.put(
        'volcano-system',
        'ufm-credentials',
        { username: 'admin', password: 'secret' },
        {
          endpoints: [plain.endpoint()],
          plainHttp: true,
        },
      );
      plain.answer = { kind: 'status', status: 500 };
      const d = await rig.make({ endpoint: plain.endpoint() });
      const problems = (d as unknown as { opts: { problems: RecordingProblems } }).opts.problems;
      const ch = await d.start();
      await waitFor(() => plain.requests.length >= 3, { what: 'several polls (failures retry quickly)' });
      plain.answer = { kind: 'ports', ports: computerPorts(['n1'], ['L1']) };
      assert.is((await next(ch)).length, 2, 'the endpoint still works');
      assert.is(plain.requests.at(-1)!.authorization, `Basic ${b64('admin:secret')}`);
      assert.equal(problems.warnings, [
        `CleartextCredentials: WARNING: the UFM endpoint ${plain.endpoint()}/ufmRest/resources/ports is plain http, so the UFM username and password are sent unencrypted on every poll; use an https:// endpoint`,
      ]);
      assert.is(rig.lines.filter((l) => l.includes('sent unencrypted')).length, 1);
    } finally {
      await plain.close();
    }
  }));

test('binary Secret values are sent as raw bytes in the Basic header', () =>
  withRig(async (rig) => {
    const username = Buffer.from([0x61, 0xc3, 0x28]); // "a" then an invalid UTF-8 sequence
    const password = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    rig.secrets.put('volcano-system', 'ufm-credentials', {}, rig.allows);
    const granted = rig.secrets.store.get('volcano-system/ufm-credentials')!;
    rig.secrets.store.set('volcano-system/ufm-credentials', {
      ...granted,
      data: { username: username.toString('base64'), password: password.toString('base64') },
    });
    await (await rig.make()).start();
    await waitFor(() => rig.server.requests.length >= 1, { what: 'a request' });
    const expected = Buffer.concat([username, Buffer.from(':'), password]).toString('base64');
    assert.is(rig.server.requests[0]!.authorization, `Basic ${expected}`);
  }));

test('a Secret emptied after start fails the run without sending a request', () =>
  withRig(async (rig) => {
    rig.server.answer = { kind: 'status', status: 503 };
    await (await rig.make()).start();
    await waitFor(() => rig.server.requests.length >= 1, { what: 'a first run with the good Secret' });
    rig.secrets.put('volcano-system', 'ufm-credentials', { username: 'admin', password: '' }, rig.allows);
    await waitFor(
      () => rig.lines.some((l) => l.includes('password is empty in secret volcano-system/ufm-credentials')),
      { what: 'empty password refused' },
    );
    assert.ok(
      rig.server.requests.every((r) => r.authorization === `Basic ${b64('admin:secret')}`),
      'no request with an empty password',
    );
  }));

test('unknown ufm config keys are warned about by name; a misspelled endpoint names the typo', () =>
  withRig(async (rig) => {
    await rig.make({ endpoint: rig.server.endpoint(), insecureSkipVerfy: true });
    assert.ok(
      rig.lines.some((l) => /unknown keys.*where="ufm config" unknown=\["insecureSkipVerfy"\]/.test(l)),
      rig.lines.join(''),
    );
    await rig.make({ endpont: rig.server.endpoint() }).then(
      () => assert.unreachable('should reject'),
      (err: Error) =>
        assert.match(
          err.message,
          /config\.endpoint must be a string .* got nothing \(the config has "endpont"; misspelled\?\)/,
        ),
    );
  }));

test('a same-host redirect keeps the Authorization header', () =>
  withRig(async (rig) => {
    rig.server.answer = {
      kind: 'redirect',
      status: 307,
      location: '/final/ufmRest/resources/ports',
      ports: computerPorts(['n1'], ['L1']),
    };
    const ch = await (await rig.make()).start();
    assert.is((await next(ch)).length, 2);
    assert.equal(
      rig.server.requests.map((r) => [r.path, r.authorization]),
      [
        ['/ufmRest/resources/ports', `Basic ${b64('admin:secret')}`],
        ['/final/ufmRest/resources/ports', `Basic ${b64('admin:secret')}`],
      ],
    );
  }));

test('a redirect to another host drops the Authorization header', () =>
  withRig(async (rig) => {
    const location = `${rig.server.endpoint('localhost')}/final/ufmRest/resources/ports`;
    rig.server.answer = { kind: 'redirect', location, ports: computerPorts(['n1'], ['L1']) };
    const ch = await (await rig.make()).start();
    await waitFor(() => rig.lines.some((l) => l.includes('unexpected status code: 401')), {
      what: '401 after the redirect',
    });
    const hop = rig.server.requests[1]!;
    assert.ok(hop.host.startsWith('localhost:'));
    assert.is(hop.authorization, undefined);
    assert.is(await buffered(ch), undefined);
  }));

test('more than 10 redirects fail the run', () =>
  withRig(async (rig) => {
    rig.server.answer = { kind: 'redirect', location: '/ufmRest/resources/ports', ports: [] };
    await (await rig.make(undefined, { retryBaseMs: 600_000 })).start();
    await waitFor(() => rig.lines.some((l) => l.includes('stopped after 10 redirects')), { what: 'redirect limit' });
    assert.is(rig.server.requests.length, 10, 'as Go: the original request and 9 followed redirects');
  }));

test('construction: a missing or non-string endpoint is a clear error, not a crash', () =>
  withRig(async (rig) => {
    for (const config of [{}, { endpoint: null }, { endpoint: 8080 }, { url: 'https://x' }]) {
      try {
        await rig.make(config);
        assert.unreachable('should reject');
      } catch (err) {
        assert.match((err as Error).message, /config\.endpoint must be a string/);
      }
    }
  }));

test('start: an empty endpoint and missing credentials are rejected with the Go texts', () =>
  withRig(async (rig) => {
    await rig
      .make({ endpoint: '' })
      .then((d) => d.start())
      .then(
        () => assert.unreachable('should reject'),
        (err) => assert.is(err.message, 'UFM endpoint is not configured'),
      );
    await rig
      .make(undefined, undefined, {})
      .then((d) => d.start())
      .then(
        () => assert.unreachable('should reject'),
        (err) => assert.is(err.message, 'UFM authentication credentials are not configured'),
      );
  }));

test('construction: Secret problems are logged with the Go texts and start then refuses', () =>
  withRig(async (rig) => {
    rig.secrets.put('volcano-system', 'no-user', { password: 'p' }, rig.allows);
    rig.secrets.put('volcano-system', 'no-pass', { username: 'u' }, rig.allows);
    const cases: [string, string][] = [
      ['missing', 'failed to get secret volcano-system/missing: secrets "missing" not found'],
      ['no-user', 'username not found in secret volcano-system/no-user'],
      ['no-pass', 'password not found in secret volcano-system/no-pass'],
    ];
    for (const [name, text] of cases) {
      const d = await rig.make(undefined, undefined, { secretRef: { name, namespace: 'volcano-system' } });
      assert.ok(
        rig.lines.some((l) => l.includes('Failed to get credentials from secret') && l.includes(JSON.stringify(text))),
        text,
      );
      await d.start().then(
        () => assert.unreachable('should reject'),
        (err) => assert.match(err.message, /credentials are not configured/),
      );
    }
  }));

test('schedule: failures retry after 5 s doubling, never past the next tick; success waits for the tick', () =>
  withRig(async (rig) => {
    const clock = new FakeClock();
    rig.server.answer = { kind: 'status', status: 503 };
    const ch = await (await rig.make(undefined, { retryBaseMs: 5_000 }, REF, clock)).start();
    const parkedAfter = (n: number) =>
      waitFor(() => rig.server.requests.length === n && clock.pending() === 1, {
        what: `request ${n} done and the loop waiting`,
      });
    /** The n-th request happens exactly `wait` ms after the previous one, not a millisecond sooner. */
    const runsAfter = async (wait: number, n: number) => {
      await clock.advance(wait - 1);
      assert.is(rig.server.requests.length, n - 1, `not before ${wait} ms`);
      assert.is(clock.pending(), 1, 'still waiting');
      await clock.advance(1);
      await parkedAfter(n);
    };
    await parkedAfter(1); // t = 0
    // t = 5 s, 15 s, 35 s, then the tick at 60 s comes before the 40 s backoff (75 s).
    for (const [wait, n] of [
      [5_000, 2],
      [10_000, 3],
      [20_000, 4],
      [25_000, 5],
    ] as const)
      await runsAfter(wait, n);
    rig.server.answer = { kind: 'ports', ports: computerPorts(['n1'], ['L1']) };
    await runsAfter(INTERVAL_MS, 6); // the 80 s backoff is capped by the tick at 120 s
    assert.is((await next(ch)).length, 2);
    await runsAfter(INTERVAL_MS, 7); // after a success: the next tick
    assert.is((await next(ch)).length, 2);
  }));

test('stop closes the stream', () =>
  withRig(async (rig) => {
    rig.server.answer = { kind: 'ports', ports: computerPorts(['n1'], ['L1']) };
    const d = await rig.make();
    const ch = await d.start();
    await next(ch);
    await d.stop();
    const end = await within(ch.recv(), 5_000, 'close after stop');
    assert.ok(end.done);
  }));

test.run();
