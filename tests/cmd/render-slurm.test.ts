// `render -o slurm-topology-yaml` and `-o slurm-topology-conf`: the files are
// read back under the format's rules (tests/support/slurm-topology-reader.ts)
// and compared with the HyperNode tree `render -o json` prints from the same
// input: on a rail-optimised UFM fabric whose Nodes are named apart from their
// hosts (the host names come back through config.hostMapping.nodeLabel), the
// same on an InfiniBand fabric read by ibnetdiscover, and
// on a mixed-depth label cluster whose NVLink domains become Slurm blocks.
// Like every export the files follow the tree as the controller keeps it: a
// relabel whose deletes the mass-delete guard holds keeps the old HyperNodes,
// but leaves no Node under two leaf switches.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode, NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { generateFatTree } from '../../testing/fat-tree.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { MIXED_CONFIG, mixedNodes } from '../../testing/mixed-cluster.ts';
import { RACK_LABEL, SAMPLE_DISCOVERY_CONFIG, sampleNodes } from '../../testing/sample-cluster.ts';
import { readTopologyConf, readTopologyYaml, type ReadTopology } from '../support/slurm-topology-reader.ts';
import { ibHostsByLabel, IB_HOST_LABEL } from './ib-hosts-by-label.ts';
import { hasLine, scratchDir } from './scratch-dir.ts';

const scratch = scratchDir('hn-render-slurm-');
const { write, nodesFile } = scratch;

async function run(args: string[]): Promise<string> {
  const r = await render(args, 'x');
  assert.is(r.code, 0, r.stderr);
  return r.stdout;
}

/** What Slurm should see, from the HyperNodes: every HyperNode a switch, its Node members under their host names. */
function expectedSwitches(items: HyperNode[], host: (node: string) => string): ReadTopology['switches'] {
  const out: ReadTopology['switches'] = new Map();
  const kind = (hn: HyperNode, type: string) =>
    memberNames({ spec: { members: (hn.spec!.members ?? []).filter((m) => m.type === type) } });
  for (const hn of items)
    out.set(hn.metadata.name, { switches: kind(hn, 'HyperNode').sort(), nodes: kind(hn, 'Node').map(host).sort() });
  return out;
}

async function railOptimised() {
  // 16 SUs of 4 hosts on 8 rails: a three-tier tree (leaf groups, spine groups, core).
  const tree = generateFatTree({
    sus: 16,
    nodesPerSu: 4,
    rails: 8,
    slgSpines: 2,
    uplinks: 4,
    hostName: (s, n) => `GPU-SU${String(s).padStart(2, '0')}-N${String(n).padStart(2, '0')}`,
  });
  const cap = scratch.path('capture');
  mkdirSync(cap);
  for (const f of ['ports', 'links', 'systems'] as const)
    writeFileSync(join(cap, `${f}.json`), JSON.stringify(tree[f]));
  // Nodes named after their cloud instance; the IB host name is a label.
  const nodes = tree.hosts.map(
    (h, i): NodeMeta => ({
      metadata: { name: `i-${(0x1000 + i).toString(16)}`, labels: { [IB_HOST_LABEL]: h.toLowerCase() } },
    }),
  );
  const conf = write(
    'conf.yaml',
    stringify({
      networkTopologyDiscovery: [
        {
          source: 'ufm',
          enabled: true,
          config: {
            mode: 'fabric',
            endpoint: 'https://ufm',
            hostMapping: { lowercase: true, nodeLabel: IB_HOST_LABEL },
          },
        },
      ],
    }),
  );
  const args = ['--config', conf, '--nodes', nodesFile(nodes), '--ufm-capture', cap];
  const items = (JSON.parse(await run([...args, '-o', 'json'])) as { items: HyperNode[] }).items;
  const hostOf = new Map(nodes.map((n) => [n.metadata.name, n.metadata.labels![IB_HOST_LABEL]!]));
  return { args, items, host: (n: string) => hostOf.get(n)!, hostCount: tree.hosts.length };
}

test('a rail-optimised fabric as topology.conf: every HyperNode a switch, hosts under their IB names, ranges compressed', async () => {
  const { args, items, host, hostCount } = await railOptimised();
  assert.equal(new Set(items.map((h) => h.spec!.tier)), new Set([1, 2, 3]));
  const text = await run([...args, '-o', 'slurm-topology-conf']);
  const read = readTopologyConf(text);
  assert.equal(read.switches, expectedSwitches(items, host));
  assert.is(read.blocks.size, 0);
  assert.is(
    [...read.switches.values()].flatMap((s) => s.nodes).length,
    hostCount,
    'every host under exactly one switch',
  );
  // A leaf group's four hosts of one SU are one range: su01-n[01-04].
  assert.match(text, /Nodes=gpu-su01-n\[01-04\]\n/);
  for (const line of text.split('\n').filter((l) => l && !l.startsWith('#')))
    assert.match(line, /^SwitchName=[A-Za-z0-9._-]+( Switches=\S+)?( Nodes=\S+)?$/);
});

test('a rail-optimised fabric as topology.yaml: one tree topology, the cluster default, equal to the HyperNode tree', async () => {
  const { args, items, host } = await railOptimised();
  const read = readTopologyYaml(await run([...args, '-o', 'slurm-topology-yaml']));
  assert.equal(read.topologies, ['hypernode-tree']);
  assert.is(read.clusterDefault, 'hypernode-tree');
  assert.equal(read.switches, expectedSwitches(items, host));
});

test('an InfiniBand fabric whose Nodes are named apart from their hosts: Slurm gets the host names the ibnetdiscover host mapping reads from a Node label', async () => {
  const { args, hosts, hostOf } = ibHostsByLabel(scratch);
  const items = (JSON.parse(await run([...args, '-o', 'json'])) as { items: HyperNode[] }).items;
  assert.equal(memberNames(items.find((hn) => hn.spec!.tier === 1)!).length, 4, "a unit's four Nodes in a leaf group");
  const read = readTopologyConf(await run([...args, '-o', 'slurm-topology-conf']));
  assert.equal(read.switches, expectedSwitches(items, hostOf));
  assert.equal(
    [...read.switches.values()].flatMap((sw) => sw.nodes).sort(),
    [...hosts].sort(),
    'every host by its name',
  );
});

test('a Node the file names by its Node name although host labels are set is named on stderr, with what to label', async () => {
  // GPU Nodes on a graph fabric whose hosts are found by a label, and a CPU Node only the label source places.
  const graph = write('graph.json', JSON.stringify(railGraphDocument({ sus: 1, rails: 1, hostsPerSu: 2, spines: 1 })));
  const rack = { [RACK_LABEL]: 'r1' };
  const nodes: NodeMeta[] = [
    { metadata: { name: 'i-1', labels: { ...rack, [IB_HOST_LABEL]: 'su1-h1' } } },
    { metadata: { name: 'i-2', labels: { ...rack, [IB_HOST_LABEL]: 'su1-h2' } } },
    { metadata: { name: 'cpu-1', labels: rack } },
  ];
  const conf = write(
    'conf.yaml',
    stringify({
      networkTopologyDiscovery: [
        {
          source: 'label',
          enabled: true,
          config: {
            networkTopologyTypes: { racks: [{ nodeLabel: RACK_LABEL }, { nodeLabel: 'kubernetes.io/hostname' }] },
          },
        },
        {
          source: 'graph',
          enabled: true,
          config: {
            fabric: 'lab',
            url: 'https://inventory.example.com/lab.yaml',
            hostMapping: { nodeLabel: IB_HOST_LABEL },
          },
        },
      ],
    }),
  );
  const r = await render(
    ['--config', conf, '--nodes', nodesFile(nodes), '--graph-file', graph, '-o', 'slurm-topology-conf'],
    'x',
  );
  assert.is(r.code, 0, r.stderr);
  const written = [...readTopologyConf(r.stdout).switches.values()].flatMap((sw) => sw.nodes);
  assert.equal(
    new Set(written),
    new Set(['su1-h1', 'su1-h2', 'cpu-1']),
    'GPU Nodes by host name, the CPU Node by its own',
  );
  assert.ok(
    hasLine(
      r.stderr,
      `warning: 1 Node(s) carry none of the host-name labels ${IB_HOST_LABEL} (hostMapping.nodeLabel) and are written under their Node names, which Slurm may not know: cpu-1; label them with their host names`,
    ),
    r.stderr,
  );
});

async function mixedCluster() {
  const conf = write(
    'conf.yaml',
    stringify({
      networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: MIXED_CONFIG } }],
    }),
  );
  const args = ['--config', conf, '--nodes', nodesFile(mixedNodes())];
  const items = (JSON.parse(await run([...args, '-o', 'json'])) as { items: HyperNode[] }).items;
  return { args, items };
}

test('a mixed-depth label cluster: H100 Nodes under leaves, GB200 Nodes under NVLink domains, which are also the blocks', async () => {
  const { args, items } = await mixedCluster();
  const domains = items.filter((h) => h.spec!.tierName === 'nvl-domain');
  assert.is(domains.length, 2);
  const expectedBlocks = new Map(domains.map((d) => [d.metadata.name, memberNames(d).sort()]));

  const yaml = readTopologyYaml(await run([...args, '-o', 'slurm-topology-yaml']));
  assert.equal(yaml.topologies, ['hypernode-tree', 'hypernode-block']);
  assert.is(yaml.clusterDefault, 'hypernode-tree');
  assert.equal(
    yaml.switches,
    expectedSwitches(items, (n) => n),
  );
  assert.equal(yaml.blocks, expectedBlocks);
  // Depths differ: an H100 Node sits two switches below the top, a GB200 Node three.
  const parentOf = (name: string) =>
    [...yaml.switches].find(([, s]) => s.nodes.includes(name) || s.switches.includes(name))?.[0];
  const depth = (name: string) => {
    let d = 0;
    for (let p = parentOf(name); p !== undefined; p = parentOf(p)) d++;
    return d;
  };
  assert.equal([depth('h100-0'), depth('gb200-0'), depth('gb200-7')], [2, 3, 2]);

  const tree = readTopologyConf(await run([...args, '-o', 'slurm-topology-conf']));
  assert.equal(tree.switches, yaml.switches);
  const blocks = readTopologyConf(await run([...args, '-o', 'slurm-topology-conf', '--slurm-plugin', 'block']));
  assert.equal(blocks.blocks, expectedBlocks);
  assert.is(blocks.switches.size, 0);
});

test('--slurm-block-tier chooses which tier is written as blocks; a tier nobody has fails the block file naming the flag', async () => {
  const { args, items } = await mixedCluster();
  const leaves = items.filter((h) => h.spec!.tierName === 'leaf');
  const read = readTopologyConf(
    await run([...args, '-o', 'slurm-topology-conf', '--slurm-plugin', 'block', '--slurm-block-tier', 'leaf']),
  );
  assert.equal([...read.blocks.keys()].sort(), leaves.map((l) => l.metadata.name).sort());
  // A leaf block holds every Node below it, through the NVLink domains.
  assert.is([...read.blocks.values()].flat().length, 16);
  const none = await render(
    [...args, '-o', 'slurm-topology-conf', '--slurm-plugin', 'block', '--slurm-block-tier', 'rack'],
    'x',
  );
  assert.is(none.code, 1);
  assert.is(none.stdout, '');
  assert.match(none.stderr, /no HyperNode of a block tier \(see --slurm-block-tier\) holds Nodes/);
});

test('a relabel the guard holds: the old racks stay HyperNodes, the Slurm file puts each Node under its new rack only', async () => {
  const conf = write('conf.yaml', SAMPLE_DISCOVERY_CONFIG);
  const nodes = sampleNodes({ zones: 2, spinesPerZone: 2, racksPerSpine: 4, nodesPerRack: 4 });
  const before = (
    JSON.parse(await run(['--config', conf, '--nodes', nodesFile(nodes), '-o', 'json'])) as { items: HyperNode[] }
  ).items;
  const existing = write('existing.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: before }));
  // Every rack renamed at once: 16 of the 22 HyperNodes would go, more than maxDeletePercent (50) lets through.
  const relabelled = nodes.map(
    (n): NodeMeta => ({
      metadata: {
        name: n.metadata.name,
        labels: { ...n.metadata.labels, [RACK_LABEL]: `new-${n.metadata.labels[RACK_LABEL]}` },
      },
    }),
  );
  const args = ['--config', conf, '--nodes', nodesFile(relabelled), '--existing', existing];
  const json = await render([...args, '-o', 'json'], 'x');
  assert.is(json.code, 0, json.stderr);
  assert.match(json.stderr, /would delete 16 of the 22 HyperNodes it owns \(72\.7%\)/);
  const items = (JSON.parse(json.stdout) as { items: HyperNode[] }).items;
  const held = before.filter((hn) => hn.spec!.tier === 1).map((hn) => hn.metadata.name);
  assert.ok(
    held.every((name) => items.some((hn) => hn.metadata.name === name)),
    'the held racks are still HyperNodes',
  );

  const read = readTopologyConf(await run([...args, '-o', 'slurm-topology-conf']));
  assert.equal(
    held.filter((name) => read.switches.has(name)),
    [],
    'a held rack whose Nodes moved is no switch',
  );
  const leaves = [...read.switches.values()].flatMap((s) => s.nodes);
  assert.equal(leaves.sort(), nodes.map((n) => n.metadata.name).sort(), 'every Node under exactly one switch');
  assert.equal(
    read.switches,
    expectedSwitches(
      items.filter((hn) => !held.includes(hn.metadata.name)),
      (n) => n,
    ),
  );
});

test.run();
