// `kubectl hypernode` against the API server stand-in, with a kubeconfig whose
// user may only get and list HyperNodes and Nodes: `tree` draws them (all, one
// source's, or those holding a Node; text or the HTML page), `why` explains a
// Node's place for the label source (shared label values), a label profile
// (the profile and the value the valuePattern grouped by) and a UFM fabric,
// `plan` plans with the user's kubeconfig. Every request is a GET and none is
// refused. --context, KUBECONFIG (its existing files merged) and a missing context
// behave as for kubectl. The built executable becomes the plugin when run
// through a symlink named kubectl-hypernode, and the bundle when its file is
// so named, under node and deno.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubectlHypernode } from '../../src/cmd/kubectl-hypernode.ts';
import { render } from '../../src/cmd/render.ts';
import { builtinDiscoverers } from '../../src/hypernode/discovery/registry.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { startApiServer, type ApiServer } from '../../testing/apiserver/index.ts';
import { BINARY, BUNDLE, REPO_ROOT } from '../../testing/executables.ts';
import { generateFatTree } from '../../testing/fat-tree.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { MIXED_CONFIG, MIXED_UUIDS, mixedNodes } from '../../testing/mixed-cluster.ts';
import { readTopologyConf, readTopologyYaml } from '../support/slurm-topology-reader.ts';
import { READER, readerKubeconfig } from './reader-kubeconfig.ts';
import { CLUSTER, RACK, TOPOLOGY_A3_CONFIG, workedExampleNodes } from '../e2e/cluster.ts';

const DENO = join(REPO_ROOT, 'node_modules/.bin/deno');
let dir = '';
let api: ApiServer;
test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hn-plugin-'));
  api = await startApiServer({ namespaces: ['volcano-system'] });
});
test.after.each(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

/** Seeds `nodes` and the HyperNodes `render` computes for them with `conf` (and `extra` render flags). */
async function seed(
  nodes: Array<{ metadata: { name: string; labels?: Record<string, string> } }>,
  conf: string,
  extra: string[] = [],
): Promise<HyperNode[]> {
  const items = nodes.map((n) => ({ apiVersion: 'v1', kind: 'Node', metadata: n.metadata }));
  const out = await render(
    [
      '--config',
      write('conf.yaml', conf),
      '--nodes',
      write('nodes.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items })),
      ...extra,
      '-o',
      'json',
    ],
    'render',
  );
  assert.is(out.code, 0, out.stderr);
  for (const n of items) api.store.create(n);
  const hyperNodes = (JSON.parse(out.stdout) as { items: HyperNode[] }).items;
  for (const hn of hyperNodes) api.store.create(hn);
  return hyperNodes;
}

const run = (kubeconfig: string, ...argv: string[]) =>
  kubectlHypernode([`--kubeconfig=${kubeconfig}`, ...argv], { color: false, env: {} });

/**
 * Only GETs, none refused: the plugin reads, within get/list (plan also asks discovery whether Kueue or KAI is served).
 */
function assertReadOnly(): void {
  const all = api.requests.all();
  assert.ok(all.length > 0);
  const discovery = (r: (typeof all)[number]) => r.method === 'GET' && r.resource === '' && r.path.startsWith('/apis/');
  assert.equal(
    all.filter((r) => r.verb !== 'get' && r.verb !== 'list' && !discovery(r)).map((r) => `${r.verb} ${r.path}`),
    [],
  );
  assert.equal(
    all.filter((r) => r.code === 403).map((r) => `${r.verb} ${r.resource}`),
    [],
  );
}

const nameOf = (hns: HyperNode[], pred: (hn: HyperNode) => boolean) => hns.find(pred)!.metadata.name;

test("tree draws the HyperNodes, one source's, those holding a Node, or the HTML page", async () => {
  const hns = await seed(workedExampleNodes(), TOPOLOGY_A3_CONFIG);
  const kubeconfig = readerKubeconfig(api, dir);
  const all = await run(kubeconfig, 'tree');
  assert.is(all.code, 0, all.stderr);
  const lines = all.stdout.trimEnd().split('\n');
  assert.is(lines.length, hns.length);
  for (const hn of hns)
    assert.ok(
      lines.some((l) => l.includes(hn.metadata.name)),
      hn.metadata.name,
    );
  assert.match(lines[0]!, /^hypernode-topologya3-tier2-/, 'a root first, highest tier');
  assert.not.match(all.stdout, /nodes: /, 'the overview lists no Nodes (only html, the Slurm files and --node do)');

  const rack = nameOf(hns, (hn) => hn.metadata.labels?.[RACK] === 's0');
  const cluster = nameOf(hns, (hn) => hn.metadata.labels?.[CLUSTER] === 's4');
  const holding = await run(kubeconfig, 'tree', '--node', 'node1');
  assert.is(holding.code, 0, holding.stderr);
  assert.equal(
    holding.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.replace(/^[└├│ ─]+/, '').split(' ')[0]),
    [cluster, rack],
  );
  assert.match(
    holding.stdout,
    /^\S.*\n└─ hypernode-\S+ {2}tier=1 \S+ {2}nodeCount=\d+ {2}nodes: node1 and \d+ more\n$/,
    'the Node asked about is named, not hidden in a compacted list',
  );

  const none = await run(kubeconfig, 'tree', '--source', 'ufm');
  assert.equal([none.code, none.stdout, none.stderr], [0, '', 'No HyperNodes (source ufm).\n']);

  const html = await run(kubeconfig, 'tree', '-o', 'html');
  assert.is(html.code, 0, html.stderr);
  assert.match(html.stdout, /^<!doctype html>/);
  assert.match(html.stdout, `"name":"${rack}"`);
  assertReadOnly();
});

test('tree --help offers every source the controller runs for --source', async () => {
  const help = await kubectlHypernode(['tree', '--help'], { color: false, env: {} });
  assert.is(help.code, 0);
  const offered = /--source string +Only the HyperNodes of this discovery source \(([^)]*)\)/.exec(help.stderr)?.[1];
  assert.equal(offered?.split(', ').sort(), [...builtinDiscoverers.keys()].sort(), help.stderr);
});

test('tree -o slurm-topology-yaml|conf writes the live HyperNodes as render writes them; --config maps Nodes to host names', async () => {
  const HOST = 'example.com/ib-host';
  const nodes = mixedNodes().map((n) => ({
    metadata: { ...n.metadata, labels: { ...n.metadata.labels, [HOST]: `host-${n.metadata.name}` } },
  }));
  const conf = stringify({
    networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: MIXED_CONFIG } }],
  });
  const hns = await seed(nodes, conf);
  const kubeconfig = readerKubeconfig(api, dir);
  const rendered = async (...flags: string[]) => {
    const items = nodes.map((n) => ({ apiVersion: 'v1', kind: 'Node', metadata: n.metadata }));
    const out = await render(
      [
        '--config',
        write('conf.yaml', conf),
        '--nodes',
        write('nodes.json', JSON.stringify({ kind: 'List', items })),
        ...flags,
      ],
      'render',
    );
    assert.is(out.code, 0, out.stderr);
    return out.stdout;
  };
  for (const flags of [
    ['-o', 'slurm-topology-yaml'],
    ['-o', 'slurm-topology-conf'],
    ['-o', 'slurm-topology-conf', '--slurm-plugin', 'block', '--slurm-block-tier', 'leaf'],
  ]) {
    const tree = await run(kubeconfig, 'tree', ...flags);
    assert.is(tree.code, 0, tree.stderr);
    assert.is(tree.stdout, await rendered(...flags), flags.join(' '));
  }
  const read = readTopologyYaml((await run(kubeconfig, 'tree', '-o', 'slurm-topology-yaml')).stdout);
  assert.equal(new Set(read.switches.keys()), new Set(hns.map((hn) => hn.metadata.name)));
  assert.is([...read.switches.values()].flatMap((s) => s.nodes).length, nodes.length, 'every Node under one switch');

  // Host names come back through a UFM hostMapping.nodeLabel in --config (the plugin reads no ConfigMap).
  const ufm = write(
    'ufm.yaml',
    stringify({
      networkTopologyDiscovery: [
        {
          source: 'ufm',
          enabled: true,
          config: { mode: 'fabric', endpoint: 'https://ufm', hostMapping: { nodeLabel: HOST } },
        },
      ],
    }),
  );
  const mapped = readTopologyConf((await run(kubeconfig, 'tree', '-o', 'slurm-topology-conf', '--config', ufm)).stdout);
  assert.equal(
    [...mapped.switches.values()].flatMap((s) => s.nodes).sort(),
    nodes.map((n) => `host-${n.metadata.name}`).sort(),
  );

  const none = await run(kubeconfig, 'tree', '--source', 'ufm', '-o', 'slurm-topology-conf');
  assert.is(none.code, 1);
  assert.is(none.stdout, '');
  assert.match(none.stderr, /^error: no HyperNodes to write as Slurm switches\n$/);
  assertReadOnly();
});

test('why explains a label-discovered Node: the member, the label values, and each HyperNode above', async () => {
  const hns = await seed(workedExampleNodes(), TOPOLOGY_A3_CONFIG);
  const rack = nameOf(hns, (hn) => hn.metadata.labels?.[RACK] === 's1');
  const cluster = nameOf(hns, (hn) => hn.metadata.labels?.[CLUSTER] === 's4');
  const why = await run(readerKubeconfig(api, dir), 'why', 'node3');
  assert.is(why.code, 0, why.stderr);
  assert.is(
    why.stdout,
    [
      'Node node3 is in 2 HyperNodes:',
      `  ${rack}  tier 1 (${RACK}), source label`,
      '    - member by name (exactMatch node3)',
      `    - label ${RACK}=s1 (the Node's value)`,
      `  ${cluster}  tier 2 (${CLUSTER}), source label`,
      `    - through ${rack}`,
      '',
    ].join('\n'),
  );
  assertReadOnly();
});

test('why names the label profile and the value a valuePattern grouped by', async () => {
  const conf = stringify({
    networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: MIXED_CONFIG } }],
  });
  await seed(mixedNodes(), conf);
  const why = await run(readerKubeconfig(api, dir), 'why', 'gb200-0');
  assert.is(why.code, 0, why.stderr);
  const clique = mixedNodes().find((n) => n.metadata.name === 'gb200-0')!.metadata.labels!['nvidia.com/gpu.clique'];
  assert.match(why.stdout, /^Node gb200-0 is in 3 HyperNodes:\n/);
  assert.match(
    why.stdout,
    `    - label nvidia.com/gpu.clique=${clique} (grouped as ${MIXED_UUIDS[0]})\n    - label profile gb200\n`,
  );
  assert.match(why.stdout, / {2}\S+ {2}tier 1 \(nvl-domain\), source label\n/);
  assert.match(why.stdout, / {2}\S+ {2}tier 3 \(spine\), source label\n {4}- through \S+\n$/);
  assertReadOnly();
});

test('why names the UFM fabric whose switches the Node is linked to', async () => {
  const tree = generateFatTree({ sus: 2, nodesPerSu: 2, rails: 2, tiers: 2, fabricId: 1 });
  const capture = join(dir, 'pod-a');
  mkdirSync(capture);
  for (const f of ['ports', 'links', 'systems'] as const)
    writeFileSync(join(capture, `${f}.json`), JSON.stringify(tree[f]));
  const conf =
    'networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    config:\n      mode: fabric\n      fabrics:\n        - {name: pod-a, endpoint: "https://ufm-a"}\n';
  const hns = await seed(
    tree.hosts.map((name) => ({ metadata: { name } })),
    conf,
    ['--ufm-capture', `https://ufm-a=${capture}`],
  );
  const host = tree.hosts[0]!;
  const leaf = nameOf(hns, (hn) => hn.spec!.tier === 1 && memberNames(hn).includes(host));
  const why = await run(readerKubeconfig(api, dir), 'why', host);
  assert.is(why.code, 0, why.stderr);
  assert.match(
    why.stdout,
    `  ${leaf}  tier 1 (leaf), source ufm\n    - member by name (exactMatch ${host})\n    - UFM fabric pod-a: the Node's host ports link to the switches of this group\n`,
  );
  assert.match(why.stdout, `source ufm\n    - through ${leaf}\n`);

  const missing = await run(readerKubeconfig(api, dir), 'why', 'no-such-node');
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^error: .*nodes "no-such-node" not found/m);
  assertReadOnly();
});

test("plan plans with the user's kubeconfig: creates listed, exit 2, and the HTML page", async () => {
  for (const n of workedExampleNodes()) api.store.create(n);
  const kubeconfig = readerKubeconfig(api, dir);
  const conf = write('conf.yaml', TOPOLOGY_A3_CONFIG);
  const text = await run(kubeconfig, 'plan', '--config', conf);
  assert.is(text.code, 2, text.stderr);
  assert.match(text.stdout, /\nPlan: 6 to create, 0 to update, 0 to delete\.\n$/);
  const html = await run(kubeconfig, 'plan', '--config', conf, '-o', 'html');
  assert.is(html.code, 2, html.stderr);
  assert.match(html.stdout, /<title>plan: 6 to create, 0 to update, 0 to delete<\/title>/);
  assertReadOnly();
});

test('--context picks a context; the files of KUBECONFIG are merged as kubectl merges them; an unknown context or a directory is an error', async () => {
  await seed(workedExampleNodes(), TOPOLOGY_A3_CONFIG);
  const token = api.addUser(READER, [
    { apiGroups: ['', 'topology.volcano.sh'], resources: ['nodes', 'hypernodes'], verbs: ['get', 'list'] },
  ]);
  const cluster = { server: api.url, 'certificate-authority': api.caFile };
  // The cluster and the current context in one file, the reader's user and context in another: only a merge finds both.
  const base = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'stand-in', cluster }],
    users: [{ name: 'nobody', user: { token: 'not-a-token' } }],
    contexts: [{ name: 'default', context: { cluster: 'stand-in', user: 'nobody' } }],
    'current-context': 'default',
  };
  const reader = {
    apiVersion: 'v1',
    kind: 'Config',
    users: [
      { name: 'reader', user: { token } },
      { name: 'nobody', user: { token } },
    ],
    contexts: [{ name: 'reader', context: { cluster: 'stand-in', user: 'reader' } }],
    'current-context': 'reader',
  };
  const [file, second] = [write('contexts.yaml', stringify(base)), write('reader.yaml', stringify(reader))];
  const env = { KUBECONFIG: [join(dir, 'absent.yaml'), file, second].join(':') };
  const denied = await kubectlHypernode(['tree'], { color: false, env });
  assert.is(denied.code, 1, "the first file's current context and its user win");
  assert.match(denied.stderr, /^error: .*Unauthorized/im);
  const allowed = await kubectlHypernode(['--context', 'reader', 'tree'], { color: false, env });
  assert.is(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /hypernode-topologya3-tier2-/);
  const planned = await kubectlHypernode(
    ['--context', 'reader', 'plan', '--config', write('conf.yaml', TOPOLOGY_A3_CONFIG)],
    { color: false, env },
  );
  assert.not.match(planned.stderr, /Unauthorized|does not exist/, 'plan reads the merged files too');
  const unknown = await kubectlHypernode(['tree', '--context=nope'], { color: false, env });
  assert.equal([unknown.code, unknown.stderr], [1, `error: context "nope" does not exist in ${file}:${second}\n`]);
  const directory = await kubectlHypernode(['tree', `--kubeconfig=${dir}`], { color: false, env });
  assert.equal(
    [directory.code, directory.stderr],
    [
      1,
      `error: error loading config file "${dir}": it is a directory; give the kubeconfig file itself (e.g. ~/.kube/config)\n`,
    ],
  );
});

/** Runs `argv` asynchronously (the stand-in answers from this process) with KUBECONFIG set; its stdout. */
async function runFile(file: string, argv: string[], kubeconfig: string): Promise<string> {
  const r = await promisify(execFile)(file, argv, {
    env: { PATH: process.env.PATH, KUBECONFIG: kubeconfig },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(r.stderr, '');
  return r.stdout;
}

test('the executable is the plugin when run as kubectl-hypernode, and so is the bundle under node and deno', async () => {
  await seed(workedExampleNodes(), TOPOLOGY_A3_CONFIG);
  const kubeconfig = readerKubeconfig(api, dir);
  const link = join(dir, 'kubectl-hypernode');
  symlinkSync(BINARY, link);
  const expected = /^Node node0 is in 2 HyperNodes:\n/;
  assert.match(await runFile(link, ['why', 'node0'], kubeconfig), expected);
  const script = join(dir, 'kubectl-hypernode.cjs');
  symlinkSync(BUNDLE, script);
  assert.match(await runFile(process.execPath, [script, 'why', 'node0'], kubeconfig), expected);
  assert.match(await runFile(DENO, ['run', '-A', script, 'why', 'node0'], kubeconfig), expected);
  assertReadOnly();
});

test.run();
