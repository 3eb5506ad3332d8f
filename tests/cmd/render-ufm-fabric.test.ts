// `render --ufm-capture` for both UFM modes: captured ports, links and
// systems answers give fabric mode's tree (one directory per fabric), the
// same ports.json gives legacy mode's leaf-hn/spine-hn, and a missing file
// is named in the error.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { generateFatTree, lowestGuid, type FatTree } from '../../testing/fat-tree.ts';
import { hasLine, scratchDir } from './scratch-dir.ts';

const scratch = scratchDir('hn-render-ufm-');
const { write, nodesFile } = scratch;

function capture(name: string, tree: FatTree, files = ['ports', 'links', 'systems']): string {
  const d = scratch.path(name);
  mkdirSync(d);
  for (const f of files) writeFileSync(join(d, `${f}.json`), JSON.stringify(tree[f as 'ports' | 'links' | 'systems']));
  return d;
}
const entry = (config: string) =>
  `networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    config:\n${config}`;

test("fabric mode renders each fabric's tree from its capture directory", async () => {
  const a = generateFatTree({ sus: 2, nodesPerSu: 2, rails: 2, tiers: 2, fabricId: 1 });
  const b = generateFatTree({ sus: 16, nodesPerSu: 1, rails: 1, fabricId: 2, hostName: (s, n) => `b-${s}-${n}` });
  const conf = write(
    'conf.yaml',
    entry(
      '      mode: fabric\n      fabrics:\n        - {name: pod-a, endpoint: "https://ufm-a"}\n        - {name: pod-b, endpoint: "https://ufm-b"}\n',
    ),
  );
  const args = [
    '--config',
    conf,
    '--nodes',
    nodesFile([...a.hosts, ...b.hosts]),
    '--ufm-capture',
    `https://ufm-a=${capture('a', a)}`,
    '--ufm-capture',
    `https://ufm-b=${capture('b', b)}`,
  ];
  const yaml = await render(args, 'x');
  assert.is(yaml.code, 0, yaml.stderr);
  const items = (parseYaml(yaml.stdout) as { items: HyperNode[] }).items;
  const count = (fabric: string, tier: number) =>
    items.filter((h) => h.metadata.labels?.['volcano.sh/ufm-fabric'] === fabric && h.spec!.tier === tier).length;
  assert.equal([count('pod-a', 1), count('pod-a', 2), count('pod-a', 3)], [2, 1, 0]);
  assert.equal([count('pod-b', 1), count('pod-b', 2), count('pod-b', 3)], [16, 4, 1]);
  const tree = await render([...args, '-o', 'tree'], 'x');
  assert.is(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, new RegExp(`pod-a-spine-${lowestGuid(a, 'spine-')}\\s+tier=2 \\(spine\\)`));
  assert.match(tree.stdout, new RegExp(`pod-b-core-${lowestGuid(b, 'cg')}\\s+tier=3 \\(core\\)`));
});

test("legacy mode renders the same capture's ports.json as leaf-hn-N and spine-hn", async () => {
  const t = generateFatTree({ sus: 2, nodesPerSu: 2, rails: 2, tiers: 2 });
  const conf = write('conf.yaml', entry('      endpoint: "https://ufm"\n'));
  const r = await render(['--config', conf, '--nodes', nodesFile(t.hosts), '--ufm-capture', capture('c', t)], 'x');
  assert.is(r.code, 0, r.stderr);
  assert.equal(
    (parseYaml(r.stdout) as { items: HyperNode[] }).items.map((h) => h.metadata.name),
    ['leaf-hn-0', 'leaf-hn-1', 'spine-hn'],
  );
});

test('fabric mode names the UFM hosts that match no Node on stderr, and what to change', async () => {
  const t = generateFatTree({
    sus: 2,
    nodesPerSu: 2,
    rails: 2,
    tiers: 2,
    hostName: (s, n) => `gpu-${s}-${n}.ib.example.com`,
  });
  const conf = write(
    'conf.yaml',
    entry('      mode: fabric\n      endpoint: "https://ufm"\n      hostMapping: {stripSuffix: .ib.example.com}\n'),
  );
  const r = await render(
    [
      '--config',
      conf,
      '--nodes',
      nodesFile(['gpu-1-1', 'gpu-1-2', 'gpu-2-1']),
      '--ufm-capture',
      capture('c', t),
      '-o',
      'tree',
    ],
    'x',
  );
  assert.is(r.code, 0, r.stderr);
  assert.ok(
    hasLine(
      r.stderr,
      'UFM hosts that match no Node are left out entry="networkTopologyDiscovery[0] (source \\"ufm\\", line 2)" source="ufm" fabric="ufm" count=1 hosts="gpu-2-2.ib.example.com" change="if some are Nodes, set config.hostMapping so that their names become Node names"',
    ),
    r.stderr,
  );
});

test('a fabric capture without links.json fails naming the file to save', async () => {
  const t = generateFatTree({ sus: 1, nodesPerSu: 2, rails: 2, tiers: 2 });
  const conf = write('conf.yaml', entry('      mode: fabric\n      endpoint: "https://ufm"\n'));
  const r = await render(
    ['--config', conf, '--nodes', nodesFile(t.hosts), '--ufm-capture', capture('c', t, ['ports', 'systems'])],
    'x',
  );
  assert.is(r.code, 1);
  assert.match(
    r.stderr,
    /links\.json \(no such file\): save the body of GET https:\/\/ufm\/ufmRest\/resources\/links there/,
  );
});

test.run();
