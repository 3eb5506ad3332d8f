// Property tests of the UFM source: answers that are valid port lists (with
// nulls, odd strings, extra fields and huge arrays) or broken ones (truncated
// JSON, wrong types, not a list, garbage) are fed to the parsing layer and
// served by the UFM stand-in to a running discoverer. The run loop never
// throws, a broken answer or one without Computer ports publishes nothing
// (so nothing is deleted), and a valid answer yields exactly the leaf/spine
// HyperNodes that an independent model of the grouping predicts.

import { TEST_INPUT_POLICY } from '../../../support/input-policy.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { decodePorts } from '../../../../src/hypernode/discovery/ufm/legacy-ports.ts';
import { buildSnapshot } from '../../../../src/hypernode/discovery/ufm/legacy-topology.ts';
import { createUfmDiscovererFactory } from '../../../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import type { Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import { realClock } from '../../../../src/kube/clock.ts';
import { nullLogger } from '../../../../src/log.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { propertyParameters } from '../../../support/property.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { TEST_CA, UfmServer } from '../../../../testing/ufm-server.ts';
import { discoverySecret } from '../../../../testing/discovery-secret.ts';
import { waitFor } from '../../../../testing/wait.ts';
import { memberNames } from '../../../../testing/hypernode-members.ts';
import { fabricName } from '../../../../src/hypernode/model/fabric-names.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Link {
  node: string;
  leaf: string;
  computer: boolean;
}

const oddName = fc.oneof(
  fc.constantFrom('nöde-ü', 'a"b\\c', 'tab\tname', '🙂', 'x'.repeat(300), '\u2028'),
  fc.string({ minLength: 1, maxLength: 12 }),
);
const nodeName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7') },
  { weight: 1, arbitrary: oddName },
);
const leafName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('L0', 'L1', 'L2', 'L3', 'L4') },
  { weight: 1, arbitrary: oddName },
);
const link: fc.Arbitrary<Link> = fc.record({ node: nodeName, leaf: leafName, computer: fc.boolean() });

/** A UFM 6 port object for `l`, with fields the discoverer ignores and optional key-case changes. */
function portJson(l: Link, upper: boolean): Json {
  const port: Record<string, Json> = {
    description: l.computer ? 'Computer IB Port' : 'Switch IB Port',
    number: 1,
    physical_state: 'Link Up',
    tier: l.computer ? 1 : 2,
    enabled_speed: ['HDR', 'NDR'],
    node_description: `${l.node} mlx5_0`,
    system_name: l.node,
    peer_node_name: l.leaf,
    system_mirroring_template: false,
  };
  // Go's decoder matches member names case-insensitively.
  return upper ? Object.fromEntries(Object.entries(port).map(([k, v]) => [k.toUpperCase(), v])) : port;
}

/**
 * What the grouping must produce: connected (node, leaf) components of Computer ports, ordered by smallest leaf, with
 * names as model/fabric-names.ts keeps them.
 */
function model(links: readonly (Link | null)[]): { leaves: string[][]; spine: string[] } | 'nothing' {
  // Names are kept as the fabric-wide rule keeps them: a name with a control character as hex, a long one cut.
  const computer = links
    .filter((l): l is Link => l !== null && l.computer)
    .map((l) => ({ ...l, node: fabricName(l.node), leaf: fabricName(l.leaf) }));
  if (computer.length === 0) return 'nothing';
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    while (parent.get(x) !== x) x = parent.get(x)!;
    return x;
  };
  for (const l of computer) {
    for (const id of [`L:${l.leaf}`, `N:${l.node}`]) if (!parent.has(id)) parent.set(id, id);
    parent.set(find(`L:${l.leaf}`), find(`N:${l.node}`));
  }
  const byRoot = new Map<string, { leaves: string[]; nodes: Set<string> }>();
  for (const l of computer) {
    const root = find(`N:${l.node}`);
    const g = byRoot.get(root) ?? { leaves: [], nodes: new Set<string>() };
    g.leaves.push(l.leaf);
    g.nodes.add(l.node);
    byRoot.set(root, g);
  }
  const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const groups = [...byRoot.values()].map((g) => ({
    first: g.leaves.sort(bytes)[0]!,
    nodes: [...g.nodes].sort(bytes),
  }));
  groups.sort((a, b) => bytes(a.first, b.first));
  return { leaves: groups.map((g) => g.nodes), spine: groups.map((_, i) => `leaf-hn-${i}`) };
}

/** The snapshot in the model's terms. */
function shape(snapshot: Snapshot): { leaves: string[][]; spine: string[] } {
  const leaves = snapshot.filter((hn) => hn.metadata.name.startsWith('leaf-hn-'));
  leaves.forEach((hn, i) => assert.is(hn.metadata.name, `leaf-hn-${i}`));
  const spine = snapshot.at(-1)!;
  assert.is(spine.metadata.name, 'spine-hn');
  assert.is(spine.spec?.tier, 2);
  assert.is(snapshot.length, leaves.length + 1);
  return { leaves: leaves.map(memberNames), spine: memberNames(spine) };
}

interface Answer {
  body: string;
  expect: ReturnType<typeof model> | 'broken';
  what: string;
}

const validAnswer: fc.Arbitrary<Answer> = fc
  .tuple(
    fc.array(fc.option(link, { freq: 8 }), { maxLength: 30 }),
    fc.boolean(),
    fc.constantFrom('', ' \n', '\n{"trailing": "ignored"}'),
  )
  .map(([links, upper, tail]) => ({
    body: JSON.stringify(links.map((l) => (l === null ? null : portJson(l, upper)))) + tail,
    expect: model(links),
    what: 'valid',
  }));

/** A huge array: many switch ports (or nulls) around one Computer port, or none. */
const hugeAnswer: fc.Arbitrary<Answer> = fc
  .tuple(fc.integer({ min: 5_000, max: 20_000 }), fc.boolean(), fc.boolean())
  .map(([n, withComputer, nulls]) => {
    const filler = nulls ? 'null' : JSON.stringify(portJson({ node: 'sw', leaf: 'spine', computer: false }, false));
    const links: (Link | null)[] = withComputer ? [{ node: 'n0', leaf: 'L0', computer: true }] : [];
    const items = Array.from({ length: n }, () => filler);
    if (withComputer) items.splice(n >> 1, 0, JSON.stringify(portJson(links[0]!, false)));
    return { body: `[${items.join(',')}]`, expect: model(links), what: 'huge' };
  });

const wrongTypes: fc.Arbitrary<[string, Json]> = fc.oneof(
  fc.constantFrom<[string, Json]>(
    ['tier', '1'],
    ['tier', 1.5],
    ['tier', true],
    ['system_name', 7],
    ['peer_node_name', ['L0']],
    ['description', { a: 1 }],
    ['node_description', false],
  ),
);
const brokenAnswer: fc.Arbitrary<Answer> = fc.oneof(
  // truncated JSON: a compact non-empty array cut anywhere before its end
  fc.tuple(fc.array(link, { minLength: 1, maxLength: 10 }), fc.nat()).map(([links, cut]) => {
    const full = JSON.stringify(links.map((l) => portJson(l, false)));
    return { body: full.slice(0, cut % full.length), expect: 'broken' as const, what: 'truncated' };
  }),
  // one wrong-typed field in one port
  fc.tuple(fc.array(link, { minLength: 1, maxLength: 10 }), fc.nat(), wrongTypes).map(([links, at, [field, value]]) => {
    const ports = links.map((l) => portJson(l, false) as Record<string, Json>);
    ports[at % ports.length]![field] = value;
    return { body: JSON.stringify(ports), expect: 'broken' as const, what: 'wrong type' };
  }),
  // not a list of ports
  fc
    .constantFrom(
      '{"ports": []}',
      '"ports"',
      '42',
      'true',
      '[1, 2]',
      '["Computer"]',
      '[[]]',
      '',
      '   ',
      'not json',
      '<html>502 Bad Gateway</html>',
      '\u0000\u0001',
    )
    .map((body) => ({
      body,
      expect: 'broken' as const,
      what: 'not a list',
    })),
  fc
    .string({ maxLength: 40 })
    .filter((s) => {
      // Only the first JSON value counts (as in Go), so "[]x" or "null x" is a valid empty answer.
      if (/^\s*(\[|null)/.test(s)) return false;
      try {
        const v = JSON.parse(s);
        return !Array.isArray(v) && v !== null;
      } catch {
        return true;
      }
    })
    .map((body) => ({ body, expect: 'broken' as const, what: 'garbage' })),
);

const anyAnswer = fc.oneof(
  { weight: 4, arbitrary: validAnswer },
  { weight: 4, arbitrary: brokenAnswer },
  { weight: 1, arbitrary: hugeAnswer },
  { weight: 1, arbitrary: fc.constant<Answer>({ body: 'null', expect: 'nothing', what: 'null' }) },
);

test('parsing: a broken answer is a clear error; a valid one yields the modelled leaf/spine HyperNodes or nothing', () => {
  fc.assert(
    fc.property(anyAnswer, (a) => {
      let snapshot: Snapshot;
      try {
        snapshot = buildSnapshot(decodePorts(a.body), nullLogger);
      } catch (err) {
        assert.instance(err, Error);
        assert.is(a.expect, 'broken', `${a.what}: ${(err as Error).message}`);
        return;
      }
      assert.is.not(a.expect, 'broken', `${a.what} decoded`);
      if (a.expect === 'nothing') assert.equal(snapshot, []);
      else assert.equal(shape(snapshot), a.expect);
    }),
    propertyParameters(),
  );
});

test('run loop against the stand-in: never throws, publishes nothing for a broken or empty answer, the model for a valid one', async () => {
  const server = await new UfmServer().start();
  const escaped: unknown[] = [];
  const onUnhandled = (err: unknown) => void escaped.push(err);
  process.on('unhandledRejection', onUnhandled);
  const factory = createUfmDiscovererFactory({ ca: TEST_CA, retryBaseMs: 60_000, timeoutMs: 5_000 });
  const secrets = {
    namespace: 'ns',
    get: async () =>
      discoverySecret(
        'ns',
        'ufm',
        { username: server.username, password: server.password },
        {
          endpoints: [server.endpoint()],
        },
      ),
  };
  try {
    await fc.assert(
      fc.asyncProperty(anyAnswer, async (a) => {
        server.answer = { kind: 'raw', body: a.body };
        const problems = new RecordingProblems(nullLogger);
        const entry = {
          source: 'ufm',
          enabled: true,
          intervalMs: 3_600_000,
          maxDeletePercent: 50,
          credentials: { secretRef: { name: 'ufm', namespace: 'ns' } },
          config: { endpoint: server.endpoint() },
        };
        const d = await factory(entry, {
          nodes: new FakeInformer(),
          hyperNodes: new FakeInformer(),
          secrets,
          clock: realClock,
          logger: nullLogger,
          workerErrors: unexpectedWorkerError,
          inputPolicy: TEST_INPUT_POLICY,
          problems,
        });
        const ch = await d.start();
        let snapshot: Snapshot | undefined;
        void ch.recv().then((r) => (snapshot = r.value));
        // One run ends either with a snapshot or with a reported failure; the next run is an hour (or a minute) away.
        await waitFor(() => snapshot !== undefined || problems.failures.length > 0, {
          what: `${a.what}: the first run's outcome`,
          intervalMs: 2,
        });
        await d.stop();
        if (a.expect === 'broken' || a.expect === 'nothing') {
          assert.is(snapshot, undefined, `${a.what}: nothing published`);
          assert.match(
            problems.failures[0]!,
            a.expect === 'broken'
              ? /^Failed to fetch UFM data: failed to decode response/
              : /^UFM reported no Computer ports/,
          );
        } else {
          assert.ok(snapshot, `${a.what}: a snapshot (failures: ${problems.failures.join('; ')})`);
          assert.equal(shape(snapshot!), a.expect);
        }
      }),
      propertyParameters(40),
    );
    assert.equal(escaped, [], 'nothing escaped the run loop');
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await server.close();
  }
});

test.run();
