// `render --graph-file` and `plan --graph-file` for the graph source: the
// document gives the tree offline, render without the flag says what to
// pass instead of reaching for the URL, and a bad entry fails the command
// naming it with nothing on stdout.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { hasLine, scratchDir } from './scratch-dir.ts';

const scratch = scratchDir('hn-render-graph-');
const { write, nodesFile } = scratch;

const conf = () =>
  write(
    'conf.yaml',
    'networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    config:\n      fabric: lab\n      url: https://inventory.example.com/lab.yaml\n',
  );
const hosts = ['su1-h1', 'su1-h2', 'su2-h1', 'su2-h2'];

test('render --graph-file prints the tree of the document, offline', async () => {
  const graph = write('graph.json', JSON.stringify(railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 })));
  const r = await render(['--config', conf(), '--nodes', nodesFile(hosts), '--graph-file', graph], 'x');
  assert.is(r.code, 0, r.stderr);
  const items = (parseYaml(r.stdout) as { items: HyperNode[] }).items;
  assert.equal(
    items.map((h) => [
      h.metadata.name,
      h.spec!.tier,
      h.spec!.tierName,
      h.metadata.labels!['volcano.sh/network-topology-source'],
    ]),
    [
      ['lab-leaf-leaf-su1-r1', 1, 'leaf', 'graph'],
      ['lab-leaf-leaf-su2-r1', 1, 'leaf', 'graph'],
      ['lab-spine-spine-1', 2, 'spine', 'graph'],
    ],
  );
  const tree = await render(
    ['--config', conf(), '--nodes', nodesFile(hosts), '--graph-file', graph, '-o', 'tree'],
    'x',
  );
  assert.match(tree.stdout, /lab-spine-spine-1\s+tier=2 \(spine\)/);
});

test('render names the graph hosts that match no Node on stderr, and what to change', async () => {
  const graph = write('graph.json', JSON.stringify(railGraphDocument({ sus: 2, rails: 2, hostsPerSu: 2, spines: 2 })));
  const r = await render(
    ['--config', conf(), '--nodes', nodesFile(['su1-h1', 'su1-h2']), '--graph-file', graph, '-o', 'tree'],
    'x',
  );
  assert.is(r.code, 0, r.stderr);
  assert.ok(
    hasLine(
      r.stderr,
      'Fabric graph hosts that match no Node are left out entry="networkTopologyDiscovery[0] (source \\"graph\\", line 2)" source="graph" fabric="lab" count=2 hosts="su2-h1,su2-h2" change="if some are Nodes, set config.hostMapping so that their names become Node names"',
    ),
    r.stderr,
  );
});

test('render without --graph-file names the flag and the configured URL; a bad entry is named; nothing on stdout', async () => {
  const none = await render(['--config', conf(), '--nodes', nodesFile(hosts)], 'x');
  assert.is(none.code, 1);
  assert.is(none.stdout, '');
  assert.match(none.stderr, 'pass --graph-file F with the document of https://inventory.example.com/lab.yaml');
  const bad = write('bad.yaml', 'switches: [leaf-1]\nlinks:\n  - {a: {host: su1-h1}, b: {switch: leaf-9}}\n');
  const r = await render(['--config', conf(), '--nodes', nodesFile(hosts), '--graph-file', bad], 'x');
  assert.is(r.code, 1);
  assert.is(r.stdout, '');
  assert.match(r.stderr, 'links[0].b.switch "leaf-9" is not in switches');
});

test.run();
