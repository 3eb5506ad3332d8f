// Properties of the lldp source over generated fat trees (testing/fat-tree.ts
// turned into LLDP-MIB walks by testing/lldp-fabric.ts):
//
// - the snapshot does not depend on the order of the switches' answers, the
//   order of the varbinds in a walk, or the table indices a switch picks
//   (timeMarks, local port numbers, remote indices);
// - a random subset of switches failing in each poll, for random lengths of
//   time, never deletes anything: every snapshot the source publishes is the
//   one of the healthy fabric, and once the switches answer again it is too.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import { lldpFabricGraph } from '../../../../src/hypernode/discovery/lldp/lldp-fabric-graph.ts';
import { parseLldpTable, type MibVarbind } from '../../../../src/hypernode/discovery/lldp/lldp-mib.ts';
import { createLldpDiscovererFactory } from '../../../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import type { Snapshot } from '../../../../src/hypernode/model/contracts.ts';
import type { HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { nullLogger } from '../../../../src/log.ts';
import { generateFatTree } from '../../../../testing/fat-tree.ts';
import { lldpSwitches, lldpVarbinds } from '../../../../testing/lldp-fabric.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { FakeClock, settle } from '../../../kube/fake-clock.ts';
import { propertyParameters, shuffled } from '../../../support/property.ts';
import { unexpectedWorkerError } from '../../../support/worker-errors.ts';

const shapeArb = fc.record({
  tiers: fc.constantFrom(2 as const, 3 as const),
  sus: fc.integer({ min: 1, max: 5 }),
  rails: fc.integer({ min: 1, max: 3 }),
  nodesPerSu: fc.integer({ min: 2, max: 3 }),
  slgSpines: fc.integer({ min: 1, max: 3 }),
  uplinks: fc.integer({ min: 1, max: 3 }),
});
type Shape = typeof shapeArb extends fc.Arbitrary<infer T> ? T : never;
const treeOf = (s: Shape) => generateFatTree({ ...s, slgSus: 2 });

/** The same walk with its local ports renumbered, each row given a new timeMark and remote index, in another order. */
function permuted(varbinds: readonly MibVarbind[], seed: number): MibVarbind[] {
  const ports = new Map<string, number>();
  const rows = new Map<string, string>();
  const portOf = (p: string) =>
    ports.get(p) ?? (ports.set(p, 1000 + ((seed + ports.size * 7919) % 50_000) + ports.size * 50_000), ports.get(p)!);
  const out = varbinds.map(({ oid, value }) => {
    const parts = oid.split('.');
    if (oid.startsWith('1.0.8802.1.1.2.1.3.7.1.')) {
      parts[parts.length - 1] = String(portOf(parts[parts.length - 1]!));
    } else if (oid.startsWith('1.0.8802.1.1.2.1.4.1.1.')) {
      const [, port, idx] = parts.slice(-3);
      const key = `${port}.${idx}`;
      if (!rows.has(key)) rows.set(key, `${(seed % 9000) + rows.size * 3 + 1}.${portOf(port!)}.${rows.size + 1}`);
      parts.splice(parts.length - 3, 3, ...rows.get(key)!.split('.'));
    }
    return { oid: parts.join('.'), value };
  });
  return shuffled(out, seed);
}

function snapshotOf(
  walks: readonly { address: string; varbinds: readonly MibVarbind[] }[],
  nodes: readonly string[],
): Snapshot {
  const known = new Set(nodes);
  const { graph } = lldpFabricGraph(
    walks.map((w) => ({ address: w.address, table: parseLldpTable(w.varbinds) })),
    { managementPort: () => false, nodeOf: (n) => (known.has(n.sysName) ? n.sysName : undefined) },
  );
  return fabricHyperNodes({
    graph,
    fabric: 'f',
    source: 'lldp',
    mapHost: (h) => h,
    minSharedHosts: 2,
    logger: nullLogger,
  }).snapshot;
}

test('the snapshot does not depend on answer order, varbind order or table indices', () => {
  fc.assert(
    fc.property(shapeArb, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (shape, seed) => {
      const tree = treeOf(shape);
      const walks = lldpSwitches(tree).map((w) => ({ address: w.name, varbinds: lldpVarbinds(w) }));
      const base = snapshotOf(walks, tree.hosts);
      assert.ok(base.length > 0);
      const other = shuffled(walks, seed).map((w, i) => ({
        address: w.address,
        varbinds: permuted(w.varbinds, seed + i),
      }));
      assert.equal(snapshotOf(other, tree.hosts), base);
    }),
    propertyParameters(100),
  );
});

test('random switches failing for random times never delete: every published snapshot is the healthy one', async () => {
  await fc.assert(
    fc.asyncProperty(
      shapeArb,
      fc.array(fc.record({ failing: fc.integer({ min: 0, max: 2 ** 30 }), afterS: fc.integer({ min: 1, max: 40 }) }), {
        minLength: 1,
        maxLength: 8,
      }),
      async (shape, rounds) => {
        const tree = treeOf(shape);
        const walks = lldpSwitches(tree).map((sw) => ({ varbinds: lldpVarbinds(sw) }));
        const byAddress = new Map(walks.map((w, i) => [`10.0.${i >> 8}.${i & 255}:161`, w.varbinds]));
        const failing = new Set<string>();
        let calls = 0;
        const walker = async (t: { host: string; port: number }) => {
          calls++;
          const key = `${t.host}:${t.port}`;
          if (failing.has(key)) throw new Error('SNMP walk failed: no answer (timed out)');
          return byAddress.get(key)!;
        };
        const clock = new FakeClock();
        const nodes: NodeMeta[] = tree.hosts.map((name) => ({ metadata: { name } }));
        const factory = createLldpDiscovererFactory({ walker, retryBaseMs: 1_000 });
        const d = await factory(
          {
            source: 'lldp',
            enabled: true,
            intervalMs: 10_000,
            maxDeletePercent: 50,
            credentials: { secretRef: { name: 's', namespace: 'ns' } },
            config: { staleAfter: '30s', switches: [...byAddress.keys()] },
          },
          {
            nodes: new FakeInformer({ initial: nodes }),
            hyperNodes: new FakeInformer<HyperNode>({ initial: [] }),
            secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no secrets')) },
            clock,
            logger: nullLogger,
            workerErrors: unexpectedWorkerError,
            problems: new RecordingProblems(nullLogger),
          },
        );
        const out = await d.start();
        const received: Snapshot[] = [];
        void (async () => {
          for await (const s of out) received.push(s);
        })();
        const polled = async (before: number) => {
          for (let i = 0; i < 200 && calls < before + byAddress.size; i++) await settle(2);
          await settle();
        };
        try {
          await polled(0);
          assert.is(received.length, 1, 'the healthy fabric is published');
          const healthy = received[0]!;
          for (const round of rounds) {
            failing.clear();
            [...byAddress.keys()].forEach((a, i) => (round.failing >> (i % 30)) & 1 && failing.add(a));
            const before = calls;
            await clock.advance(round.afterS * 1_000);
            await polled(before);
          }
          failing.clear();
          const before = calls;
          await clock.advance(10_000);
          await polled(before);
          for (const s of received) assert.equal(s, healthy, 'a published snapshot differs from the healthy fabric');
          assert.equal(received[received.length - 1], healthy);
        } finally {
          await d.stop();
          await clock.advance(20_000);
        }
      },
    ),
    propertyParameters(40),
  );
});

test.run();
