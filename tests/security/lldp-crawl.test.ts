// docs/security.md §3: a host cabled to a fabric switch can announce anything
// over LLDP, Router and Bridge and a management address inside config.allow
// included, as every Kubernetes node's lldpd does. The crawl from config.seeds
// walks such a neighbour, and so hands it the SNMP community, only when the
// fabric's Secret names its address. A UDP listener on port 161 of a loopback
// address poses as the crawled host and records every datagram: with a
// Secret naming the switches only, it receives nothing, the real switches are
// walked and the neighbour is named in a CredentialsWithheld warning with the
// command that would allow it. A neighbour the Secret does name but that
// never answers (the same listener, silent) is reported once and does not
// fail its fabric. The switches are the SNMP stand-in's agents, walked by the
// real net-snmp client, bound to loopback addresses on port 161 (root).
// Each case runs in this process and on the built executable.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSocket, type Socket } from 'node:dgram';
import { generateFatTree } from '../../testing/fat-tree.ts';
import { CAP_KUBERNETES_NODE, lldpSwitches, type SwitchLldp } from '../../testing/lldp-fabric.ts';
import { startSnmpStandIn, type SnmpStandIn } from '../../testing/snmp-stand-in.ts';
import { discoverySecret } from '../../testing/discovery-secret.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import { FakeSecrets } from '../support/fake-secrets.ts';
import { LLDP_POLLS_SECRET, lldpPolls } from '../support/lldp-polls.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { missingRoot, testNeeding } from '../support/skip.ts';
import { NS, hyperNodes, node, seedConfigMap } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const s = session(test);
const COMMUNITY = 'fabric-community-s3cret';
/** Where the crawled switches and the host posing as one listen (port 161, as the crawl walks). */
const SPINE = '127.0.77.2';
const LEAF_2 = '127.0.77.3';
const POSER = '127.0.77.66';
const SNMP_PORT = 161;

/** Two leaves under one spine; the first leaf is the seed and also hears a host announcing Router and Bridge. */
function fabric(): { switches: SwitchLldp[]; hosts: string[] } {
  const tree = generateFatTree({ sus: 2, tiers: 2, nodesPerSu: 2, rails: 1, uplinks: 1 });
  const switches = lldpSwitches(tree).filter((sw) => sw.neighbours.length > 0);
  const seed = switches.find((sw) => sw.name === 'su01-leaf-r1')!;
  seed.ports.set(40, 'swp40');
  seed.neighbours.push({
    timeMark: 1,
    localPort: 40,
    remIndex: seed.neighbours.length + 1,
    chassis: Buffer.from('02aa0000beef', 'hex'),
    portId: 'eth0',
    sysName: 'build-box',
    capEnabled: CAP_KUBERNETES_NODE,
  });
  return { switches, hosts: tree.hosts };
}

/** Each switch's agent: the seed on 127.0.0.1 (any port), the others at their management address on port 161. */
async function startFabric(): Promise<{ agents: SnmpStandIn; seed: string; hosts: string[] }> {
  const { switches, hosts } = fabric();
  const managementOf = new Map<string, string>([
    ['spine-01', SPINE],
    ['su02-leaf-r1', LEAF_2],
  ]);
  const byChassis = new Map(switches.map((sw) => [sw.id, managementOf.get(sw.name)]));
  byChassis.set('02aa0000beef', POSER);
  const agents = await startSnmpStandIn(switches, COMMUNITY, {
    bind: (i) => {
      const at = managementOf.get(switches[i]!.name);
      return at ? { host: at, port: SNMP_PORT } : { host: '127.0.0.1', port: 0 };
    },
    managementAddress: (chassis) => byChassis.get(chassis),
  });
  const seed = agents.addresses[switches.findIndex((sw) => sw.name === 'su01-leaf-r1')]!;
  return { agents, seed, hosts };
}

/** A silent SNMP agent: records every datagram it receives and answers none. */
async function udpRecorder(host: string): Promise<{ datagrams: Buffer[]; close(): Promise<void> }> {
  const socket: Socket = createSocket('udp4');
  const datagrams: Buffer[] = [];
  socket.on('message', (msg) => datagrams.push(msg));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(SNMP_PORT, host, () => resolve());
  });
  return { datagrams, close: () => new Promise<void>((r) => socket.close(() => r())) };
}

const lldpConfig = (seed: string) => ({
  fabric: 'roce',
  seeds: [seed],
  allow: ['127.0.0.0/8'],
  snmp: { timeout: '300ms', retries: 0 },
});

/** The hosts the Secret names: the seed's and the switches' (not the poser's, unless `also`). */
const switchHosts = (also: string[] = []) => ['127.0.0.1', SPINE, LEAF_2, ...also];

const holds = (datagrams: readonly Buffer[], text: string) => datagrams.some((d) => d.includes(Buffer.from(text)));

const needsRoot = testNeeding(missingRoot());

needsRoot(
  'a host announcing Router and a management address inside allow never receives the community (in process)',
  async () => {
    const { agents, seed, hosts } = await startFabric();
    const poser = await udpRecorder(POSER);
    try {
      const secrets = new FakeSecrets();
      secrets.put(NS, LLDP_POLLS_SECRET, { community: COMMUNITY }, { hosts: switchHosts() });
      const { snapshots, problems } = await lldpPolls(lldpConfig(seed), {}, hosts, 1, secrets);
      assert.equal(poser.datagrams, [], 'the poser received no datagram');
      const snapshot = snapshots[0];
      assert.ok(snapshot && snapshot.some((hn) => hn.spec.tier === 2), 'the spine, found by the crawl, is in the tree');
      const withheld = problems.warnings.filter((w) => w.startsWith('CredentialsWithheld: '));
      assert.is(withheld.length, 1, problems.warnings.join('\n'));
      assert.match(
        withheld[0]!,
        `fabric roce: 1 neighbour(s) learned from LLDP announce a management address inside config.allow that the fabric's Secret does not name, so they are not walked (its credentials stay with the switches it names): ${POSER} ("build-box", seen by su01-leaf-r1)`,
      );
      assert.match(
        withheld[0]!,
        `kubectl -n ${NS} annotate --overwrite secret ${LLDP_POLLS_SECRET} topology.volcano.sh/allowed-hosts=${[...switchHosts(), POSER].join(',')}`,
      );
    } finally {
      await poser.close();
      await agents.close();
    }
  },
);

needsRoot(
  'a crawled neighbour the Secret names that never answers is reported once and does not fail its fabric (in process)',
  async () => {
    const { agents, seed, hosts } = await startFabric();
    const poser = await udpRecorder(POSER);
    try {
      const secrets = new FakeSecrets();
      secrets.put(NS, LLDP_POLLS_SECRET, { community: COMMUNITY }, { hosts: switchHosts([POSER]) });
      const { snapshots, problems } = await lldpPolls(lldpConfig(seed), {}, hosts, 2, secrets);
      // The listener works: named by the Secret, it is walked with the community.
      assert.ok(holds(poser.datagrams, COMMUNITY), 'the named neighbour was walked');
      assert.ok(snapshots[0] && snapshots[1], `both polls published: ${problems.failures.join('\n')}`);
      assert.equal(problems.failures, []);
      const silent = problems.warnings.filter((w) => w.startsWith('SwitchUnreachable: '));
      assert.is(silent.length, 1, `once over two polls: ${problems.warnings.join('\n')}`);
      assert.match(
        silent[0]!,
        `did not answer with an LLDP-MIB and have never answered since the source started; they are left out of the fabric`,
      );
      assert.match(silent[0]!, `${POSER}:161`);
    } finally {
      await poser.close();
      await agents.close();
    }
  },
);

type Event = { type: string; reason: string; message: string };
const events = (api: ApiServer) => api.store.list('events', NS) as unknown as Event[];

needsRoot(
  'a host announcing Router and a management address inside allow never receives the community (the executable)',
  async () => {
    const { agents, seed, hosts } = await startFabric();
    const poser = await udpRecorder(POSER);
    try {
      const { api, kubeconfig } = await s.startCluster();
      for (const h of hosts) api.store.create(node(h, {}));
      api.store.create(discoverySecret(NS, LLDP_POLLS_SECRET, { community: COMMUNITY }, { hosts: switchHosts() }));
      seedConfigMap(
        api,
        `networkTopologyDiscovery:
  - source: lldp
    enabled: true
    interval: 1s
    credentials: {secretRef: {name: ${LLDP_POLLS_SECRET}, namespace: ${NS}}}
    config:
      fabric: roce
      seeds: ["${seed}"]
      allow: ["127.0.0.0/8"]
      snmp: {timeout: 300ms, retries: 0}
`,
      );
      const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=10'] }));
      await s.converge(() => hyperNodes(api, 'lldp').some((hn) => hn.spec?.tier === 2), 'the crawled fabric');
      await s.converge(
        () =>
          events(api).find((e) => e.reason === 'CredentialsWithheld' && e.message.includes(`${POSER} ("build-box"`)),
        'the CredentialsWithheld Event naming the neighbour',
      );
      // Polls go on every second; the poser never hears from the controller.
      await s.converge(() => (controller.log().match(/Polled LLDP fabric/g)?.length ?? 0) >= 3, 'three polls');
      assert.equal(poser.datagrams, [], 'the poser received no datagram');
      assert.not.ok(controller.log().includes(COMMUNITY), 'the community is not logged at -v=10');
      assert.not.ok(events(api).some((e) => e.message.includes(COMMUNITY)));
    } finally {
      await poser.close();
      await agents.close();
    }
  },
);

test.run();
