// UFM fabric mode with the built executable (dist/vc-hypernode-controller-manager)
// against the API server stand-in under the chart's least-privilege RBAC and
// two UFM stand-ins serving generated fat trees: a three-tier fabric read with
// an access token and a private CA from its Secret, and a two-tier fabric read
// with basic auth. The executable logs at -v=10 throughout, and no credential
// may appear in its log.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { generateFatTree, lowestGuid, type FatTree } from '../../testing/fat-tree.ts';
import { TEST_CA, UfmServer } from '../../testing/ufm-server.ts';
import {
  NS,
  SOURCE_LABEL,
  answeredHyperNodeWrites,
  assertNoForbidden,
  describeWrites,
  fabricHealthSettled,
  hyperNodes,
  node,
  nodeCountsSettled,
  secretObject,
  seedConfigMap,
  uidsByName,
} from './cluster.ts';
import { session } from './session.ts';

const FABRIC_LABEL = 'volcano.sh/ufm-fabric';
const TOKEN = 'e2e-ufm-access-token-7f3a';
const PASSWORD = 'e2e-pa55-w0rd-9c1d';
const USERNAME = 'ufm-reader';
/** UFM reports hosts in upper case with the InfiniBand domain; the Nodes are the short lowercase names. */
const IB_DOMAIN = '.ib.example.com';
/** A host UFM knows that is no Kubernetes Node: counted, never a member. */
const NOT_A_NODE = 'su01-n02';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const pad2 = (n: number) => String(n).padStart(2, '0');

const s = session(test);
const converge = s.converge.bind(s);
test.after.each(() => assert.is(s.lastExit ?? 0, 0, 'the executable exits 0 after SIGTERM'));
/** The second fabric's UFM (the session owns the first), closed after the controller has stopped. */
let second: UfmServer | undefined;
test.after.each(async () => {
  await second?.close();
  second = undefined;
});

/**
 * Three tiers: spine-leaf groups of two units of two hosts with two rails, four spines per group, four uplinks a spine.
 */
const podA = (sus: number) =>
  generateFatTree({
    sus,
    tiers: 3,
    slgSus: 2,
    slgSpines: 4,
    uplinks: 4,
    nodesPerSu: 2,
    rails: 2,
    fabricId: 1,
    hostName: (su, n) => `SU${pad2(su)}-N${pad2(n)}${IB_DOMAIN}`,
  });
const podB = () =>
  generateFatTree({
    sus: 2,
    tiers: 2,
    uplinks: 4,
    nodesPerSu: 2,
    rails: 2,
    fabricId: 2,
    hostName: (su, n) => `b-su${pad2(su)}-n${pad2(n)}`,
  });
const nodeName = (host: string) => host.toLowerCase().replace(IB_DOMAIN, '');

interface Expected {
  tier: number;
  tierName: string;
  fabric: string;
  members: string[];
}

/**
 * What a user should find for a generated fabric, worked out from the wiring:
 * one leaf HyperNode per scalable unit named after its lowest leaf GUID; in
 * two tiers one spine HyperNode over them named after its lowest spine GUID;
 * in three tiers one spine HyperNode per spine-leaf group named after its
 * lowest spine GUID and on top one core HyperNode named after its lowest core
 * GUID.
 */
function expectedTree(fabric: string, tree: FatTree, slgSus: number): Record<string, Expected> {
  const out: Record<string, Expected> = {};
  const hostsPerSu = tree.hosts.length / tree.leafGuids.length;
  const leafNames = tree.leafGuids.map((guids, i) => {
    const name = `${fabric}-leaf-${[...guids].sort()[0]}`;
    const members = tree.hosts
      .slice(i * hostsPerSu, (i + 1) * hostsPerSu)
      .map(nodeName)
      .filter((n) => n !== NOT_A_NODE);
    out[name] = { tier: 1, tierName: 'leaf', fabric, members: members.sort() };
    return name;
  });
  if (tree.tiers === 2) {
    out[`${fabric}-spine-${lowestGuid(tree, 'spine-')}`] = {
      tier: 2,
      tierName: 'spine',
      fabric,
      members: [...leafNames].sort(),
    };
    return out;
  }
  const spineNames: string[] = [];
  for (let g = 0; g * slgSus < leafNames.length; g++) {
    const name = `${fabric}-spine-${lowestGuid(tree, `slg${pad2(g + 1)}-spine-`)}`;
    out[name] = { tier: 2, tierName: 'spine', fabric, members: leafNames.slice(g * slgSus, (g + 1) * slgSus).sort() };
    spineNames.push(name);
  }
  out[`${fabric}-core-${lowestGuid(tree, 'cg')}`] = { tier: 3, tierName: 'core', fabric, members: spineNames.sort() };
  return out;
}

function fabricTree(api: Parameters<typeof hyperNodes>[0]): Record<string, Expected> {
  return Object.fromEntries(
    hyperNodes(api, 'ufm')
      .map(
        (hn: HyperNode) =>
          [
            hn.metadata.name,
            {
              tier: hn.spec!.tier,
              tierName: hn.spec!.tierName ?? '',
              fabric: hn.metadata.labels?.[FABRIC_LABEL] ?? '',
              members: (memberNames(hn) as string[]).sort(),
            },
          ] as const,
      )
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

const sorted = (o: Record<string, Expected>) =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

function fabricConfig(a: UfmServer, b: UfmServer): string {
  return `networkTopologyDiscovery:
  - source: ufm
    enabled: true
    interval: 1s
    credentials:
      secretRef: {name: ufm-pod-b, namespace: ${NS}}
    config:
      mode: fabric
      hostMapping: {lowercase: true, stripSuffix: "${IB_DOMAIN}"}
      fabrics:
        - {name: pod-a, endpoint: "${a.endpoint()}", auth: token, secretRef: {name: ufm-pod-a}}
        - {name: pod-b, endpoint: "${b.endpoint()}"}
`;
}

test('fabric mode (the executable, chart RBAC, -v=10): two fabrics give their trees; a new scalable unit adds HyperNodes and renames none; an expired token deletes nothing; no credential in the log', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const ufmA = (s.ufm = await new UfmServer().start());
  const ufmB = (second = await new UfmServer().start());
  const slgSus = 2;
  let treeA = podA(4);
  const treeB = podB();
  ufmA.answer = { kind: 'fabric', fabric: treeA };
  ufmA.tokens.clear();
  ufmA.tokens.add(TOKEN);
  ufmB.answer = { kind: 'fabric', fabric: treeB, linksEnvelope: true };
  [ufmB.username, ufmB.password] = [USERNAME, PASSWORD];
  // Room for the fifth unit's hosts from the start: growing the fabric is then the only change.
  const hosts = [...podA(5).hosts, ...treeB.hosts].map(nodeName).filter((n) => n !== NOT_A_NODE);
  for (const h of hosts) api.store.create(node(h, {}));
  // Both Secrets carry the stand-ins' private CA: the executable trusts it for these endpoints only (no
  // insecureSkipVerify).
  api.store.create(secretObject('ufm-pod-a', { token: TOKEN, 'ca.crt': TEST_CA }, { endpoints: [ufmA.endpoint()] }));
  api.store.create(
    secretObject(
      'ufm-pod-b',
      { username: USERNAME, password: PASSWORD, 'ca.crt': TEST_CA },
      { endpoints: [ufmB.endpoint()] },
    ),
  );
  seedConfigMap(api, fabricConfig(ufmA, ufmB));
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS, flags: ['-v=10'] }));

  // 1. The two trees: leaf/spine/core for pod-a, leaf/spine for pod-b.
  let expected = sorted({ ...expectedTree('pod-a', treeA, slgSus), ...expectedTree('pod-b', treeB, slgSus) });
  assert.equal(
    Object.values(expected)
      .map((e) => `${e.fabric}/${e.tierName}`)
      .sort(),
    [
      ...Array<string>(2).fill('pod-a/spine'),
      ...Array<string>(4).fill('pod-a/leaf'),
      'pod-a/core',
      ...Array<string>(2).fill('pod-b/leaf'),
      'pod-b/spine',
    ].sort(),
    'the generated shapes',
  );
  await converge(
    () => JSON.stringify(fabricTree(api)) === JSON.stringify(expected) || undefined,
    'the HyperNodes of both fabrics',
  );
  for (const hn of hyperNodes(api, 'ufm'))
    assert.equal(Object.keys(hn.metadata.labels ?? {}).sort(), [SOURCE_LABEL, FABRIC_LABEL].sort());
  assert.ok(
    ufmA.requests.every((r) => r.path.startsWith('/ufmRestV3/resources/') && r.authorization === `Basic ${TOKEN}`),
    'pod-a: the token on /ufmRestV3',
  );
  assert.ok(
    ufmB.requests.every(
      (r) => r.path.startsWith('/ufmRest/resources/') && r.authorization === `Basic ${b64(`${USERNAME}:${PASSWORD}`)}`,
    ),
    'pod-b: basic auth on /ufmRest',
  );
  await converge(
    async () =>
      seriesValue(await controller.metrics(), 'hypernode_ufm_unmapped_hosts', { source: 'ufm', fabric: 'pod-a' }) === 1,
    'the host that is no Node counted',
  );
  assert.match(
    controller.log(),
    new RegExp(`UFM hosts that match no Node are left out.*fabric="?pod-a"?.*${NOT_A_NODE.toUpperCase()}`),
  );

  // 2. A fifth scalable unit (a third spine-leaf group) in pod-a: only creates and updates, every object keeps its name
  //    and uid.
  const before = uidsByName(api, 'ufm');
  api.requests.clear();
  treeA = podA(5);
  ufmA.answer = { kind: 'fabric', fabric: treeA };
  expected = sorted({ ...expectedTree('pod-a', treeA, slgSus), ...expectedTree('pod-b', treeB, slgSus) });
  const added = Object.keys(expected).filter((n) => !before.has(n));
  assert.is(added.length, 2, 'the new unit brings a leaf and a spine HyperNode');
  await converge(
    () => JSON.stringify(fabricTree(api)) === JSON.stringify(expected) || undefined,
    'the grown pod-a tree',
  );
  const grown = describeWrites(await answeredHyperNodeWrites(api));
  assert.equal(
    grown.filter((w) => w.startsWith('create')),
    ['create <new> → 201', 'create <new> → 201'],
    `two creates: ${grown.join(', ')}`,
  );
  assert.equal(
    grown.filter((w) => w.startsWith('delete')),
    [],
    'no delete',
  );
  const after = uidsByName(api, 'ufm');
  for (const [name, uid] of before) assert.is(after.get(name), uid, `${name} kept (not renamed or recreated)`);
  await converge(
    () => (nodeCountsSettled(api) && fabricHealthSettled(api)) || undefined,
    'every nodeCount and FabricHealthy caught up with the grown tree',
  );

  // 3. pod-a's token expires: UFM answers 401; pod-a keeps its HyperNodes, pod-b goes on, nothing is written.
  const unchanged = fabricTree(api);
  const mark = controller.log().length;
  api.requests.clear();
  const asked = ufmA.requests.length;
  ufmA.tokens.clear();
  await converge(
    () =>
      ufmA.requests.slice(asked).filter((r) => r.path.startsWith('/ufmRestV3/resources/systems')).length >= 2 &&
      /UFM refused the access token \(revoked or expired\)/.test(controller.log().slice(mark)),
    'two polls answered 401 and the expired token in the log',
  );
  const askedB = ufmB.requests.length;
  await converge(() => ufmB.requests.length >= askedB + 3, 'pod-b polled once more');
  assert.equal(fabricTree(api), unchanged, 'both trees unchanged');
  assert.equal(
    describeWrites(await answeredHyperNodeWrites(api)),
    [],
    'no HyperNode write (no delete) while the token is expired',
  );
  assert.equal(uidsByName(api, 'ufm'), after);

  // 4. At -v=10 the requests are logged, the credentials never.
  const log = controller.log();
  assert.ok(log.includes('Sending request to UFM server'), 'the log is at -v=10');
  for (const credential of [TOKEN, PASSWORD, b64(TOKEN), b64(`${USERNAME}:${PASSWORD}`)])
    assert.not.ok(log.includes(credential), `the log holds the credential ${credential}`);
  assertNoForbidden(api);
});

test.run();
