// Names from the fabric (docs/security.md §3): a host sets its own InfiniBand
// node description or LLDP system name, and whoever runs a UFM or a graph
// server names its systems. Names laden with ESC, OSC and BEL, a right-to-left
// override, a zero-width space or 300 KB of text go through the one rule of
// src/hypernode/model/fabric-names.ts in every source: in render's HyperNodes
// and tree (every source, and the graph source in the built executable), in
// the running executable's annotations, conditions, Events and log, and in
// what `kubectl hypernode tree`, `why` and `plan` print from the cluster.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { render } from '../../src/cmd/render.ts';
import { kubectlHypernode } from '../../src/cmd/kubectl-hypernode.ts';
import { plan } from '../../src/cmd/plan.ts';
import { FABRIC_NAME_MAX_BYTES } from '../../src/hypernode/model/fabric-names.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import { generateFatTree } from '../../testing/fat-tree.ts';
import { ESCAPE_LADEN_NAMES, UNSAFE_IN_OUTPUT } from '../../testing/hostile-inputs.ts';
import { cleanEnv, runCommand } from '../support/run-command.ts';
import { startControllerBinary } from '../support/controller-process.ts';
import { NS, fabricHealthSettled, hyperNodes, node, nodeCountsSettled, seedConfigMap } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { scratchDir } from '../cmd/scratch-dir.ts';
import { readerKubeconfig } from '../cmd/reader-kubeconfig.ts';

const scratch = scratchDir('hn-names-');
const s = session(test);
const ANNOTATION = 'volcano.sh/fabric-switches';
const NAMES = Object.values(ESCAPE_LADEN_NAMES);
/** `esc\x1b[31mred` as the rule keeps it: the hex of its UTF-8 bytes. */
const ESC_AS_HEX = '65:73:63:1b:5b:33:31:6d:72:65:64';

const items = (stdout: string) => (parseYaml(stdout) as { items: HyperNode[] }).items;
const annotations = (hns: HyperNode[]) => hns.flatMap((hn) => hn.metadata.annotations?.[ANNOTATION] ?? []);

/** Nothing unsafe anywhere in `texts`, and every switch-name annotation within the names' cap. */
function assertSanitised(what: string, hns: HyperNode[], ...texts: string[]): void {
  for (const text of texts) assert.not.match(text, UNSAFE_IN_OUTPUT, `${what}: output free of unsafe characters`);
  const values = annotations(hns);
  assert.ok(values.length > 0, `${what}: HyperNodes name their switches`);
  for (const v of values) {
    assert.not.match(v, UNSAFE_IN_OUTPUT, `${what}: ${ANNOTATION}`);
    assert.ok(Buffer.byteLength(v) <= FABRIC_NAME_MAX_BYTES + 16, `${what}: ${ANNOTATION} of ${v.length} characters`);
  }
}

/** render -o yaml and -o tree with `args`, both in this process; what they printed. */
async function renderBoth(args: string[]): Promise<{ hns: HyperNode[]; texts: string[] }> {
  const yaml = await render(args, 'vc-hypernode-controller-manager');
  assert.is(yaml.code, 0, yaml.stderr);
  const tree = await render([...args, '-o', 'tree'], 'vc-hypernode-controller-manager');
  assert.is(tree.code, 0, tree.stderr);
  return { hns: items(yaml.stdout), texts: [yaml.stdout, yaml.stderr, tree.stdout, tree.stderr] };
}

/** A graph document whose switches and a host carry the escape-laden names. */
function graphDocument(): string {
  const [leafA, leafB, spine] = ['leaf-a', 'leaf-b', 'spine-1'];
  return JSON.stringify({
    switches: [
      { id: leafA, name: ESCAPE_LADEN_NAMES.esc },
      { id: leafB, name: ESCAPE_LADEN_NAMES.rlo },
      { id: spine, name: ESCAPE_LADEN_NAMES.huge },
    ],
    links: [
      { a: { host: 'h1', port: 'eth0' }, b: { switch: leafA, port: '1' } },
      { a: { host: 'h2', port: 'eth0' }, b: { switch: leafA, port: '2' } },
      { a: { host: 'h3', port: 'eth0' }, b: { switch: leafB, port: '1' } },
      { a: { host: 'h4', port: 'eth0' }, b: { switch: leafB, port: '2' } },
      // On two units that share no other host: named in a warning.
      { a: { host: ESCAPE_LADEN_NAMES.osc, port: 'eth0' }, b: { switch: leafA, port: '3' } },
      { a: { host: ESCAPE_LADEN_NAMES.osc, port: 'eth1' }, b: { switch: leafB, port: '3' } },
      // Maps to no Node: named in the unmapped-host report.
      { a: { host: ESCAPE_LADEN_NAMES.zwsp, port: 'eth0' }, b: { switch: leafB, port: '4' } },
      { a: { switch: leafA, port: '9' }, b: { switch: spine, port: '1' } },
      { a: { switch: leafB, port: '9' }, b: { switch: spine, port: '2' } },
    ],
  });
}
const GRAPH_HOSTS = ['h1', 'h2', 'h3', 'h4'];
const graphEntry = (where: string) =>
  `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    interval: 1s\n    config:\n      fabric: lab\n      minSharedHosts: 2\n      ${where}\n`;

test('escape-laden names from UFM, a graph document, ibnetdiscover and LLDP reach the HyperNodes and tree of render sanitised', async () => {
  // UFM fabric mode: every switch system named with one of the names, one host too.
  const tree = generateFatTree({ sus: 2, nodesPerSu: 2, rails: 1, tiers: 2 });
  let i = 0;
  for (const sys of tree.systems) if (sys.type === 'switch') sys.system_name = NAMES[i++ % NAMES.length]!;
  const ufm = scratch.path('ufm');
  mkdirSync(ufm);
  for (const f of ['ports', 'links', 'systems'] as const)
    writeFileSync(join(ufm, `${f}.json`), JSON.stringify(tree[f]));
  const ufmRun = await renderBoth([
    '--config',
    scratch.write(
      'ufm.yaml',
      'networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    config: {mode: fabric, endpoint: "https://ufm"}\n',
    ),
    '--nodes',
    scratch.nodesFile(tree.hosts),
    '--ufm-capture',
    ufm,
  ]);
  assertSanitised('ufm', ufmRun.hns, ...ufmRun.texts);
  assert.ok(
    annotations(ufmRun.hns).some((v) => v.startsWith(ESC_AS_HEX)),
    'ufm: the ESC name as hex',
  );

  // The graph source, from --graph-file.
  const graphArgs = [
    '--config',
    scratch.write('graph.yaml', graphEntry('file: /etc/fabric/graph.json')),
    '--nodes',
    scratch.nodesFile(GRAPH_HOSTS),
    '--graph-file',
    scratch.write('graph.json', graphDocument()),
  ];
  const graphRun = await renderBoth(graphArgs);
  assertSanitised('graph', graphRun.hns, ...graphRun.texts);
  assert.ok(
    annotations(graphRun.hns).some((v) => v.startsWith(ESC_AS_HEX)),
    'graph: the ESC name as hex',
  );
  assert.ok(
    graphRun.texts.some((t) => t.includes('6f:73:63:1b:5d:30:3b')),
    'graph: the OSC host named as hex in a warning',
  );

  // The graph source through the built executable, on the same files.
  if (!existsSync(BINARY) && !existsSync(BUNDLE)) throw new Error(`${BINARY} is missing: run npm run build first`);
  for (const output of ['yaml', 'tree']) {
    const args = ['render', ...graphArgs, '-o', output];
    const r = existsSync(BINARY)
      ? runCommand(BINARY, args, { env: cleanEnv() })
      : runCommand(process.execPath, [BUNDLE, ...args], { env: cleanEnv() });
    assert.is(r.status, 0, r.stderr);
    assert.not.match(r.stdout, UNSAFE_IN_OUTPUT, `executable -o ${output}: stdout`);
    assert.not.match(r.stderr, UNSAFE_IN_OUTPUT, `executable -o ${output}: stderr`);
    if (output === 'yaml') assertSanitised('executable', items(r.stdout));
  }

  // ibnetdiscover: a spine's and a host's node descriptions.
  const capture = readFileSync(join(import.meta.dirname, '../cmd/ibnetdiscover-capture/compute.txt'), 'utf8')
    .replaceAll('MF0;SPINE-1:MQM9700/U1', ESCAPE_LADEN_NAMES.esc)
    .replaceAll('MF0;LEAF-SU1-R1:MQM9700/U1', ESCAPE_LADEN_NAMES.rlo)
    .replaceAll('gpu003 mlx5_8', `${ESCAPE_LADEN_NAMES.osc} mlx5_8`);
  const ibRun = await renderBoth([
    '--config',
    scratch.write(
      'ib.yaml',
      'networkTopologyDiscovery:\n  - source: ibnetdiscover\n    enabled: true\n    config:\n      fabric: compute\n      hcas: "^(mlx5_[01]|HCA-[12])$"\n',
    ),
    '--nodes',
    scratch.nodesFile(['gpu001', 'gpu002', 'gpu003', 'gpu004', 'gpu005', 'gpu006']),
    '--ibnetdiscover-capture',
    `compute=${scratch.write('compute.txt', capture)}`,
  ]);
  assertSanitised('ibnetdiscover', ibRun.hns, ...ibRun.texts);
  assert.ok(
    annotations(ibRun.hns).some((v) => v.startsWith(ESC_AS_HEX)),
    'ibnetdiscover: the ESC name as hex',
  );

  // LLDP: spine-1 announces the ESC name as its system name (a Hex-STRING in snmpbulkwalk's capture).
  const lldp = scratch.path('lldp');
  cpSync(join(import.meta.dirname, '../cmd/lldp-capture'), lldp, { recursive: true });
  const hexString = Buffer.from(ESCAPE_LADEN_NAMES.esc).toString('hex').toUpperCase().replace(/(..)/g, '$1 ');
  const spine = join(lldp, 'spine-1.txt');
  writeFileSync(
    spine,
    readFileSync(spine, 'utf8').replace(
      '.1.0.8802.1.1.2.1.3.3.0 = STRING: "spine-1"',
      `.1.0.8802.1.1.2.1.3.3.0 = Hex-STRING: ${hexString}`,
    ),
  );
  const lldpRun = await renderBoth([
    '--config',
    scratch.write(
      'lldp.yaml',
      'networkTopologyDiscovery:\n  - source: lldp\n    enabled: true\n    credentials: {secretRef: {name: lldp-snmp, namespace: volcano-system}}\n    config:\n      fabric: roce\n      switches: [10.0.0.1]\n      hostMapping: {stripSuffix: .fabric.example.com}\n',
    ),
    '--nodes',
    scratch.nodesFile([1, 2].flatMap((su) => [1, 2, 3].map((h) => `su${su}-h${h}`))),
    '--lldp-capture',
    lldp,
  ]);
  assertSanitised('lldp', lldpRun.hns, ...lldpRun.texts);
  assert.ok(
    annotations(lldpRun.hns).some((v) => v.startsWith(ESC_AS_HEX)),
    'lldp: the ESC name as hex',
  );
});

test('escape-laden names in a graph document reach the annotations, conditions, Events and log of the executable sanitised', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const h of GRAPH_HOSTS) api.store.create(node(h, {}));
  const graphConfigMap = (doc: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'fabric-graph', namespace: NS },
    data: { 'graph.json': doc },
  });
  api.store.create(graphConfigMap(graphDocument()));
  seedConfigMap(api, graphEntry(`configMap: {namespace: ${NS}, name: fabric-graph, key: graph.json}`));
  const controller = (s.controller = await startControllerBinary({ kubeconfig, namespace: NS }));
  await s.converge(
    () => hyperNodes(api, 'graph').length === 3 && nodeCountsSettled(api) && fabricHealthSettled(api),
    'the graph tree with its nodeCounts and FabricHealthy',
  );
  type Ev = { reason: string; message: string };
  const events = () => api.store.list('events', NS) as unknown as Ev[];
  const serve = (doc: unknown) => {
    const cm = api.store.get('configmaps', 'fabric-graph', NS) as { metadata: object };
    api.store.update({ ...cm, data: { 'graph.json': JSON.stringify(doc) } });
  };
  // h1's cable goes missing: its leaf group turns FabricHealthy=False, naming the switch.
  const doc = JSON.parse(graphDocument()) as { hosts?: string[]; links: { a: { host?: string } }[] };
  doc.links = doc.links.filter((l) => l.a.host !== 'h1');
  serve(doc);
  const unhealthy = await s.converge(
    () =>
      hyperNodes(api, 'graph').find((hn) =>
        hn.status?.conditions?.some((c) => c.type === 'FabricHealthy' && c.status === 'False'),
      ),
    'a FabricHealthy=False condition',
  );
  const message = unhealthy.status!.conditions!.find((c) => c.type === 'FabricHealthy')!.message;
  assert.ok(message.includes(ESC_AS_HEX), `the condition names the switch as hex: ${message}`);
  // A document naming the OSC host twice is refused: the DiscoveryFailed Event names it.
  serve({ ...doc, hosts: [ESCAPE_LADEN_NAMES.osc, ESCAPE_LADEN_NAMES.osc] });
  await s.converge(
    () => events().some((e) => e.reason === 'DiscoveryFailed' && e.message.includes('6f:73:63:1b:5d:30:3b')),
    'a DiscoveryFailed Event naming the OSC host as hex',
  );
  assertSanitised('executable', hyperNodes(api, 'graph'));
  for (const hn of hyperNodes(api, 'graph'))
    for (const c of hn.status?.conditions ?? []) assert.not.match(c.message, UNSAFE_IN_OUTPUT, 'condition');
  for (const e of events()) assert.not.match(e.message, UNSAFE_IN_OUTPUT, `${e.reason} Event`);
  assert.ok(controller.log().includes('6f:73:63:1b:5d:30:3b'), 'the log names the OSC host as hex');
  assert.not.match(controller.log(), UNSAFE_IN_OUTPUT, 'the log');
});

test('kubectl hypernode tree and why, and plan, escape the control and bidi characters the cluster holds', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (const h of GRAPH_HOSTS) api.store.create(node(h, {}));
  // Anyone who may write HyperNodes chooses annotations and condition messages; the status subresource takes them.
  api.store.create({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    metadata: {
      name: 'lab-leaf-leaf-a',
      labels: { 'volcano.sh/network-topology-source': 'graph' },
      annotations: { [ANNOTATION]: ESCAPE_LADEN_NAMES.esc },
    },
    spec: {
      tier: 1,
      tierName: 'leaf',
      members: [
        { type: 'Node', selector: { exactMatch: { name: 'h1' } } },
        { type: 'Node', selector: { regexMatch: { pattern: `^h2${ESCAPE_LADEN_NAMES.esc}$` } } },
      ],
    },
    status: {
      nodeCount: 2,
      conditions: [
        {
          type: 'FabricHealthy',
          status: 'False',
          reason: 'LinksDown',
          message: `${ESCAPE_LADEN_NAMES.osc} ${ESCAPE_LADEN_NAMES.rlo} ${ESCAPE_LADEN_NAMES.zwsp}`,
          lastTransitionTime: '2026-12-01T00:00:00Z',
        },
      ],
    },
  });
  const reader = readerKubeconfig(api, scratch.path('.'));
  const shown = (what: string, text: string) => {
    assert.not.match(text, UNSAFE_IN_OUTPUT, what);
    assert.ok(text.includes('\\x1b'), `${what} shows the escape as text: ${text}`);
  };
  for (const argv of [['tree'], ['why', 'h1']]) {
    const r = await kubectlHypernode(argv, { color: false, env: { KUBECONFIG: reader } });
    assert.is(r.code, 0, r.stderr);
    shown(`kubectl hypernode ${argv[0]}`, r.stdout);
    assert.ok(r.stdout.includes('\\u202e'), r.stdout);
  }
  // plan shows the members it would rewrite: the regex the cluster holds, escaped.
  seedConfigMap(api, graphEntry('file: /etc/fabric/graph.json'));
  const planned = await plan(
    [`--kubeconfig=${kubeconfig}`, '--graph-file', scratch.write('graph.json', graphDocument())],
    'x',
    { color: false, env: { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' } },
  );
  assert.is(planned.code, 2, planned.stderr);
  shown('plan', planned.stdout);
  assert.not.match(planned.stderr, UNSAFE_IN_OUTPUT, 'plan stderr');
  // The same through the built executable run as the plugin.
  const link = scratch.path('kubectl-hypernode');
  symlinkSync(BINARY, link);
  // Asynchronously: the API server stand-in answers from this process.
  const { stdout: out } = await promisify(execFile)(link, ['tree'], {
    env: { PATH: process.env.PATH, KUBECONFIG: reader },
    encoding: 'utf8',
    timeout: 60_000,
  });
  shown('the executable as kubectl-hypernode', out);
});

test.run();
