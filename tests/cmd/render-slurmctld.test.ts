// `render -o slurm-topology-conf` loaded by a real slurmctld (Debian's
// slurmctld, tests/support/slurmctld.ts): the controller must start on the
// file, and the tree `scontrol show topology` reports must be the HyperNode
// tree `render -o json` prints from the same input, switch by switch (the
// same child switches and the same Nodes below). Three clusters: a topograph
// preset with an NVLink level, NVLink domains of unequal sizes and GB200
// Nodes whose clique is not published yet (a leaf holding both Nodes and
// NVLink domains, which Slurm refuses unless its Nodes get a leaf switch of
// their own), a graph fabric whose HyperNode names run past Slurm's 64
// characters, and a GB200 fabric with `nvlink: domain` from UFM in fabric and
// in legacy mode and from ibnetdiscover's output (NVLink domains inside the
// fabric's leaf groups, beside a Node whose clique is not published yet), and
// an InfiniBand fabric whose Nodes are named apart from their hosts. The
// expected names follow the rules of docs/configuration.md ("Slurm topology
// files"), computed here from the HyperNode names.
//
// Debian's Slurm (22.05) has no topology/block plugin, so the block file of
// the unequal domains is checked against the block plugin's documented rules
// instead (tests/support/slurm-topology-reader.ts): BlockSizes, and the
// domains of one leaf next to each other in the file, the order Slurm joins
// blocks in.

import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode, NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFatTree } from '../../testing/fat-tree.ts';
import { addRailFabric, IbFabric } from '../../testing/ib-fabric.ts';
import { ibHostsByLabel } from './ib-hosts-by-label.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { slurmctldTopology, slurmctldUnavailable } from '../support/slurmctld.ts';
import {
  readScontrolTopology,
  readTopologyConf,
  readTopologyYaml,
  type LoadedSwitch,
} from '../support/slurm-topology-reader.ts';
import { testNeeding } from '../support/skip.ts';
import { scratchDir } from './scratch-dir.ts';

const scratch = scratchDir('hn-render-slurmctld-');
const { write, nodesFile } = scratch;
const withSlurmctld = testNeeding(slurmctldUnavailable());

const node = (name: string, labels: Record<string, string> = {}): NodeMeta => ({ metadata: { name, labels } });
const labelConfig = (types: object) =>
  write(
    'conf.yaml',
    stringify({
      networkTopologyDiscovery: [{ source: 'label', enabled: true, config: { networkTopologyTypes: types } }],
    }),
  );

async function run(args: string[]): Promise<string> {
  const r = await render(args, 'x');
  assert.is(r.code, 0, r.stderr);
  return r.stdout;
}

const sha = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 10);
/** The documented naming: at most 64 characters, a longer name cut to 53, `-` and 10 hex digits of its SHA-256. */
const switchName = (hn: string) => (hn.length <= 64 ? hn : `${hn.slice(0, 53)}-${sha(hn)}`);
/** The synthetic leaf of a HyperNode holding Nodes and HyperNodes: its name cut to 58 the same way, then `.nodes`. */
const nodesLeafName = (hn: string) => `${hn.length <= 58 ? hn : `${hn.slice(0, 47)}-${sha(hn)}`}.nodes`;

/** The tree Slurm should load: every HyperNode a switch with its child HyperNodes and every Node below it. */
function expectedTree(items: HyperNode[], host: (node: string) => string = (n) => n): Map<string, LoadedSwitch> {
  const byName = new Map(items.map((hn) => [hn.metadata.name, hn]));
  const ofType = (hn: HyperNode, type: string) =>
    memberNames({ spec: { members: (hn.spec!.members ?? []).filter((m) => m.type === type) } });
  const nodesOf = (hn: HyperNode) => ofType(hn, 'Node').map(host);
  const below = (hn: HyperNode): string[] => [
    ...nodesOf(hn),
    ...ofType(hn, 'HyperNode').flatMap((c) => below(byName.get(c)!)),
  ];
  const out = new Map<string, LoadedSwitch>();
  for (const hn of items) {
    const children = ofType(hn, 'HyperNode').map(switchName);
    const nodes = nodesOf(hn);
    if (children.length > 0 && nodes.length > 0) {
      const leaf = nodesLeafName(hn.metadata.name);
      children.push(leaf);
      out.set(leaf, { switches: [], nodes: nodes.sort() });
    }
    out.set(switchName(hn.metadata.name), { switches: children.sort(), nodes: [...new Set(below(hn))].sort() });
  }
  return out;
}

/**
 * Renders the HyperNodes and topology.conf, loads the file in slurmctld (its Nodes named `hosts`) and compares its
 * tree; `host` is the host name Slurm should know a Node by.
 */
async function loadsAsTheHyperNodeTree(
  args: string[],
  hosts: string[],
  host?: (node: string) => string,
): Promise<HyperNode[]> {
  const items = (JSON.parse(await run([...args, '-o', 'json'])) as { items: HyperNode[] }).items;
  const conf = await run([...args, '-o', 'slurm-topology-conf']);
  for (const s of readTopologyConf(conf).switches.keys())
    assert.ok(s.length <= 64, `switch name over 64 characters: ${s}`);
  const loaded = readScontrolTopology(await slurmctldTopology(conf, hosts));
  assert.equal(loaded, expectedTree(items, host));
  return items;
}

/**
 * A topograph preset with an NVLink level: NVLink domains of 4 and 2 Nodes
 * under leaf-a, beside gb-06 and gb-07 whose clique is not published yet (so
 * leaf-a holds Nodes and HyperNodes), and domains of 3 and 4 Nodes under
 * leaf-b. The ClusterUUIDs are chosen so that the domains' HyperNode names
 * sort across the leaves.
 */
function presetCluster(): { args: string[]; hosts: string[] } {
  const racks: Array<[leaf: string, uuid: string | undefined, size: number]> = [
    ['leaf-a', '03000001-0000-4000-8000-000000000001', 4],
    ['leaf-a', '03000002-0000-4000-8000-000000000002', 2],
    ['leaf-a', undefined, 2],
    ['leaf-b', '03000003-0000-4000-8000-000000000003', 3],
    ['leaf-b', '03000004-0000-4000-8000-000000000004', 4],
  ];
  let n = 0;
  const nodes = racks.flatMap(([leaf, uuid, size]) =>
    Array.from({ length: size }, () =>
      node(`gb-${String(n++).padStart(2, '0')}`, {
        'network.topology.nvidia.com/leaf': leaf,
        'network.topology.nvidia.com/spine': 'spine-1',
        ...(uuid ? { 'nvidia.com/gpu.clique': `${uuid}.1` } : {}),
      }),
    ),
  );
  const args = [
    '--config',
    labelConfig({ gpu: { preset: 'topograph-v0.5', nvlink: 'domain' } }),
    '--nodes',
    nodesFile(nodes),
  ];
  return { args, hosts: nodes.map((x) => x.metadata.name) };
}

withSlurmctld(
  'a preset cluster whose leaf holds Nodes beside NVLink domains of unequal sizes loads in slurmctld as its HyperNode tree',
  async () => {
    const { args, hosts } = presetCluster();
    const items = await loadsAsTheHyperNodeTree(args, hosts);
    const holdsBoth = (h: HyperNode) =>
      ['Node', 'HyperNode'].every((type) => h.spec!.members!.some((m) => m.type === type));
    assert.is(items.filter(holdsBoth).length, 1, 'the case needs one HyperNode holding Nodes and HyperNodes');
  },
);

withSlurmctld(
  'a graph fabric with long switch ids: names shortened to 64 characters load in slurmctld as the HyperNode tree',
  async () => {
    // Two rails' leaves per unit and two spines; ids 55 characters long sharing their first 50.
    const id = (what: string) => `${'row-12-aisle-7-hall-b-building-3-campus-north-'}${what}`.padEnd(55, 'x');
    const spines = [id('spine-1'), id('spine-2')];
    const switches = [...spines];
    const links: unknown[] = [];
    const hosts: string[] = [];
    for (let s = 1; s <= 2; s++) {
      for (let r = 1; r <= 2; r++) {
        const leaf = id(`leaf-su${s}-r${r}`);
        switches.push(leaf);
        spines.forEach((spine, n) =>
          links.push({ a: { switch: leaf, port: `swp${60 + n}` }, b: { switch: spine, port: `swp${s * 2 + r}` } }),
        );
        for (let h = 1; h <= 2; h++) {
          links.push({ a: { host: `su${s}-h${h}`, port: `eth${r}` }, b: { switch: leaf, port: `swp${h}` } });
          if (r === 1) hosts.push(`su${s}-h${h}`);
        }
      }
    }
    const graph = write('graph.json', JSON.stringify({ switches, links }));
    const conf = write(
      'graph-conf.yaml',
      stringify({
        networkTopologyDiscovery: [
          {
            source: 'graph',
            enabled: true,
            config: { fabric: 'inventory-east-datacenter', url: 'https://inventory.example.com/east.yaml' },
          },
        ],
      }),
    );
    const items = await loadsAsTheHyperNodeTree(
      ['--config', conf, '--nodes', nodesFile(hosts.map((h) => node(h))), '--graph-file', graph],
      hosts,
    );
    assert.ok(
      items.some((h) => h.metadata.name.length > 64),
      'the case needs HyperNode names over 64 characters',
    );
  },
);

/** A GB200 tray of unit `su`: trays 1–4 in one rack, 5–8 in another, the ninth without a published clique. */
function gb200Tray(host: string): NodeMeta {
  const [su, n] = host.split('-').slice(1).map(Number) as [number, number];
  return node(
    host,
    n > 8 ? {} : { 'nvidia.com/gpu.clique': `0${su}00000${n <= 4 ? 1 : 2}-0000-4000-8000-00000000000${su}.1` },
  );
}
const trayName = (su: number, n: number) => `gb-${su}-${String(n).padStart(2, '0')}`;
const nvlinkConfig = (source: string, config: object) =>
  write(
    'conf.yaml',
    stringify({ networkTopologyDiscovery: [{ source, enabled: true, config: { ...config, nvlink: 'domain' } }] }),
  );

/**
 * GB200 fabrics of two units of nine trays on two rails (gb200Tray: two racks
 * of four trays per unit and a ninth tray per unit whose clique is not
 * published yet, so each leaf group holds Nodes beside NVLink domains),
 * rendered with `nvlink: domain` from each fabric source's captured answers.
 */
const NVLINK_CLUSTERS: Record<string, () => { args: string[]; hosts: string[] }> = {
  'UFM fabric mode': () => ufmCluster({ mode: 'fabric', fabric: 'gb200', endpoint: 'https://ufm' }),
  'UFM legacy mode': () => ufmCluster({ endpoint: 'https://ufm' }),
  ibnetdiscover: () => {
    const fabric = addRailFabric(new IbFabric(), {
      units: 2,
      hostsPerUnit: 9,
      rails: 2,
      spines: 2,
      parallel: 2,
      hostName: trayName,
    });
    const hosts = [1, 2].flatMap((su) => Array.from({ length: 9 }, (_, i) => trayName(su, i + 1)));
    const capture = write('gb200.txt', fabric.ibnetdiscoverText({ speed: 'NDR', port0: 'enhanced' }));
    const conf = nvlinkConfig('ibnetdiscover', { fabric: 'gb200' });
    return {
      args: [
        '--config',
        conf,
        '--nodes',
        nodesFile(hosts.map(gb200Tray)),
        '--ibnetdiscover-capture',
        `gb200=${capture}`,
      ],
      hosts,
    };
  },
};

/** The UFM fabric of NVLINK_CLUSTERS as its captured answers, in the mode `config` gives. */
function ufmCluster(config: object): { args: string[]; hosts: string[] } {
  const tree = generateFatTree({ sus: 2, nodesPerSu: 9, rails: 2, tiers: 2, uplinks: 2, hostName: trayName });
  const capture = scratch.path('capture');
  mkdirSync(capture);
  for (const f of ['ports', 'links', 'systems'] as const)
    writeFileSync(join(capture, `${f}.json`), JSON.stringify(tree[f]));
  return {
    args: [
      '--config',
      nvlinkConfig('ufm', config),
      '--nodes',
      nodesFile(tree.hosts.map(gb200Tray)),
      '--ufm-capture',
      capture,
    ],
    hosts: tree.hosts,
  };
}

for (const [name, cluster] of Object.entries(NVLINK_CLUSTERS)) {
  withSlurmctld(
    `${name} with nvlink: domain: NVLink domains inside the leaf groups load in slurmctld as the HyperNode tree, and are the blocks`,
    async () => {
      const { args, hosts } = cluster();
      const items = await loadsAsTheHyperNodeTree(args, hosts);
      const domains = items.filter((h) => h.spec!.tierName === 'nvl-domain');
      assert.equal(
        domains.map((d) => memberNames(d).length),
        [4, 4, 4, 4],
        'four racks of four trays',
      );
      // The blocks are the domains, each leaf group's two next to each other: Slurm joins them first.
      const read = readTopologyConf(
        await run([...args, '-o', 'slurm-topology-conf', '--slurm-plugin', 'block', '--slurm-block-size', '4']),
      );
      assert.equal(read.blockSizes, [4, 8, 16]);
      const leafOf = new Map(
        items.flatMap((leaf) =>
          memberNames(leaf)
            .filter((m) => domains.some((d) => d.metadata.name === m))
            .map((d) => [d, leaf.metadata.name] as const),
        ),
      );
      const order = [...read.blocks.keys()];
      assert.equal(order.sort(), domains.map((d) => d.metadata.name).sort());
      const fileOrder = [...read.blocks.keys()].map((b) => leafOf.get(b));
      assert.equal(fileOrder, [fileOrder[0], fileOrder[0], fileOrder[2], fileOrder[2]]);
      assert.not.equal(fileOrder[0], fileOrder[2]);
    },
  );
}

withSlurmctld(
  "an InfiniBand fabric whose Nodes are named apart from their hosts loads in slurmctld under the host names ibnetdiscover's host mapping reads from a Node label",
  async () => {
    const { args, hosts, hostOf } = ibHostsByLabel(scratch);
    const items = await loadsAsTheHyperNodeTree(args, hosts, hostOf);
    assert.is(items.filter((hn) => hn.spec!.tier === 1).length, 2, 'a leaf group per unit');
  },
);

test('NVLink domains of unequal sizes as blocks: BlockSizes from the smallest domain, the domains of one leaf next to each other', async () => {
  const { args } = presetCluster();
  const items = (JSON.parse(await run([...args, '-o', 'json'])) as { items: HyperNode[] }).items;
  const leafOf = new Map(
    items
      .filter((h) => h.spec!.tierName === 'leaf')
      .flatMap((leaf) => memberNames(leaf).map((d) => [d, leaf.metadata.name] as const)),
  );
  for (const extra of [[], ['--slurm-block-size', '2']]) {
    const read = readTopologyConf(
      await run([...args, '-o', 'slurm-topology-conf', '--slurm-plugin', 'block', ...extra]),
    );
    // Four blocks: the base (the 2-Node domain), then 2 and 4 blocks joined.
    assert.equal(read.blockSizes, [2, 4, 8]);
    const order = [...read.blocks.keys()];
    assert.equal(order.map((b) => read.blocks.get(b)!.length).sort(), [2, 3, 4, 4]);
    // Slurm joins blocks 0+1 and 2+3 first: each pair is one leaf's.
    assert.equal(
      order.map((b) => leafOf.get(b)),
      [leafOf.get(order[0]!), leafOf.get(order[0]!), leafOf.get(order[2]!), leafOf.get(order[2]!)],
    );
    assert.not.equal(leafOf.get(order[0]!), leafOf.get(order[2]!));
  }
  // The stated NVL size is larger than two domains: Slurm would not start, so render refuses, naming them.
  const r = await render(
    [...args, '-o', 'slurm-topology-conf', '--slurm-plugin', 'block', '--slurm-block-size', '4'],
    'x',
  );
  assert.is(r.code, 1);
  assert.is(r.stdout, '');
  assert.match(
    r.stderr,
    /--slurm-block-size 4: blocks \S+ \([23]\), \S+ \([23]\) have fewer Nodes, and Slurm refuses to start/,
  );
  assert.match(r.stderr, 'pass at most 2');
  // The tree file has no blocks, so the flag does not stop it.
  assert.match(await run([...args, '-o', 'slurm-topology-conf', '--slurm-block-size', '4']), /^SwitchName=/m);
});

test('the preset cluster as topology.yaml: the tree of topology.conf, no switch with both children and nodes, block_sizes as BlockSizes', async () => {
  const { args } = presetCluster();
  const yaml = readTopologyYaml(await run([...args, '-o', 'slurm-topology-yaml']));
  const conf = readTopologyConf(await run([...args, '-o', 'slurm-topology-conf']));
  assert.equal(yaml.switches, conf.switches);
  // Slurm 26.05 drops the children of a switch that has nodes too.
  assert.equal(
    [...yaml.switches].filter(([, s]) => s.switches.length > 0 && s.nodes.length > 0).map(([name]) => name),
    [],
  );
  assert.ok([...yaml.switches.keys()].some((name) => name.endsWith('.nodes')));
  assert.equal(yaml.blockSizes, [2, 4, 8]);
});

test.run();
