// Fabric health in UFM legacy mode (legacy-links.ts): whatever host ports go
// down (UFM lists them Down with their peer fields N/A), while each is down
// for less than the grace period the leaf-hn/spine-hn snapshot is that of the
// healthy fabric, byte for byte, and each down port is reported on the leaf
// HyperNode holding its leaf switch, naming the switch's port. Past the grace
// period the snapshot is Volcano's grouping of the port list as polled.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LinkMemory } from '../../../../src/hypernode/discovery/fabric/link-memory.ts';
import { rememberedLegacySnapshot } from '../../../../src/hypernode/discovery/ufm/legacy-links.ts';
import { decodePorts } from '../../../../src/hypernode/discovery/ufm/legacy-ports.ts';
import { buildSnapshot } from '../../../../src/hypernode/discovery/ufm/legacy-topology.ts';
import { nullLogger } from '../../../../src/log.ts';
import { generateFatTree } from '../../../../testing/fat-tree.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { propertyParameters } from '../../../support/property.ts';
import { RecordingFabricHealth } from '../../../support/recording-fabric-health.ts';

const GRACE_MS = 60_000;
const SHAPE = { sus: 2, tiers: 2, nodesPerSu: 3, rails: 2, uplinks: 2 } as const;
const HOST_PORTS = generateFatTree(SHAPE)
  .ports.filter((p) => p.description === 'Computer IB Port')
  .map((p) => `${p.system_name}/${String(p.dname).replace(/^HCA-(\d+)\/1$/, '$1')}`);

/** The port list UFM answers with `down` host ports (`<host>/<rail>`), as legacy mode decodes it. */
const ports = (down: readonly string[] = []) =>
  decodePorts(JSON.stringify(generateFatTree({ ...SHAPE, downHostPorts: down }).ports));
const go = (down: readonly string[] = []) => JSON.stringify(buildSnapshot(ports(down), nullLogger));

function legacy() {
  const clock = new FakeClock();
  const health = new RecordingFabricHealth(GRACE_MS);
  const memory = new LinkMemory('ufm', { clock, fabricHealth: health });
  const poll = (down: readonly string[] = []) =>
    JSON.stringify(rememberedLegacySnapshot(memory, 'legacy', ports(down), nullLogger));
  return { clock, health, poll };
}

const downPorts = fc.uniqueArray(fc.constantFrom(...HOST_PORTS), { minLength: 1, maxLength: HOST_PORTS.length });

/** One down port in each unit: Go puts both hosts under a leaf named N/A, which joins the two units' groups. */
const ACROSS_UNITS = ['su01-n01/1', 'su02-n01/1'];

test('the stand-in fabric has every host port on a leaf; down ports change Go grouping (so the memory matters)', () => {
  assert.is(HOST_PORTS.length, SHAPE.sus * SHAPE.nodesPerSu * SHAPE.rails);
  assert.ok(ACROSS_UNITS.every((p) => HOST_PORTS.includes(p)));
  assert.is.not(go(ACROSS_UNITS), go());
});

test('host ports down for less than the grace period: the healthy snapshot, each down port reported on its leaf HyperNode', () => {
  fc.assert(
    fc.property(downPorts, (down) => {
      const { clock, health, poll } = legacy();
      const healthy = poll();
      assert.is(healthy, go(), 'a healthy poll is Go grouping');
      assert.equal([...health.reports.at(-1)!.values()].flat(), []);
      clock.jump(GRACE_MS / 2);
      assert.is(poll(down), healthy, 'members and names as the healthy fabric');
      const problems = [...health.reports.at(-1)!.entries()].flatMap(([hn, ps]) => ps.map((p) => ({ hn, ...p })));
      assert.is(problems.length, down.length, 'one problem per down port');
      const leaves = new Map(JSON.parse(healthy).map((hn: { metadata: { name: string } }) => [hn.metadata.name, hn]));
      for (const p of problems) {
        const host = /^link to host (\S+) missing$/.exec(p.what)?.[1];
        assert.ok(host && down.some((d) => d.startsWith(`${host}/`)), `${p.what} names a down host`);
        assert.ok(JSON.stringify(leaves.get(p.hn)).includes(`"${host}"`), `${p.hn} holds ${host}`);
        assert.match(p.switch, /leaf/);
        assert.match(p.port ?? '', /^\d+\/\d+\/\d+$/);
      }
      clock.jump(GRACE_MS / 4);
      assert.is(poll(), healthy);
      assert.equal([...health.reports.at(-1)!.values()].flat(), [], 'nothing reported once every port is up');
    }),
    propertyParameters(),
  );
});

test('a port still down past the grace period counts as Volcano counts it, and is no longer reported', () => {
  fc.assert(
    fc.property(downPorts, (down) => {
      const { clock, health, poll } = legacy();
      poll();
      clock.jump(GRACE_MS / 2);
      poll(down);
      clock.jump(GRACE_MS);
      assert.is(poll(down), go(down));
      assert.equal([...health.reports.at(-1)!.values()].flat(), []);
    }),
    propertyParameters(),
  );
});

test('without a reporter (previews) the snapshot is Go grouping of the poll as it is', () => {
  const memory = new LinkMemory('ufm', { clock: new FakeClock() });
  assert.is(JSON.stringify(rememberedLegacySnapshot(memory, 'legacy', ports(), nullLogger)), go());
  assert.is(
    JSON.stringify(rememberedLegacySnapshot(memory, 'legacy', ports(ACROSS_UNITS), nullLogger)),
    go(ACROSS_UNITS),
  );
});

test.run();
