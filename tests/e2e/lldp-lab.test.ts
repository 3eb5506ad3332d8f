// The lldp source end to end on a real lab (testing/lldp-lab.ts): network
// namespaces cabled by veth pairs, one real lldpd per namespace and one real
// snmpd per switch with its lldpd as AgentX subagent. The built executable
// runs as the controller under the chart's RBAC and walks the switches over
// SNMP on 127.0.0.1. The hosts are set up as Kubernetes nodes are (IPv4
// forwarding on, a cni0 bridge), so their lldpd announces Router and Bridge.
// A rail-optimised fabric (two scalable units of three
// hosts on two rail leaves each, two spines) gives its tree; then a third
// unit is added, a host is recabled onto another unit's leaf, the source moves
// to SNMPv3, the v3 key goes wrong and a switch's snmpd stops: each step's
// HyperNodes, names, writes and Events are checked, and nothing is deleted.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { parseLldpTable } from '../../src/hypernode/discovery/lldp/lldp-mib.ts';
import { snmpWalker } from '../../src/hypernode/discovery/lldp/snmp-walker.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import {
  LAB_COMMUNITY,
  LAB_V3_AUTH_KEY,
  LAB_V3_PRIV_KEY,
  LAB_V3_USER,
  LldpLab,
  lldpLabUnavailable,
  labPerTest,
} from '../../testing/lldp-lab.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { testNeeding } from '../support/skip.ts';
import {
  NS,
  SOURCE_LABEL,
  answeredHyperNodeWrites,
  assertNoForbidden,
  describeWrites,
  fabricHealthy,
  hyperNodeWrites,
  hyperNodes,
  node,
  secretObject,
  seedConfigMap,
  setDiscoveryConfig,
  uidsByName,
} from './cluster.ts';
import { session } from './session.ts';

const FABRIC = 'lab';
const FABRIC_LABEL = 'volcano.sh/lldp-fabric';
const SECRET = 'lldp-snmp';
/** A lab switch's id: its MAC chassis id as hex (testing/lldp-lab.ts gives every switch port the switch MAC). */
const switchId = (lab: LldpLab, name: string) => lab.switches.get(name)!.mac.replaceAll(':', '');

interface Ev {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string };
}

const s = session(test);
const newLab = labPerTest(test);

/** The lab's Secret: every snmpd of the lab listens on 127.0.0.1. */
const secret = (data: Record<string, string>) => secretObject(SECRET, data, { hosts: ['127.0.0.1'] });
const v3Secret = (authKey: string) =>
  secret({ username: LAB_V3_USER, authProtocol: 'SHA-256', authKey, privProtocol: 'AES', privKey: LAB_V3_PRIV_KEY });
/** Replaces the Secret's data as `kubectl apply` would. */
function updateSecret(api: Parameters<typeof hyperNodes>[0], next: ReturnType<typeof secret>): void {
  const have = api.store.get('secrets', SECRET, NS) as { metadata: object };
  api.store.update({ ...have, data: next.data });
}

const config = (lab: LldpLab, version: '2c' | '3') =>
  lab.discoveryConfig({ secret: { name: SECRET, namespace: NS }, version, fabric: FABRIC });

/** A unit: two rail leaves, `hosts` hosts with one NIC on each, both leaves cabled to every spine. */
async function addUnit(lab: LldpLab, su: number, hosts: number, spines: readonly string[]): Promise<void> {
  for (const rail of [1, 2]) {
    const leaf = `leaf-su${su}-r${rail}`;
    await lab.addSwitch(leaf);
    for (const spine of spines) lab.cable(leaf, spine);
  }
  for (let h = 1; h <= hosts; h++) {
    const host = `su${su}-h${h}`;
    await lab.addHost(host);
    for (const rail of [1, 2]) lab.cable(`leaf-su${su}-r${rail}`, host);
  }
}

interface Seen {
  tier: number;
  tierName: string;
  members: string[];
}
function tree(api: Parameters<typeof hyperNodes>[0]): Record<string, Seen> {
  return Object.fromEntries(
    hyperNodes(api, 'lldp')
      .map(
        (hn: HyperNode) =>
          [
            hn.metadata.name,
            { tier: hn.spec!.tier, tierName: hn.spec!.tierName ?? '', members: (memberNames(hn) as string[]).sort() },
          ] as const,
      )
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}
const leafName = (lab: LldpLab, su: number) =>
  `${FABRIC}-leaf-${[switchId(lab, `leaf-su${su}-r1`), switchId(lab, `leaf-su${su}-r2`)].sort()[0]}`;
const hostsOf = (su: number, n: number) => Array.from({ length: n }, (_, i) => `su${su}-h${i + 1}`);

/** The LLDP neighbours a lab switch reports over SNMP right now. */
async function neighbourRows(lab: LldpLab, name: string) {
  const [host, port] = lab.address(name).split(':');
  const walk = snmpWalker(
    { version: '2c', community: LAB_COMMUNITY },
    { timeoutMs: 1_000, retries: 0, maxRepetitions: 50, maxVarbinds: 10_000 },
  );
  return parseLldpTable(await walk({ host: host!, port: Number(port) }, AbortSignal.timeout(5_000))).neighbours;
}
const neighbours = async (lab: LldpLab, name: string) => (await neighbourRows(lab, name)).length;

const withLab = testNeeding(lldpLabUnavailable());
/** Creates, updates and deletes, leaving out status writes (nodeCount, health conditions). */
const topologyWrites = (writes: Parameters<typeof describeWrites>[0]) =>
  describeWrites(writes.filter((w) => w.subresource !== 'status'));

withLab(
  'a real lldpd + snmpd lab (the executable, chart RBAC): tiers and names; a new unit renames nothing; a recabled host merges nothing; SNMPv3; a wrong key and a silent switch delete nothing',
  async () => {
    const { api, kubeconfig } = await s.startCluster();
    const l = newLab();
    const spines = ['spine-1', 'spine-2'];
    for (const sp of spines) await l.addSwitch(sp);
    await addUnit(l, 1, 3, spines);
    await addUnit(l, 2, 3, spines);
    for (const h of [...hostsOf(1, 3), ...hostsOf(2, 3), ...hostsOf(3, 3)]) api.store.create(node(h, {}));
    api.store.create(secret({ community: LAB_COMMUNITY }));
    seedConfigMap(api, config(l, '2c'));
    const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=3'] }));
    const converge = s.converge.bind(s);
    const events = (reason: string) =>
      (api.store.list('events', NS) as unknown as Ev[]).filter(
        (e) => e.type === 'Warning' && e.reason === reason && e.involvedObject.kind === 'ConfigMap',
      );
    const polls = () => (controller.log().match(/Polled LLDP fabric/g) ?? []).length;
    /** Two more polls: the snapshot of the first one is reconciled by the end of the second. */
    const settle = async (what: string) => {
      const at = polls();
      await converge(() => polls() >= at + 2 || undefined, what);
    };
    /** Settles until two polls pass without a HyperNode write: the status writer has judged what came before. */
    const quiet = async (what: string) => {
      for (let round = 0; round < 10; round++) {
        const written = hyperNodeWrites(api).length;
        await settle(what);
        if (hyperNodeWrites(api).length === written) return;
      }
      throw new Error(`HyperNode writes kept coming: ${what}`);
    };

    // 1. Two units under one spine layer: two leaf HyperNodes named after their lowest leaf, one spine HyperNode over
    //    them.
    const spineName = `${FABRIC}-spine-${spines.map((sp) => switchId(l, sp)).sort()[0]}`;
    let expected: Record<string, Seen> = {
      [leafName(l, 1)]: { tier: 1, tierName: 'leaf', members: hostsOf(1, 3) },
      [leafName(l, 2)]: { tier: 1, tierName: 'leaf', members: hostsOf(2, 3) },
      [spineName]: { tier: 2, tierName: 'spine', members: [leafName(l, 1), leafName(l, 2)].sort() },
    };
    const sortedJson = (o: Record<string, Seen>) =>
      JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
    await converge(
      () => JSON.stringify(tree(api)) === sortedJson(expected) || undefined,
      'the two-unit tree from real LLDP',
    );
    // The hosts are set up as Kubernetes nodes (forwarding, a cni0 bridge): their lldpd announces Router and Bridge, as
    // in the field. lldpd on each host sends on its own schedule: the tree can be complete (through the unit's other
    // leaf) before this leaf has heard every host.
    const hostRows = await converge(async () => {
      const rows = (await neighbourRows(l, 'leaf-su1-r1')).filter((n) => n.sysName.startsWith('su1-'));
      return rows.length === hostsOf(1, 3).length ? rows : undefined;
    }, 'leaf-su1-r1 hears each of its hosts');
    assert.equal(
      hostRows.map((n) => n.capabilities),
      hostsOf(1, 3).map(() => ['bridge', 'router']),
      'every host neighbour announces bridge and router',
    );
    for (const hn of hyperNodes(api, 'lldp'))
      assert.equal(hn.metadata.labels, { [SOURCE_LABEL]: 'lldp', [FABRIC_LABEL]: FABRIC });
    await converge(
      () => events('CleartextCredentials').some((e) => e.message.includes('SNMPv2c')),
      'one Warning about the v2c community',
    );
    const switches = async (state: string) =>
      seriesValue(await controller.metrics(), 'hypernode_fabric_switches', { source: 'lldp', fabric: FABRIC, state });
    await converge(
      async () => (await switches('answered')) === 6 || undefined,
      'six switches answered, in the metrics',
    );

    // 2. A third unit: one leaf HyperNode more, the spine gains a member; nothing renamed or recreated, nothing
    //    deleted.
    const before = uidsByName(api, 'lldp');
    api.requests.clear();
    await addUnit(l, 3, 3, spines);
    // The unit joins the configuration once its leaves have heard every cable, as an operator adds a cabled unit.
    for (const leaf of ['leaf-su3-r1', 'leaf-su3-r2'])
      await converge(
        async () => (await neighbours(l, leaf)) === 5 || undefined,
        `${leaf} sees its 3 hosts and 2 spines`,
      );
    setDiscoveryConfig(api, config(l, '2c'));
    expected = { ...expected, [leafName(l, 3)]: { tier: 1, tierName: 'leaf', members: hostsOf(3, 3) } };
    expected[spineName] = { tier: 2, tierName: 'spine', members: [1, 2, 3].map((su) => leafName(l, su)).sort() };
    await converge(() => JSON.stringify(tree(api)) === sortedJson(expected) || undefined, 'the three-unit tree');
    const grown = describeWrites(await answeredHyperNodeWrites(api));
    assert.equal(
      grown.filter((w) => w.startsWith('create')),
      ['create <new> → 201'],
      `one create: ${grown.join(', ')}`,
    );
    assert.equal(
      grown.filter((w) => w.startsWith('delete')),
      [],
      'no delete',
    );
    for (const [name, uid] of before)
      assert.is(uidsByName(api, 'lldp').get(name), uid, `${name} kept its name and uid`);

    // 3. su1-h1's rail-1 NIC is recabled onto unit 2's rail-1 leaf: the units stay apart, the host is reported by name.
    api.requests.clear();
    l.uncable(l.cablesBetween('leaf-su1-r1', 'su1-h1')[0]!);
    l.cable('leaf-su2-r1', 'su1-h1');
    const miscabled = await converge(
      () => events('FabricMiscabled').find((e) => e.message.includes('su1-h1')),
      'a Warning naming the recabled host',
    );
    assert.match(miscabled.message, /fabric lab/);
    await settle('the recabled fabric reconciled');
    const recabled = tree(api);
    assert.equal(
      Object.keys(recabled),
      Object.keys(expected).sort(),
      'the same HyperNodes: no unit merged, none renamed',
    );
    assert.equal(
      describeWrites(await answeredHyperNodeWrites(api)).filter(
        (w) => w.startsWith('delete') || w.startsWith('create'),
      ),
      [],
      'no create or delete',
    );

    // 4. SNMPv3 (authPriv, SHA-256 + AES): the source restarts with the new config, reads the same fabric, writes
    //    nothing. The recabling's health judgement (a status write on the leaves it touched) may still be on its way:
    //    let it land first.
    await quiet('the recabled fabric judged');
    api.requests.clear();
    updateSecret(api, v3Secret(LAB_V3_AUTH_KEY));
    setDiscoveryConfig(api, config(l, '3'));
    await converge(
      () => /Starting LLDP fabric discovery.*snmp="?3"?/.test(controller.log()) || undefined,
      'the source restarted with SNMPv3',
    );
    await settle('two polls over SNMPv3');
    assert.equal(tree(api), recabled, 'the same tree over SNMPv3');
    assert.equal(describeWrites(await answeredHyperNodeWrites(api)), [], 'no write after the move to SNMPv3');

    // 5. The v3 key goes wrong (the Secret is re-read each poll): every switch fails; each is reported, then the
    //    fabric, and nothing is written.
    updateSecret(api, v3Secret('a-wrong-auth-key-0000'));
    const silent = await converge(
      () => events('SwitchUnreachable').find((e) => e.message.includes('Wrong Digest')),
      'one SwitchUnreachable Warning for the poll',
    );
    assert.match(silent.message, new RegExp(`${l.switches.size} switch\\(es\\) did not answer`));
    for (const sw of l.switches.keys())
      assert.ok(silent.message.includes(`${l.address(sw)} (${sw},`), `the Warning names ${sw}: ${silent.message}`);
    await converge(
      () => events('DiscoveryFailed').find((e) => /fabric lab/.test(e.message) && /no recent table/.test(e.message)),
      'past staleAfter the fabric publishes nothing',
    );
    assert.equal(tree(api), recabled, 'every HyperNode kept');
    // Health (docs/health.md): past staleAfter the silent switches mark their HyperNodes, a status write each; nothing
    // else.
    assert.equal(topologyWrites(await answeredHyperNodeWrites(api)), [], 'no topology write while the key is wrong');
    await converge(
      () => hyperNodes(api, 'lldp').every((hn) => fabricHealthy(hn)?.status === 'False') || undefined,
      'every lldp HyperNode FabricHealthy=False',
    );

    // 6. The key is fixed, then one leaf's snmpd stops: it is reported by name; nothing is written or deleted.
    updateSecret(api, v3Secret(LAB_V3_AUTH_KEY));
    const fixed = polls();
    await converge(
      () => /Network topology discovery recovered/.test(controller.log()) && polls() > fixed,
      'the source recovered',
    );
    api.requests.clear();
    await l.stopSnmpd('leaf-su3-r2');
    await converge(
      () =>
        events('SwitchUnreachable').find(
          (e) => e.message.includes(`${l.address('leaf-su3-r2')} (leaf-su3-r2,`) && e.message.includes('timed out'),
        ),
      'a Warning naming the silent switch',
    );
    await converge(async () => (await switches('stale')) === 1 || undefined, 'one stale switch in the metrics');
    await converge(
      () => events('DiscoveryFailed').find((e) => e.message.includes(l.address('leaf-su3-r2'))),
      'past staleAfter the fabric fails naming the switch',
    );
    await converge(
      async () => (await switches('unreachable')) === 1 && (await switches('answered')) === l.switches.size - 1,
      'one unreachable switch in the metrics',
    );
    assert.equal(tree(api), recabled, 'every HyperNode kept');
    assert.equal(topologyWrites(await answeredHyperNodeWrites(api)), [], 'no topology write while a switch is silent');
    await converge(
      () =>
        fabricHealthy(hyperNodes(api, 'lldp').find((hn) => hn.metadata.name === leafName(l, 3)))?.status === 'False' ||
        undefined,
      'the silent leaf marks its HyperNode',
    );

    for (const credential of [LAB_COMMUNITY, LAB_V3_AUTH_KEY, LAB_V3_PRIV_KEY])
      assert.not.ok(controller.log().includes(credential), `the log holds the credential ${credential}`);
    assertNoForbidden(api);
  },
);

test.run();
