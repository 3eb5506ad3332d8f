// Health never changes membership on the fabric side: whatever links vanish
// from polls (hosts rebooting, ports down, uplinks flapping) and come back,
// while each stays missing for less than the grace period the fabric
// HyperNodes are exactly those of the healthy fabric, and every missing
// link is reported on the HyperNode holding its switch. Once a link stays
// missing past the grace period the topology is that of the fabric as polled.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FabricGraph, FabricLink } from '../../../../src/hypernode/discovery/fabric/fabric-graph.ts';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import { LinkMemory } from '../../../../src/hypernode/discovery/fabric/link-memory.ts';
import type { DiscoveredHyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { compareBytes } from '../../../../src/util/compare-bytes.ts';
import { nullLogger } from '../../../../src/log.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { propertyParameters } from '../../../support/property.ts';
import { RecordingFabricHealth } from '../../../support/recording-fabric-health.ts';

const GRACE_MS = 60_000;
const LEAVES = 4;
const HOSTS_PER_LEAF = 3;

/** Four leaves of three hosts, each leaf cabled to two spines. */
function healthyGraph(): FabricGraph {
  const links: FabricLink[] = [];
  for (let l = 0; l < LEAVES; l++) {
    for (let h = 0; h < HOSTS_PER_LEAF; h++)
      links.push({
        a: { kind: 'switch', id: `l${l}`, port: `p${h}` },
        b: { kind: 'host', name: `h${l}-${h}`, port: 'eth0' },
      });
    for (const s of [0, 1])
      links.push({
        a: { kind: 'switch', id: `l${l}`, port: `up${s}` },
        b: { kind: 'switch', id: `s${s}`, port: `d${l}` },
      });
  }
  const hosts = links.flatMap((k) => (k.b.kind === 'host' ? [{ name: k.b.name }] : []));
  const switches = [...Array.from({ length: LEAVES }, (_, l) => `l${l}`), 's0', 's1'].map((id) => ({
    id,
    name: `sw-${id}`,
  }));
  return { switches, hosts, links };
}
const ALL_LINKS = healthyGraph().links.length;

/** The poll's graph without the links at `gone` (hosts and switches left unlinked drop out, as a poll shows them). */
function polled(gone: ReadonlySet<number>): FabricGraph {
  const g = healthyGraph();
  const links = g.links.filter((_, i) => !gone.has(i));
  const ends = new Set(links.flatMap((k) => [k.a, k.b]).map((e) => (e.kind === 'host' ? `h:${e.name}` : `s:${e.id}`)));
  return {
    switches: g.switches.filter((s) => ends.has(`s:${s.id}`)),
    hosts: g.hosts.filter((h) => ends.has(`h:${h.name}`)),
    links,
  };
}

const input = (graph: FabricGraph) => ({
  graph,
  fabric: 'f',
  source: 'lldp',
  mapHost: (h: string) => h,
  logger: nullLogger,
});
/** A snapshot is a set: its HyperNodes by name. */
const sorted = (snapshot: readonly DiscoveredHyperNode[]) =>
  JSON.stringify([...snapshot].sort((a, b) => compareBytes(a.metadata.name, b.metadata.name)));
const shape = (graph: FabricGraph) => sorted(fabricHyperNodes(input(graph)).snapshot);

function memory() {
  const clock = new FakeClock();
  const fabricHealth = new RecordingFabricHealth(GRACE_MS);
  const mem = new LinkMemory('lldp', { clock, fabricHealth });
  return {
    clock,
    reports: fabricHealth.reports,
    hostReports: fabricHealth.hostReports,
    mem,
    restarted: () => new LinkMemory('lldp', { clock, fabricHealth }),
  };
}

test('links missing for less than the grace period leave the HyperNodes as the healthy fabric has them, each missing link reported', () => {
  fc.assert(
    fc.property(
      fc.array(fc.uniqueArray(fc.nat(ALL_LINKS - 1), { maxLength: ALL_LINKS }), { minLength: 1, maxLength: 8 }),
      (polls) => {
        const { clock, reports, mem } = memory();
        const healthy = shape(healthyGraph());
        assert.is(sorted(mem.hyperNodes(input(healthyGraph())).snapshot), healthy);
        for (const gone of polls) {
          // Every link returns at the poll after it vanished at the latest, so none stays missing for the grace period.
          clock.jump(GRACE_MS / 4);
          const tree = mem.hyperNodes(input(polled(new Set(gone))));
          assert.is(sorted(tree.snapshot), healthy, 'members and names as the healthy fabric');
          const reported = [...reports.at(-1)!.values()].flat().length;
          // A host link is reported on its leaf, a leaf–spine link on both ends' groups.
          const expected = gone.reduce((n, i) => n + (healthyGraph().links[i]!.b.kind === 'host' ? 1 : 2), 0);
          assert.is(reported, expected, 'every missing link reported');
          clock.jump(GRACE_MS / 4);
          mem.hyperNodes(input(healthyGraph()));
          assert.is([...reports.at(-1)!.values()].flat().length, 0, 'nothing reported once every link is back');
        }
      },
    ),
    propertyParameters(),
  );
});

test('each poll reports every Node with its links, those missing, and since when every one of them is', () => {
  fc.assert(
    fc.property(
      fc.array(fc.uniqueArray(fc.nat(ALL_LINKS - 1), { maxLength: ALL_LINKS }), { minLength: 1, maxLength: 8 }),
      (polls) => {
        const { clock, hostReports, mem } = memory();
        mem.hyperNodes(input(healthyGraph()));
        // The model: since when each host's one link is missing.
        const missingSince = new Map<string, number>();
        for (const gone of polls) {
          clock.jump(GRACE_MS / 8);
          mem.hyperNodes(input(polled(new Set(gone))));
          const hostsGone = new Set(
            gone.flatMap((i) => {
              const b = healthyGraph().links[i]!.b;
              return b.kind === 'host' ? [b.name] : [];
            }),
          );
          for (const h of healthyGraph().hosts.map((x) => x.name)) {
            if (!hostsGone.has(h)) missingSince.delete(h);
            else if (!missingSince.has(h)) missingSince.set(h, clock.now());
          }
          const report = hostReports.at(-1)!;
          assert.is(report.at, clock.now());
          assert.is(report.nodes.size, LEAVES * HOSTS_PER_LEAF, 'every Node, linked or not');
          for (const [node, links] of report.nodes) {
            const since = missingSince.get(node);
            assert.equal(
              links,
              since === undefined ? { links: 1, missing: 0 } : { links: 1, missing: 1, cutOffSince: since },
              node,
            );
          }
        }
      },
    ),
    propertyParameters(),
  );
});

test('a Node of two links is cut off only once both are missing, since the later; hosts of no Node are left out', () => {
  const { clock, hostReports, mem } = memory();
  const twoRails: FabricGraph = {
    switches: [
      { id: 'l0', name: 'L0' },
      { id: 'l1', name: 'L1' },
    ],
    hosts: [{ name: 'gpu-1' }, { name: 'storage-1' }],
    links: [
      { a: { kind: 'switch', id: 'l0', port: 'p1' }, b: { kind: 'host', name: 'gpu-1', port: 'mlx5_0' } },
      { a: { kind: 'switch', id: 'l1', port: 'p1' }, b: { kind: 'host', name: 'gpu-1', port: 'mlx5_1' } },
      { a: { kind: 'switch', id: 'l1', port: 'p2' }, b: { kind: 'host', name: 'storage-1', port: 'eth0' } },
    ],
  };
  const at = (links: readonly number[]) => ({ ...twoRails, links: links.map((i) => twoRails.links[i]!) });
  const mapped = (graph: FabricGraph) => ({
    ...input(graph),
    mapHost: (h: string) => (h === 'gpu-1' ? 'node-1' : undefined),
  });
  mem.hyperNodes(mapped(twoRails));
  assert.equal([...hostReports.at(-1)!.nodes], [['node-1', { links: 2, missing: 0 }]]);
  clock.jump(1_000);
  mem.hyperNodes(mapped(at([1, 2])));
  assert.equal(hostReports.at(-1)!.nodes.get('node-1'), { links: 2, missing: 1 });
  clock.jump(1_000);
  const second = clock.now();
  mem.hyperNodes(mapped(at([2])));
  assert.equal(hostReports.at(-1)!.nodes.get('node-1'), { links: 2, missing: 2, cutOffSince: second });
});

test('a link missing past the grace period is forgotten: the topology is the polled fabric', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.nat(ALL_LINKS - 1), { minLength: 1, maxLength: ALL_LINKS - 1 }), (gone) => {
      const { clock, mem } = memory();
      mem.hyperNodes(input(healthyGraph()));
      const graph = polled(new Set(gone));
      clock.jump(1);
      mem.hyperNodes(input(graph));
      clock.jump(GRACE_MS);
      assert.is(sorted(mem.hyperNodes(input(graph)).snapshot), shape(graph));
    }),
    propertyParameters(),
  );
});

test('a discoverer restarted by a configuration change still knows the links of the last good poll', () => {
  const { clock, reports, mem, restarted } = memory();
  mem.hyperNodes(input(healthyGraph()));
  clock.jump(1);
  const tree = restarted().hyperNodes(input(polled(new Set([0]))));
  assert.is(sorted(tree.snapshot), shape(healthyGraph()));
  assert.equal([...reports.at(-1)!.keys()], ['f-leaf-l0']);
});

test.run();
