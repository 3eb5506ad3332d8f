// `render` prints what the controller would write: the same HyperNodes
// (names, labels, tiers, members, nodeCount) the controller creates on the API
// server stand-in from the same Nodes, ConfigMap and existing HyperNodes —
// for the label source (the README demo's 64-Node cluster, with and without
// Go-named HyperNodes to adopt) and for the UFM source (served from a
// captured ports body, compared with a controller polling the UFM stand-in).
// Bad input exits 1 naming the source and field with nothing on stdout; bad
// flags exit 2.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { render } from '../../src/cmd/render.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import {
  DEMO_SHAPE,
  SAMPLE_DISCOVERY_CONFIG,
  discoveryConfigMap,
  expectedHyperNodeCount,
  sampleNodes,
  RACK_LABEL,
  ZONE_LABEL,
} from '../../testing/sample-cluster.ts';
import { UfmServer } from '../../testing/ufm-server.ts';
import {
  NS,
  TOPOLOGY_A3_ENTRY,
  hyperNodes,
  nodeCount,
  seedUfmSecret,
  ufmEntry,
  workedExampleNodes,
  workedExamplePorts,
} from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';

const ARGV0 = 'vc-hypernode-controller-manager';
const s = session(test);
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-render-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `content` (an object as JSON, or text) to a file in the test's directory. */
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const list = (items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items });

/** What the comparison covers: everything the controller decides. */
const shape = (hn: HyperNode) => ({
  name: hn.metadata.name,
  labels: hn.metadata.labels,
  tier: hn.spec!.tier,
  tierName: hn.spec!.tierName,
  members: hn.spec!.members,
  nodeCount: nodeCount(hn),
});
const shapes = (hns: HyperNode[]) => hns.map(shape).sort((a, b) => (a.name < b.name ? -1 : 1));

async function renderOk(args: string[]): Promise<HyperNode[]> {
  const result = await render(args, ARGV0);
  assert.is(result.code, 0, result.stderr);
  const out = parseYaml(result.stdout) as { apiVersion: string; kind: string; items: HyperNode[] };
  assert.equal([out.apiVersion, out.kind], ['v1', 'List']);
  return out.items;
}

/** Seeds the demo's cluster (plus `existing`), renders from what is in the store, then runs the controller on it. */
async function renderAndRunDemo(existing: HyperNode[]): Promise<{ rendered: HyperNode[]; written: HyperNode[] }> {
  const { api, kubeconfig } = await s.startCluster();
  for (const n of sampleNodes(DEMO_SHAPE)) api.store.create(n);
  api.store.create(discoveryConfigMap(NS, SAMPLE_DISCOVERY_CONFIG));
  for (const hn of existing) api.store.create(hn);
  // The inputs as kubectl would dump them from this cluster: server fields and all.
  const config = file('configmap.yaml', toYaml(api.store.list('configmaps', NS)[0]));
  const nodes = file('nodes.json', list(api.store.list('nodes')));
  const args = ['--config', config, '--nodes', nodes];
  if (existing.length > 0) args.push('--existing', file('hypernodes.json', list(api.store.list('hypernodes'))));
  const rendered = await renderOk(args);

  s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  const expected = expectedHyperNodeCount(DEMO_SHAPE);
  const written = await s.converge(() => {
    const hns = hyperNodes(api, 'label');
    return hns.length === expected && hns.every((hn) => nodeCount(hn) > 0) && hns;
  }, `${expected} label HyperNodes with nodeCount`);
  return { rendered, written };
}

test('render prints the HyperNodes the controller creates for the demo cluster, sorted by tier then name', async () => {
  const { rendered, written } = await renderAndRunDemo([]);
  assert.equal(shapes(rendered), shapes(written));
  assert.is(rendered.length, expectedHyperNodeCount(DEMO_SHAPE));
  const order = rendered.map((hn) => [hn.spec!.tier, hn.metadata.name] as const);
  assert.equal(
    order,
    [...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)),
  );
  assert.ok(rendered.every((hn) => hn.apiVersion === 'topology.volcano.sh/v1alpha1' && hn.kind === 'HyperNode'));
});

test('with --existing holding Go-named HyperNodes, render adopts the same names the controller adopts', async () => {
  const goNamed = (name: string, tier: number, key: string, value: string): HyperNode => ({
    apiVersion: 'topology.volcano.sh/v1alpha1',
    kind: 'HyperNode',
    // A label the controller keeps on update, and members from an older topology.
    metadata: {
      name,
      labels: { 'volcano.sh/network-topology-source': 'label', [key]: value, 'example.com/owner': 'ops' },
    },
    spec: { tier, members: [{ type: 'Node', selector: { exactMatch: { name: 'retired-node' } } }] },
  });
  const existing = [
    goNamed('hypernode-datacenter-tier1-zqxwv', 1, RACK_LABEL, 'rack-0'),
    goNamed('hypernode-datacenter-tier3-bbkkm', 3, ZONE_LABEL, 'zone-1'),
  ];
  const { rendered, written } = await renderAndRunDemo(existing);
  assert.equal(shapes(rendered), shapes(written));
  const names = rendered.map((hn) => hn.metadata.name);
  for (const hn of existing) assert.ok(names.includes(hn.metadata.name), `${hn.metadata.name} adopted`);
});

test('the UFM source is rendered from a captured ports body exactly as the controller builds it from UFM, next to the label source', async () => {
  const { api, kubeconfig } = await s.startCluster();
  const ufm = (s.ufm = await new UfmServer().start());
  ufm.answer = { kind: 'ports', ports: workedExamplePorts() };
  seedUfmSecret(api, ufm.endpoint(), ufm.username, ufm.password);
  for (const n of workedExampleNodes()) api.store.create(n);
  const conf = `networkTopologyDiscovery:\n${ufmEntry(ufm.endpoint(), { insecureSkipVerify: true })}${TOPOLOGY_A3_ENTRY}`;
  api.store.create(discoveryConfigMap(NS, conf));

  const capture = join(dir, 'ufm');
  mkdirSync(capture);
  writeFileSync(join(capture, 'ports.json'), JSON.stringify(workedExamplePorts()));
  const args = [
    '--config',
    file('conf.yaml', conf),
    '--nodes',
    file(
      'nodes.yaml',
      api.store
        .list('nodes')
        .map((n) => toYaml(n))
        .join('---\n'),
    ),
    '--ufm-capture',
    `${ufm.endpoint()}/=${capture}`,
  ];
  const requestsBefore = ufm.requests.length;
  const rendered = await renderOk(args);
  assert.is(ufm.requests.length, requestsBefore, 'render never contacts UFM');

  s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  const written = await s.converge(() => {
    const hns = hyperNodes(api);
    return hns.length === 9 && hns.every((hn) => nodeCount(hn) > 0) && hns;
  }, 'the three ufm and six label HyperNodes with nodeCount');
  assert.equal(shapes(rendered), shapes(written));
  assert.equal(
    rendered
      .filter((hn) => hn.metadata.labels?.['volcano.sh/network-topology-source'] === 'ufm')
      .map((hn) => hn.metadata.name),
    ['leaf-hn-0', 'leaf-hn-1', 'spine-hn'],
  );
});

test('-o json prints the same List as yaml; -o tree prints the tree', async () => {
  const args = [
    '--config',
    file('conf.yaml', SAMPLE_DISCOVERY_CONFIG),
    '--nodes',
    file('nodes.json', list(sampleNodes(DEMO_SHAPE))),
  ];
  const yaml = await render(args, ARGV0);
  const json = await render([...args, '-o', 'json'], ARGV0);
  assert.is(json.code, 0, json.stderr);
  assert.equal(JSON.parse(json.stdout), parseYaml(yaml.stdout));
  const tree = await render([...args, '--output=tree'], ARGV0);
  assert.is(tree.code, 0, tree.stderr);
  const lines = tree.stdout.trimEnd().split('\n');
  assert.is(lines.length, expectedHyperNodeCount(DEMO_SHAPE));
  assert.is(
    lines.filter((l) =>
      /^hypernode-datacenter-tier3-\S+ {2}tier=3 \(topology\.example\.com\/zone\) {2}nodeCount=2$/.test(l),
    ).length,
    DEMO_SHAPE.zones,
  );
  assert.is(
    lines.filter((l) =>
      /└─ hypernode-datacenter-tier1-\S+ {2}tier=1 \(volcano\.sh\/hypernode\) {2}nodeCount=8 {2}nodes: /.test(l),
    ).length,
    4,
  );
  assert.not.ok(tree.stdout.includes('\x1b['), 'no colour when not asked for');
});

test('a broken entry exits 1 naming the source and the field, with nothing on stdout', async () => {
  const conf = `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    interval: 10\n`;
  const result = await render(['--config', file('conf.yaml', conf), '--nodes', file('nodes.json', list([]))], ARGV0);
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(
    result.stderr,
    /source "label": networkTopologyDiscovery\[0\] \(source "label", line \d+\): interval: 10 is a bare number/,
  );
});

test('a ConfigMap manifest whose label types cannot be decoded exits 1 naming the source and field', async () => {
  const conf = `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    config:\n      networkTopologyTypes: [a, b]\n`;
  const cm = discoveryConfigMap(NS, conf);
  const result = await render(
    ['--config', file('cm.json', cm), '--nodes', file('nodes.json', list(sampleNodes(DEMO_SHAPE)))],
    ARGV0,
  );
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(
    result.stderr,
    /source "label": failed to create discoverer: Cannot get networkTopologyTypes: networkTopologyTypes: expected a mapping/,
  );
});

test('an enabled UFM entry without a capture fails naming the source, the endpoint and the file to capture', async () => {
  const conf = `networkTopologyDiscovery:\n${ufmEntry('https://ufm.example.com')}`;
  const result = await render(['--config', file('conf.yaml', conf), '--nodes', file('nodes.json', list([]))], ARGV0);
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(
    result.stderr,
    /source "ufm": Failed to fetch UFM data: no UFM capture for endpoint https:\/\/ufm\.example\.com: .*GET https:\/\/ufm\.example\.com\/ufmRest\/resources\/ports/,
  );
});

test('a source whose run would publish nothing (UFM without Computer ports) exits 1 naming it', async () => {
  const capture = join(dir, 'cap');
  mkdirSync(capture);
  writeFileSync(join(capture, 'ports.json'), '[]');
  const conf = `networkTopologyDiscovery:\n${ufmEntry('ufm.example.com')}`;
  const result = await render(
    ['--config', file('conf.yaml', conf), '--nodes', file('nodes.json', list([])), '--ufm-capture', capture],
    ARGV0,
  );
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(result.stderr, /source "ufm": UFM reported no Computer ports/);
});

test('a snapshot breaking a pre-write rule exits 1 naming the source and the objects', async () => {
  // The API server would refuse this label value on the HyperNode; the controller must not get that far.
  const nodes = sampleNodes(DEMO_SHAPE).map((n) =>
    n.metadata.labels[RACK_LABEL] === 'rack-3'
      ? { ...n, metadata: { ...n.metadata, labels: { ...n.metadata.labels, [RACK_LABEL]: 'rack 3!' } } }
      : n,
  );
  const result = await render(
    ['--config', file('conf.yaml', SAMPLE_DISCOVERY_CONFIG), '--nodes', file('nodes.json', list(nodes))],
    ARGV0,
  );
  assert.is(result.code, 1);
  assert.is(result.stdout, '');
  assert.match(
    result.stderr,
    /source "label": the snapshot would not be written \(hypernode-datacenter-tier1-[a-z0-9]{5}\):\nlabel: HyperNode hypernode-datacenter-tier1-[a-z0-9]{5}: label volcano.sh\/hypernode has value "rack 3!"/,
  );
});

test('usage errors exit 2 with the usage: unknown flag, bad -o, missing --nodes, a positional argument', async () => {
  for (const [args, message] of [
    [['--bogus'], 'unknown flag: --bogus'],
    [
      ['--config', 'c', '--nodes', 'n', '-o', 'xml'],
      'invalid argument "xml" for "-o, --output" flag: must be one of yaml, json, tree, html, slurm-topology-yaml, slurm-topology-conf',
    ],
    [['--config', 'c'], 'required flag(s) "nodes" not set'],
    [['--config', 'c', '--nodes', 'n', 'extra'], 'unexpected argument "extra": render takes only flags'],
  ] as const) {
    const result = await render(args, ARGV0);
    assert.is(result.code, 2, args.join(' '));
    assert.is(result.stdout, '');
    assert.ok(result.stderr.includes(`Usage of ${ARGV0} render:`), result.stderr);
    assert.ok(result.stderr.endsWith(`${message}\n`), result.stderr);
  }
});

test('repeated --ufm-capture accumulate: each endpoint is served from its own directory', async () => {
  const dirs = ['a', 'b'].map((d) => join(dir, d));
  for (const d of dirs) mkdirSync(d);
  writeFileSync(join(dirs[0]!, 'ports.json'), '[]');
  writeFileSync(join(dirs[1]!, 'ports.json'), JSON.stringify(workedExamplePorts()));
  const conf = `networkTopologyDiscovery:\n${ufmEntry('https://ufm-b:8443')}`;
  const items = await renderOk([
    '--config',
    file('conf.yaml', conf),
    '--nodes',
    file('nodes.json', list([])),
    '--ufm-capture',
    `https://ufm-a:8443=${dirs[0]}`,
    '--ufm-capture',
    `ufm-b:8443=${dirs[1]}`,
  ]);
  assert.equal(
    items.map((hn) => hn.metadata.name),
    ['leaf-hn-0', 'leaf-hn-1', 'spine-hn'],
  );
});

test.run();
