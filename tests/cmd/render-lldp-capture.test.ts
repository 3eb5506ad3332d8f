// `render --lldp-capture`: the tree of a rail-optimised fabric from walks
// captured with snmpbulkwalk -On on the real lab (tests/cmd/lldp-capture), a
// capture directory per fabric, and the errors that name what to capture.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { scratchDir } from './scratch-dir.ts';

const CAPTURE = join(import.meta.dirname, 'lldp-capture');
const scratch = scratchDir('hn-render-lldp-');
const { write, nodesFile } = scratch;

const hosts = [1, 2].flatMap((su) => [1, 2, 3].map((h) => `su${su}-h${h}`));
const entry = (config: string) =>
  `networkTopologyDiscovery:\n  - source: lldp\n    enabled: true\n    credentials: {secretRef: {name: lldp-snmp, namespace: volcano-system}}\n    config:\n      hostMapping: {stripSuffix: .fabric.example.com}\n${config}`;
const members = (hn: HyperNode) => (hn.spec!.members ?? []).map((m) => m.selector?.exactMatch?.name).sort();

test('a captured rail-optimised fabric renders as two scalable units under one spine group, named after their lowest chassis ids', async () => {
  const conf = write('conf.yaml', entry('      fabric: roce\n      switches: [10.0.0.1]\n'));
  const r = await render(['--config', conf, '--nodes', nodesFile(hosts), '--lldp-capture', CAPTURE], 'x');
  assert.is(r.code, 0, r.stderr);
  const items = (parseYaml(r.stdout) as { items: HyperNode[] }).items;
  assert.equal(
    items.map((hn) => [hn.metadata.name, hn.spec!.tier, hn.spec!.tierName, members(hn)]),
    [
      ['roce-leaf-02aa00030001', 1, 'leaf', ['su1-h1', 'su1-h2', 'su1-h3']],
      ['roce-leaf-02aa00080001', 1, 'leaf', ['su2-h1', 'su2-h2', 'su2-h3']],
      ['roce-spine-02aa00010001', 2, 'spine', ['roce-leaf-02aa00030001', 'roce-leaf-02aa00080001']],
    ],
  );
  assert.equal(items[0]!.metadata.labels, {
    'volcano.sh/network-topology-source': 'lldp',
    'volcano.sh/lldp-fabric': 'roce',
  });
  const tree = await render(
    ['--config', conf, '--nodes', nodesFile(hosts), '--lldp-capture', CAPTURE, '-o', 'tree'],
    'x',
  );
  assert.match(tree.stdout, /roce-spine-02aa00010001 +tier=2 \(spine\)/);
});

test('FABRIC=DIR gives each fabric its captures: a storage plane never merges compute domains', async () => {
  const storage = scratch.path('storage');
  mkdirSync(storage);
  // The storage plane: one of the lab's leaves alone, as if the hosts' storage NICs hung off it.
  cpSync(join(CAPTURE, 'leaf-su1-r1.txt'), join(storage, 'st-leaf.txt'));
  const conf = write(
    'conf.yaml',
    entry(
      '      fabrics:\n        - {name: compute, switches: [10.0.0.1]}\n        - {name: storage, switches: [10.1.0.1]}\n',
    ),
  );
  const r = await render(
    [
      '--config',
      conf,
      '--nodes',
      nodesFile(hosts),
      '--lldp-capture',
      `compute=${CAPTURE}`,
      '--lldp-capture',
      `storage=${storage}`,
    ],
    'x',
  );
  assert.is(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /fabric storage: 2 neighbour\(s\), link\(s\) or switch table\(s\) join no group .*neighbour "spine-1" \(chassis mac 02:aa:00:01:00:01, .*capabilities bridge\) is no polled switch and maps to no Node/,
    "the storage leaf's uplinks are reported",
  );
  const names = (parseYaml(r.stdout) as { items: HyperNode[] }).items.map((hn) => hn.metadata.name).sort();
  assert.equal(names, [
    'compute-leaf-02aa00030001',
    'compute-leaf-02aa00080001',
    'compute-spine-02aa00010001',
    'storage-leaf-02aa00030001',
  ]);
});

test('a missing capture, an unreadable walk and a bad flag are named with what to do', async () => {
  const conf = write('conf.yaml', entry('      switches: [10.0.0.1]\n'));
  const none = await render(['--config', conf, '--nodes', nodesFile(hosts)], 'x');
  assert.is(none.code, 1);
  assert.match(none.stderr, /no LLDP capture for fabric lldp: pass --lldp-capture lldp=DIR/);
  const bad = scratch.path('bad');
  mkdirSync(bad);
  writeFileSync(join(bad, 'sw1'), '.1.0.8802.1.1.2.1.3.2.0 = Hex-STRING: 02 AA\nTimeout: No Response from 10.0.0.1\n');
  const garbled = await render(['--config', conf, '--nodes', nodesFile(hosts), '--lldp-capture', bad], 'x');
  assert.is(garbled.code, 1);
  assert.match(garbled.stderr, /sw1:2: not a line of `snmpbulkwalk -On` output/);
  const twice = await render(
    ['--config', conf, '--nodes', nodesFile(hosts), '--lldp-capture', 'a', '--lldp-capture', 'b'],
    'x',
  );
  assert.is(twice.code, 2);
  assert.match(twice.stderr, /a directory for every fabric is already given/);
});

test.run();
