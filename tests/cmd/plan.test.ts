// `plan` against the API server stand-in: it lists exactly the creates,
// updates and deletes the controller then makes (label and UFM sources, with
// objects to adopt, to delete and a hand-made one whose nodeCount is stale),
// reads with a token allowed only get/list/watch (its requests are all GETs;
// with --use-cluster-credentials UFM is asked with the Secret's credentials,
// named on stderr first), exits 0 once the controller
// converged, 2 with changes, 1 on a bad configuration, an unreachable server
// or bad flags, and `-o json` carries the same plan as data. Deletes the
// mass-delete guard would hold are listed as held (and the controller then
// indeed deletes nothing); a configuration with a higher maxDeletePercent
// plans them as deletes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import type { PlannedChange } from '../../src/hypernode/preview/cluster-plan.ts';
import { plan, type PlanResult } from '../../src/cmd/plan.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import { seriesValue } from '../../testing/prometheus-text.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { freePorts } from '../../testing/ports.ts';
import { UfmServer } from '../../testing/ufm-server.ts';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import {
  CLUSTER,
  NS,
  RACK,
  SOURCE_LABEL,
  TOPOLOGY_A3_CONFIG,
  TOPOLOGY_A3_ENTRY,
  groupOf,
  hyperNodes,
  node,
  nodeCount,
  seedConfigMap,
  seedUfmSecret,
  ufmEntry,
  workedExampleNodes,
  workedExamplePorts,
} from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const ARGV0 = 'vc-hypernode-controller-manager';
const READER = 'system:serviceaccount:volcano-system:hypernode-plan';
const ENV = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
const s = session(test);
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-plan-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

/** Asks the fabrics live with the controller namespace's Secrets, as the controller does. */
const LIVE = '--use-cluster-credentials';

/** A kubeconfig whose token may only read the four resources plan needs. */
function readOnlyKubeconfig(api: ApiServer): string {
  const read = (apiGroups: string[], resources: string[]) => ({
    apiGroups,
    resources,
    verbs: ['get', 'list', 'watch'],
  });
  const token = api.addUser(READER, [
    read([''], ['nodes', 'configmaps', 'secrets']),
    read(['topology.volcano.sh'], ['hypernodes']),
  ]);
  return api.writeKubeconfig(dir, { token, fileName: 'reader.yaml' });
}

/** The UFM stand-in listens on loopback, which plan, as the controller, asks only when allowed. */
const runPlan = (kubeconfig: string, ...args: string[]): Promise<PlanResult> =>
  plan([`--kubeconfig=${kubeconfig}`, '--allow-url-cidr=127.0.0.1/32', ...args], ARGV0, { color: false, env: ENV });

async function planJson(
  kubeconfig: string,
  ...args: string[]
): Promise<{ code: number; changes: PlannedChange[]; summary: Record<string, number>; warnings: string[] }> {
  const result = await runPlan(kubeconfig, '-o', 'json', ...args);
  assert.ok(result.code === 0 || result.code === 2, `exit ${result.code}: ${result.stderr}`);
  return { code: result.code, ...JSON.parse(result.stdout) };
}

const hyperNode = (
  name: string,
  labels: Record<string, string>,
  spec: HyperNode['spec'],
  status?: HyperNode['status'],
): HyperNode => ({
  apiVersion: 'topology.volcano.sh/v1alpha1',
  kind: 'HyperNode',
  metadata: { name, labels },
  spec,
  ...(status ? { status } : {}),
});
const exact = (type: 'Node' | 'HyperNode', ...names: string[]) =>
  names.map((name) => ({ type, selector: { exactMatch: { name } } }));

/** The worked examples (§4.7 label, §5.6 UFM) with one object each to adopt, delete, and recount. */
async function seedCluster(): Promise<{ api: ApiServer; kubeconfig: string; controllerKubeconfig: string }> {
  const { api, kubeconfig: controllerKubeconfig } = await s.startCluster();
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
  seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
  for (const n of workedExampleNodes()) api.store.create(n);
  seedConfigMap(
    api,
    `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { insecureSkipVerify: true })}${TOPOLOGY_A3_ENTRY}`,
  );
  for (const hn of [
    // Adopted by its label (rack s0), with a retired member and an extra label the controller keeps.
    hyperNode(
      'hypernode-topologya3-tier1-zzzzz',
      { [SOURCE_LABEL]: 'label', [RACK]: 's0', 'example.com/owner': 'ops' },
      { tier: 1, members: exact('Node', 'node0', 'retired-node') },
      { nodeCount: 2 },
    ),
    // A rack that no longer exists.
    hyperNode(
      'hypernode-topologya3-tier1-stale',
      { [SOURCE_LABEL]: 'label', [RACK]: 'gone' },
      { tier: 1, members: exact('Node', 'old-node') },
    ),
    // The UFM leaf, seen with one member only.
    hyperNode('leaf-hn-0', { [SOURCE_LABEL]: 'ufm' }, { tier: 1, members: exact('Node', 'node0') }, { nodeCount: 1 }),
    // Made by hand (no source): only its nodeCount is the controller's business.
    hyperNode(
      'rack-manual',
      {},
      { tier: 1, members: [{ type: 'Node', selector: { regexMatch: { pattern: '^node[01]$' } } }] },
      { nodeCount: 5 },
    ),
  ]) {
    api.store.create(hn);
  }
  return { api, kubeconfig: readOnlyKubeconfig(api), controllerKubeconfig };
}

const names = (changes: PlannedChange[], action: string) =>
  changes
    .filter((c) => c.action === action)
    .map((c) => c.name)
    .sort();

test('plan lists exactly the creates, updates and deletes the controller then makes, reading with get/list rights only', async () => {
  const { api, kubeconfig, controllerKubeconfig } = await seedCluster();
  const before = new Set(hyperNodes(api).map((hn) => hn.metadata.name));
  const ufmRequests = s.ufm!.requests.length;
  const announced: string[] = [];
  const result = await plan(
    [`--kubeconfig=${kubeconfig}`, '--allow-url-cidr=127.0.0.1/32', '-o', 'json', LIVE],
    ARGV0,
    {
      color: false,
      env: ENV,
      announce: (text) => announced.push(`${text}${api.requests.count({ user: READER, resource: 'secrets' })}`),
    },
  );
  const planned = { code: result.code, ...JSON.parse(result.stdout) } as Awaited<ReturnType<typeof planJson>>;
  assert.is(planned.code, 2, result.stderr);
  // Before any Secret is read: which one, and where its credentials go.
  assert.equal(announced, [
    `note: plan reads Secret ${NS}/ufm-credentials and sends its credentials to ${s.ufm!.endpoint()}, if the Secret allows it (source "ufm", fabric ufm)\n0`,
  ]);

  // Read-only: every request a GET, none refused, UFM asked with the Secret's credentials.
  const reads = api.requests.all({ user: READER });
  assert.ok(reads.length >= 4, 'nodes, hypernodes, configmaps and the secret are read');
  // Discovery of the Kueue and KAI groups answers 404 where their CRDs are not installed: no Topology object to plan.
  const absentGroup = (r: (typeof reads)[number]) =>
    r.code === 404 && /^\/apis\/(kueue\.x-k8s\.io|kai\.scheduler)$/.test(r.path);
  assert.equal(
    reads
      .filter((r) => r.method !== 'GET' || (r.code !== 200 && !absentGroup(r)))
      .map((r) => `${r.method} ${r.path} → ${r.code}`),
    [],
  );
  assert.equal(api.requests.writes(), []);
  assert.ok(reads.some((r) => r.resource === 'secrets' && r.verb === 'get'));
  assert.is(s.ufm!.requests.length, ufmRequests + 1);
  assert.is(
    s.ufm!.requests.at(-1)!.authorization,
    `Basic ${Buffer.from(`${s.ufm!.username}:${s.ufm!.password}`).toString('base64')}`,
  );

  api.requests.clear();
  s.controller = startControllerInProcess({ kubeconfig: controllerKubeconfig, namespace: NS });
  await s.converge(() => {
    const all = hyperNodes(api);
    const label = hyperNodes(api, 'label');
    const manual = all.find((hn) => hn.metadata.name === 'rack-manual');
    const ufm = hyperNodes(api, 'ufm')
      .map((hn) => `${hn.metadata.name}=${nodeCount(hn)}`)
      .sort();
    return (
      label.length === 6 &&
      label.every((hn) => nodeCount(hn) === 2) &&
      ufm.join() === 'leaf-hn-0=4,leaf-hn-1=4,spine-hn=2' &&
      nodeCount(manual) === 2
    );
  }, 'the controller to converge');
  // Stopped, so every write it made is in the log and answered.
  await s.controller.stop();
  s.controller = undefined;

  const writes = api.requests.writes({ resource: 'hypernodes' });
  const after = hyperNodes(api).map((hn) => hn.metadata.name);
  const created = after.filter((n) => !before.has(n)).sort();
  const deleted = writes
    .filter((r) => r.verb === 'delete')
    .map((r) => r.name)
    .sort();
  const updated = [
    ...new Set(
      writes
        .filter((r) => r.verb === 'update' && !created.includes(r.name) && !deleted.includes(r.name))
        .map((r) => r.name),
    ),
  ].sort();
  assert.is(writes.filter((r) => r.verb === 'create').length, created.length, 'one POST per created HyperNode');
  assert.equal(names(planned.changes, 'create'), created);
  assert.equal(names(planned.changes, 'update'), updated);
  assert.equal(names(planned.changes, 'delete'), deleted);
  assert.equal(deleted, ['hypernode-topologya3-tier1-stale']);
  assert.equal(updated, ['hypernode-topologya3-tier1-zzzzz', 'leaf-hn-0', 'rack-manual']);
  assert.equal(planned.summary, { create: created.length, update: 3, delete: 1, held: 0 });

  // Converged: nothing left to do, exit 0.
  const again = await runPlan(kubeconfig, LIVE);
  assert.is(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    /^No changes: the HyperNodes match what the enabled discovery sources describe\.\n\nPlan: 0 to create, 0 to update, 0 to delete\.\n$/,
  );
});

test('an update is shown field by field: members added and removed, tierName, labels kept, nodeCount; deletes and the hand-made object per source', async () => {
  const { kubeconfig } = await seedCluster();
  const result = await runPlan(kubeconfig, LIVE);
  assert.is(result.code, 2, result.stderr);
  const out = result.stdout;
  assert.match(
    out,
    /^source "ufm":\n {2}\+ leaf-hn-1\n {6}tier: 1\n {6}members: node4 node5 node6 node7\n {6}labels: volcano\.sh\/network-topology-source=ufm\n {6}nodeCount: 4\n/m,
  );
  assert.match(out, /^ {2}~ leaf-hn-0\n {6}members: \+node1 \+node2 \+node3\n {6}nodeCount: 1 → 4\n/m);
  assert.match(out, /^source "label":\n/m);
  assert.match(
    out,
    /^ {2}~ hypernode-topologya3-tier1-zzzzz\n {6}tierName: \(none\) → volcano\.sh\/hypernode\n {6}members: \+node1 -retired-node\n(?! {6})/m,
  );
  assert.match(out, /^ {2}- hypernode-topologya3-tier1-stale\n/m);
  assert.match(
    out,
    /^HyperNodes without a discovery source \(nodeCount only\):\n {2}~ rack-manual\n {6}nodeCount: 5 → 2\n/m,
  );
  assert.match(out, /\nPlan: 7 to create, 3 to update, 1 to delete\.\n$/);
  // Sources in configuration order (ufm first here), unowned objects last.
  assert.ok(
    out.indexOf('source "ufm"') < out.indexOf('source "label"') &&
      out.indexOf('source "label"') < out.indexOf('without a discovery source'),
  );
});

test('-o json carries the plan as data: changes with source, action, name, diff and the object; warnings; summary', async () => {
  const { kubeconfig } = await seedCluster();
  const { changes, summary, warnings } = await planJson(kubeconfig, LIVE);
  assert.equal(summary, { create: 7, update: 3, delete: 1, held: 0 });
  assert.equal(warnings, []);
  const byName = new Map(changes.map((c) => [c.name, c]));
  assert.equal(byName.get('hypernode-topologya3-tier1-zzzzz'), {
    action: 'update',
    source: 'label',
    name: 'hypernode-topologya3-tier1-zzzzz',
    diff: { tierName: { to: RACK }, members: { added: ['node1'], removed: ['retired-node'] } },
    object: byName.get('hypernode-topologya3-tier1-zzzzz')!.object,
  });
  const adopted = byName.get('hypernode-topologya3-tier1-zzzzz')!.object!;
  assert.equal(adopted.metadata.labels, { [SOURCE_LABEL]: 'label', [RACK]: 's0', 'example.com/owner': 'ops' });
  assert.is(adopted.status?.nodeCount, 2);
  assert.equal(byName.get('rack-manual')!.diff, { nodeCount: { from: 5, to: 2 } });
  const spine = byName.get('spine-hn')!;
  assert.equal(
    [spine.action, spine.source, spine.diff.tier, spine.diff.members, spine.diff.nodeCount],
    ['create', 'ufm', { to: 2 }, { added: ['leaf-hn-0', 'leaf-hn-1'], removed: [] }, { from: 0, to: 2 }],
  );
  const stale = byName.get('hypernode-topologya3-tier1-stale')!;
  assert.equal(
    [stale.action, stale.source, stale.object, stale.diff.members],
    ['delete', 'label', undefined, { added: [], removed: ['old-node'] }],
  );
});

test('--config tries a configuration that is not applied: the ConfigMap is not read, and its sources are planned', async () => {
  const { api, kubeconfig } = await seedCluster();
  const conf = join(dir, 'label-only.yaml');
  writeFileSync(conf, TOPOLOGY_A3_CONFIG);
  const { code, changes } = await planJson(kubeconfig, '--config', conf);
  assert.is(code, 2);
  // The ufm source is not enabled in that file: its leaf is left as it is (its nodeCount is right), and UFM is not
  // asked.
  assert.equal([...new Set(changes.map((c) => c.source))], ['label', '']);
  assert.is(s.ufm!.requests.length, 0);
  assert.is(api.requests.count({ user: READER, resource: 'configmaps' }), 0);
  assert.is(api.requests.count({ user: READER, resource: 'secrets' }), 0);
});

test('exit 1 with the reason on stderr and nothing on stdout: a bad entry, nothing to plan, no ConfigMap, an unreachable server, bad flags, an argument', async () => {
  const { api, kubeconfig } = await seedCluster();
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    interval: 10\n');
  const fragment = join(dir, 'fragment.yaml');
  writeFileSync(
    fragment,
    'config:\n  networkTopologyTypes: {t: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n',
  );
  const [closedPort] = await freePorts(1);
  const cases: [string[], RegExp][] = [
    [
      [`--kubeconfig=${kubeconfig}`, '--config', broken],
      /^error: source "label": networkTopologyDiscovery\[0\] \(source "label", line \d+\): interval: 10 is a bare number/m,
    ],
    [['--master', `http://127.0.0.1:${closedPort}`], /^error: GET http:\/\/127\.0\.0\.1:\d+\/.*ECONNREFUSED/m],
    [[`--kubeconfig=${kubeconfig}`, '--bogus'], /unknown flag: --bogus\n$/],
    [[`--kubeconfig=${kubeconfig}`, '--kube-api-qps=0'], /kube-api-qps must be greater than zero\n$/],
    [
      [`--kubeconfig=${kubeconfig}`, '-o', 'yaml'],
      /invalid argument "yaml" for "-o, --output" flag: must be one of text, json, html\n$/,
    ],
    [
      [`--kubeconfig=${kubeconfig}`, 'extra'],
      /Usage of \S+ plan:[\s\S]*\nunexpected argument "extra": plan takes only flags\n$/,
    ],
  ];
  for (const [args, stderr] of cases) {
    const result = await plan(args, ARGV0, { color: false, env: ENV });
    assert.is(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
    assert.is(result.stdout, '');
    assert.match(result.stderr, stderr);
  }
  // A fragment plans nothing on a cluster with no HyperNode: an error, not an empty plan.
  for (const hn of api.store.list('hypernodes'))
    api.store.delete('hypernodes', (hn as { metadata: { name: string } }).metadata.name);
  const nothing = await plan([`--kubeconfig=${kubeconfig}`, '--config', fragment], ARGV0, { color: false, env: ENV });
  assert.equal([nothing.code, nothing.stdout], [1, ''], nothing.stderr);
  assert.match(
    nothing.stderr,
    /^warning: \S+fragment\.yaml: the configuration has no top-level key networkTopologyDiscovery \(its keys: config;[\s\S]*\nerror: nothing to plan: no source is enabled and nothing in the cluster would change\n$/,
  );
  api.store.delete('configmaps', 'volcano-controller-configmap', NS);
  const missing = await runPlan(kubeconfig);
  assert.is(missing.code, 1);
  assert.match(
    missing.stderr,
    /^error: discovery ConfigMap volcano-system\/volcano-controller-configmap: configmap "volcano-controller-configmap" not found \(set KUBE_POD_NAMESPACE and HELM_RELEASE_NAME/m,
  );
});

test('deletes the guard would hold are listed as held (exit 2), a higher maxDeletePercent plans them as deletes, and the controller then deletes nothing', async () => {
  const { api, kubeconfig: controllerKubeconfig } = await s.startCluster();
  const kubeconfig = readOnlyKubeconfig(api);
  // Each Node in its own rack, every rack in one cluster: 20 rack HyperNodes and the cluster one, all owned by "label".
  const nodeName = (i: number) => `node${String(i).padStart(2, '0')}`;
  for (let i = 0; i < 20; i++) api.store.create(node(nodeName(i), { [RACK]: `r${i}`, [CLUSTER]: 'c0' }));
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  s.controller = startControllerInProcess({ kubeconfig: controllerKubeconfig, namespace: NS });
  await s.converge(() => hyperNodes(api, 'label').length === 21, '21 label HyperNodes');
  await s.controller.stop();
  s.controller = undefined;
  // 12 of the 21 (57 %, above the default 50) are no longer described once their Nodes are gone.
  const going = Array.from({ length: 12 }, (_, i) => groupOf(api, RACK, `r${i}`)!.metadata.name).sort();
  const clusterName = groupOf(api, CLUSTER, 'c0')!.metadata.name;
  for (let i = 0; i < 12; i++) api.store.delete('nodes', nodeName(i));

  const text = await runPlan(kubeconfig);
  assert.is(text.code, 2, text.stderr);
  const heldLines = text.stdout.split('\n').filter((l) => l.endsWith(' (held)'));
  assert.equal(
    heldLines,
    going.map((name) => `  - ${name} (held)`),
  );
  assert.match(text.stdout, new RegExp(`^ {2}~ ${clusterName}\n {6}members: -\\S+`, 'm'));
  assert.match(text.stdout, /\nPlan: 0 to create, 1 to update, 0 to delete, 12 held\.\n$/);
  assert.match(
    text.stderr,
    /^warning: Discovery source "label" would delete 12 of the 21 HyperNodes it owns \(57\.1%\)/m,
  );
  assert.is(
    text.stderr.split('\n').filter((l) => l.startsWith('warning: ')).length,
    1,
    `only the held deletes are a warning: ${text.stderr}`,
  );

  const held = await planJson(kubeconfig);
  assert.is(held.code, 2);
  assert.equal(held.summary, { create: 0, update: 1, delete: 0, held: 12 });
  assert.equal(
    held.changes.filter((c) => c.held).map((c) => `${c.action} ${c.source} ${c.name}`),
    going.map((name) => `delete label ${name}`),
  );
  assert.equal(names(held.changes, 'update'), [clusterName]);

  // The same sources with the limit raised: the 12 are plain deletes.
  const raised = join(dir, 'raised.yaml');
  writeFileSync(raised, `${TOPOLOGY_A3_CONFIG}    maxDeletePercent: 70\n`);
  const allowed = await planJson(kubeconfig, '--config', raised);
  assert.equal(allowed.summary, { create: 0, update: 1, delete: 12, held: 0 });
  assert.equal(names(allowed.changes, 'delete'), going);
  assert.ok(allowed.changes.every((c) => c.held === undefined));
  assert.equal(allowed.warnings, []);
  const allowedText = await runPlan(kubeconfig, '--config', raised);
  assert.match(allowedText.stdout, /\nPlan: 0 to create, 1 to update, 12 to delete\.\n$/);
  assert.not.match(allowedText.stdout, /\(held\)/);

  // The controller, with the ConfigMap's default limit, makes exactly the planned update and deletes nothing.
  api.requests.clear();
  const controller = (s.controller = startControllerInProcess({ kubeconfig: controllerKubeconfig, namespace: NS }));
  await s.converge(
    async () => seriesValue(await controller.metrics(), 'hypernode_deletes_held', { source: 'label' }) === 12,
    'hypernode_deletes_held{source="label"} = 12',
  );
  await s.converge(
    () => memberNames(groupOf(api, CLUSTER, 'c0')).length === 8 && nodeCount(groupOf(api, CLUSTER, 'c0')) === 8,
    'the cluster HyperNode updated to the 8 remaining racks',
  );
  await s.controller.stop();
  s.controller = undefined;
  const writes = api.requests.writes({ resource: 'hypernodes' });
  assert.equal(
    writes.filter((r) => r.verb !== 'update').map((r) => `${r.verb} ${r.name}`),
    [],
    'no create and no delete',
  );
  assert.equal([...new Set(writes.map((r) => r.name))], names(held.changes, 'update'));
  assert.equal(hyperNodes(api, 'label').length, 21, 'every HyperNode is still there');
});

test('--lldp-capture plans an lldp source from captured walks: the Secret and the switches are not read, the tree is created', async () => {
  const { api } = await s.startCluster();
  for (const su of [1, 2]) for (const h of [1, 2, 3]) api.store.create(node(`su${su}-h${h}`, {}));
  seedConfigMap(
    api,
    `networkTopologyDiscovery:\n  - source: lldp\n    enabled: true\n    credentials: {secretRef: {name: lldp-snmp, namespace: ${NS}}}\n    config:\n      fabric: roce\n      hostMapping: {stripSuffix: .fabric.example.com}\n      switches: [192.0.2.1]\n`,
  );
  const kubeconfig = readOnlyKubeconfig(api);
  const planned = await planJson(kubeconfig, '--lldp-capture', join(import.meta.dirname, 'lldp-capture'));
  assert.is(planned.code, 2);
  assert.equal(names(planned.changes, 'create'), [
    'roce-leaf-02aa00030001',
    'roce-leaf-02aa00080001',
    'roce-spine-02aa00010001',
  ]);
  assert.not.ok(
    api.requests.all().some((r) => r.resource === 'secrets'),
    'no Secret read',
  );
  // Without captures the lldp source stands as the HyperNodes it has (none): no Secret read, no switch walked.
  const without = await runPlan(kubeconfig);
  assert.is(without.code, 0, without.stderr);
  assert.match(without.stderr, /^warning: source "lldp" is planned from the 0 HyperNode\(s\) it has in the cluster/m);
  assert.not.ok(api.requests.all().some((r) => r.resource === 'secrets'));
  // With the flag it reads the Secret it names first, which does not exist.
  const live = await runPlan(kubeconfig, LIVE);
  assert.is(live.code, 1, 'with the flag the source reads its Secret, which does not exist');
  assert.match(
    live.stderr,
    /^note: plan reads Secret volcano-system\/lldp-snmp and sends its credentials to the SNMP agents 192\.0\.2\.1/m,
  );
  assert.match(live.stderr, /failed to get SNMP credentials from secret/);
});

test.run();
